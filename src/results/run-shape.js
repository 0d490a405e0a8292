/**
 * What reports read from manifest.json and summary.json, checked before anything is computed
 * from them: a file of another shape is refused in one line naming the file and the field,
 * where a report would otherwise stop half-way on a TypeError or print NaN. Only the fields the
 * reports read are checked, so a run written by an older or newer rqbench still reads.
 */
import { UsageError, printable, shown } from '../options/usage-error.js';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNumber = (v) => typeof v === 'number' && Number.isFinite(v);

/**
 * A field's test and the words for it in the error line.
 * @satisfies {Record<string, [(v: any) => boolean, string]>}
 */
const TYPES = {
  object: [isObject, 'an object'],
  string: [(v) => typeof v === 'string', 'a string'],
  number: [isNumber, 'a number'],
  count: [(v) => Number.isInteger(v) && v >= 0, 'an integer >= 0'],
  workers: [(v) => Number.isInteger(v) && v >= 1, 'an integer >= 1'],
  period: [(v) => isNumber(v) && v > 0, 'a number > 0 (ms)'],
  epochMs: [(v) => isNumber(v) && v >= 0, 'a number (epoch ms)'],
  list: [Array.isArray, 'a list'],
  idOrNull: [(v) => v === null || typeof v === 'string', 'a string or null'],
  // false, true, or the signal that stopped the run
  interrupted: [(v) => typeof v === 'boolean' || typeof v === 'string', 'true, false or a signal name'],
};

/** @typedef {Array<[string, keyof TYPES, boolean?]>} Fields [field, type, optional] */

/**
 * [field, type, optional]: parents come before their fields.
 * @type {Fields}
 */
const MANIFEST = [
  ['t0', 'epochMs'], ['startedAt', 'string'], ['description', 'string'], ['flags', 'object'],
  ['runId', 'idOrNull', true], ['mode', 'string', true], ['writers', 'list', true], ['readers', 'list', true],
  ['host', 'object', true], ['host.hostname', 'string', true],
];
/** @type {Record<'produce'|'consume', Fields>} */
const MANIFEST_OF = { produce: [], consume: [['flags.period', 'period']] };

/** @type {Fields} */
const SUMMARY = [
  ['window', 'object'], ['window.fromSecond', 'count'], ['window.toSecond', 'number'], ['window.seconds', 'count'], ['name', 'string'],
  ['totals', 'object'], ['errorKinds', 'object', true], ['latency', 'object'], ['interrupted', 'interrupted', true], ['mode', 'string', true],
];
/** @type {Record<'produce'|'consume', Fields>} */
const SUMMARY_OF = {
  produce: [
    ['writers', 'workers'], ['target', 'object'], ['target.itemsPerSec', 'number'],
    ['achieved', 'object'], ['achieved.itemsPerSec', 'number'], ['achieved.items', 'count', true], ['writerErrors', 'list', true],
  ],
  consume: [['readers', 'workers'], ['windowCounts', 'object', true], ['perCycle', 'object', true], ['readerErrors', 'list', true]],
};

/**
 * @param {unknown} manifest parsed manifest.json
 * @param {string} file for the error line
 * @returns {string} the command that wrote the run directory
 */
export function commandOf(manifest, file) {
  checkFields(manifest, [['command', 'string']], file);
  return /** @type {Record<string, any>} */ (manifest).command;
}

/**
 * @param {unknown} manifest parsed manifest.json
 * @param {'produce'|'consume'} kind its command, already checked
 * @param {string} file for the error line
 */
export function checkManifest(manifest, kind, file) {
  checkFields(manifest, [...MANIFEST, ...MANIFEST_OF[kind]], file);
}

/**
 * @param {unknown} summary parsed summary.json
 * @param {'produce'|'consume'} kind manifest.json's command
 * @param {string} file for the error line
 */
export function checkSummary(summary, kind, file) {
  const s = /** @type {Record<string, any>} */ (summary);
  // what a run that failed or was killed twice leaves instead of a summary
  if (isObject(s) && s.incomplete === true) {
    const why = typeof s.failed === 'string' ? `: it failed: ${s.failed}` : typeof s.note === 'string' ? `: ${s.note}` : '';
    throw new UsageError(`${file}: the run did not finish${why.slice(0, 300)}`);
  }
  checkFields(s, [...SUMMARY, ...SUMMARY_OF[kind]], file);
  if (s.window.toSecond < s.window.fromSecond) refuse(file, 'window.toSecond', `a number >= window.fromSecond (${s.window.fromSecond})`, s.window.toSecond);
  for (const [op, byTag] of Object.entries(s.latency)) {
    if (!isObject(byTag)) refuse(file, `latency.${op}`, 'an object of tags', byTag);
    for (const [tag, st] of Object.entries(byTag)) {
      if (!isObject(st)) refuse(file, `latency.${op}.${tag}`, 'an object (count, p50, p99, …)', st);
      if (!TYPES.count[0](st.count)) refuse(file, `latency.${op}.${tag}.count`, TYPES.count[1], st.count);
    }
  }
}

/**
 * @param {unknown} doc
 * @param {Fields} fields
 * @param {string} file
 */
function checkFields(doc, fields, file) {
  if (!isObject(doc)) throw new UsageError(`${file}: must hold a JSON object (got ${got(doc)})`);
  for (const [name, type, optional] of fields) {
    const v = name.split('.').reduce((o, k) => (isObject(o) ? o[k] : undefined), doc);
    if (v === undefined && optional) continue;
    const [ok, words] = TYPES[type];
    if (!ok(v)) refuse(file, name, words, v);
  }
}

/**
 * @param {string} file
 * @param {string} field
 * @param {string} accepted
 * @param {unknown} v
 * @returns {never}
 */
function refuse(file, field, accepted, v) {
  if (v === undefined) throw new UsageError(`${file}: no ${field} (it must be ${accepted})`);
  throw new UsageError(`${file}: ${field} must be ${accepted} (got ${got(v)})`);
}

/** A value quoted back, short and without control characters. */
function got(v) {
  if (typeof v === 'string') return shown(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  const text = JSON.stringify(v);
  return printable(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}
