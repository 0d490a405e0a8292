/**
 * What reports read from manifest.json and summary.json, checked before anything is computed
 * from them: a file of another shape is refused in one line naming the file and the field. Every
 * run's manifest has the fields below; the rest each kind declares (runs/<kind>/).
 */
import { UsageError } from '../../usage-error.js';
import { checkFields, isObject } from '../../runs/common/run-fields.js';
import { readKind } from '../../runs/kinds.js';

/**
 * What every run's manifest.json has that the reports read.
 * @type {import('../../runs/common/run-fields.js').Fields}
 */
const MANIFEST = [
  ['t0', 'epochMs'],
  ['startedAt', 'string'],
  ['description', 'string'],
  ['flags', 'object'],
  ['runId', 'idOrNull', true],
  ['mode', 'string', true],
  ['writers', 'list', true],
  ['readers', 'list', true],
  ['host', 'object', true],
  ['host.hostname', 'string', true],
];

/**
 * What tells the kind of run apart: a `kind`, or else the `command` that wrote it.
 * @param {unknown} manifest parsed manifest.json
 * @param {string} file for the error line
 * @returns {Record<string, any>} the manifest, known to be an object
 */
export function checkKindFields(manifest, file) {
  checkFields(manifest, /** @type {Record<string, any>} */ (manifest)?.kind === undefined ? [['command', 'string']] : [], file);
  return /** @type {Record<string, any>} */ (manifest);
}

/**
 * @param {unknown} manifest parsed manifest.json
 * @param {string} kind already told from it
 * @param {string} file for the error line
 */
export function checkManifest(manifest, kind, file) {
  checkFields(manifest, [...MANIFEST, ...readKind(kind).manifestFields], file);
}

/**
 * @param {unknown} summary parsed summary.json
 * @param {string} kind told from manifest.json
 * @param {string} file for the error line
 */
export function checkSummary(summary, kind, file) {
  const s = /** @type {Record<string, any>} */ (summary);
  // what a run that failed or was killed twice leaves instead of a summary
  if (isObject(s) && s.incomplete === true) {
    const why = typeof s.failed === 'string' ? `: it failed: ${s.failed}` : typeof s.note === 'string' ? `: ${s.note}` : '';
    throw new UsageError(`${file}: the run did not finish${why.slice(0, 300)}`);
  }
  readKind(kind).checkSummary(s, file);
}
