/**
 * The fields a run directory's JSON files must hold, as a kind declares them ([field, type,
 * optional]), and the check that refuses a file of another shape in one line naming the file and
 * the field, where a report would otherwise stop half-way on a TypeError or print NaN. Only the
 * fields the reports read are declared, so a run written by an older or newer rqbench still reads.
 */
import { UsageError, printable, shown } from '../../usage-error.js';

export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNumber = (v) => typeof v === 'number' && Number.isFinite(v);

/**
 * A field's test and the words for it in the error line.
 * @satisfies {Record<string, [(v: any) => boolean, string]>}
 */
export const TYPES = {
  object: [isObject, 'an object'],
  string: [(v) => typeof v === 'string', 'a string'],
  number: [isNumber, 'a number'],
  count: [(v) => Number.isInteger(v) && v >= 0, 'an integer >= 0'],
  seconds: [(v) => isNumber(v) && v >= 0, 'a number >= 0 (seconds)'],
  workers: [(v) => Number.isInteger(v) && v >= 1, 'an integer >= 1'],
  period: [(v) => isNumber(v) && v > 0, 'a number > 0 (ms)'],
  epochMs: [(v) => isNumber(v) && v >= 0, 'a number (epoch ms)'],
  list: [Array.isArray, 'a list'],
  idOrNull: [(v) => v === null || typeof v === 'string', 'a string or null'],
  // false, true, or the signal that stopped the run
  interrupted: [(v) => typeof v === 'boolean' || typeof v === 'string', 'true, false or a signal name'],
};

/** @typedef {Array<[string, keyof TYPES, boolean?]>} Fields [field, type, optional]: parents come before their fields */

/**
 * `count` fields under one parent.
 * @param {string} parent
 * @param {string[]} names
 * @returns {Fields}
 */
export const counts = (parent, names) => names.map((n) => /** @type {[string, keyof TYPES]} */ ([`${parent}.${n}`, 'count']));

/**
 * A field's value by its dotted path; undefined where a parent is missing or not an object.
 * @param {unknown} doc
 * @param {string} field e.g. 'window.fromSecond'
 */
export const fieldOf = (doc, field) => field.split('.').reduce((o, k) => (isObject(o) ? o[k] : undefined), doc);

/**
 * @param {unknown} doc
 * @param {Fields} fields
 * @param {string} file
 */
export function checkFields(doc, fields, file) {
  if (!isObject(doc)) throw new UsageError(`${file}: must hold a JSON object (got ${got(doc)})`);
  for (const [name, type, optional] of fields) {
    const v = fieldOf(doc, name);
    if (v === undefined && optional) continue;
    const [ok, words] = TYPES[type];
    if (!ok(v)) refuse(file, name, words, v);
  }
}

/**
 * A latency a summary gives: an object with its count (and null where nothing was recorded, when `orNull`).
 * @param {unknown} st
 * @param {string} field for the error line
 * @param {string} file
 * @param {boolean} [orNull]
 */
export function checkLatency(st, field, file, orNull = false) {
  if (!isObject(st)) refuse(file, field, `an object (count, p50, p99, …)${orNull ? ' or null' : ''}`, st);
  const s = /** @type {Record<string, unknown>} */ (st);
  if (!TYPES.count[0](s.count)) refuse(file, `${field}.count`, TYPES.count[1], s.count);
}

/**
 * @param {string} file
 * @param {string} field
 * @param {string} accepted
 * @param {unknown} v
 * @returns {never}
 */
export function refuse(file, field, accepted, v) {
  if (v === undefined) throw new UsageError(`${file}: no ${field} (it must be ${accepted})`);
  throw new UsageError(`${file}: ${field} must be ${accepted} (got ${got(v)})`);
}

/** A value quoted back, short and without control characters. */
function got(v) {
  if (typeof v === 'string') return shown(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  const text = JSON.stringify(v);
  return printable(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}
