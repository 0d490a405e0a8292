/**
 * What reports read from manifest.json and summary.json, checked before anything is computed
 * from them: a file of another shape is refused in one line naming the file and the field,
 * where a report would otherwise stop half-way on a TypeError or print NaN. Only the fields the
 * reports read are checked, so a run written by an older or newer rqbench still reads.
 */
import { UsageError, printable, shown } from '../usage-error.js';
import { QUEUE_HISTOGRAMS, isQueue } from './run-kind.js';

/** @typedef {import('./run-kind.js').ReadKind} ReadKind */

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
  seconds: [(v) => isNumber(v) && v >= 0, 'a number >= 0 (seconds)'],
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
/** @type {Record<ReadKind, Fields>} */
const MANIFEST_OF = { produce: [], consume: [['flags.period', 'period']], 'queue-publish': [], 'queue-consume': [] };

/** @type {Fields} */
const REDIS_SUMMARY = [
  ['window', 'object'], ['window.fromSecond', 'count'], ['window.toSecond', 'number'], ['window.seconds', 'count'], ['name', 'string'],
  ['totals', 'object'], ['errorKinds', 'object', true], ['latency', 'object'], ['interrupted', 'interrupted', true], ['mode', 'string', true],
];
/**
 * A queue run's window is { fromS, toS, seconds } (toS may end inside a second); a newer one may
 * say fromSecond and toSecond as Redis runs do, and is checked as they are.
 * @type {Fields}
 */
const QUEUE_SUMMARY = [
  ['window', 'object'], ['window.fromS', 'count'], ['window.toS', 'number'], ['window.seconds', 'seconds'], ['name', 'string'],
  ['interrupted', 'interrupted', true], ['durationS', 'seconds'],
];
const counts = (parent, names) => names.map((n) => /** @type {[string, keyof TYPES]} */ ([`${parent}.${n}`, 'count']));
/** @type {Record<ReadKind, Fields>} */
const SUMMARY_OF = {
  produce: [
    ...REDIS_SUMMARY, ['writers', 'workers'], ['target', 'object'], ['target.itemsPerSec', 'number'],
    ['achieved', 'object'], ['achieved.itemsPerSec', 'number'], ['achieved.items', 'count', true], ['writerErrors', 'list', true],
  ],
  consume: [...REDIS_SUMMARY, ['readers', 'workers'], ['windowCounts', 'object', true], ['perCycle', 'object', true], ['readerErrors', 'list', true]],
  'queue-publish': [
    ...QUEUE_SUMMARY, ['rate', 'number'], ['batchSize', 'workers'],
    ['messages', 'object'], ...counts('messages', ['intended', 'sent', 'acked', 'failed', 'unanswered', 'notSent']),
    ['inWindow', 'object'], ...counts('inWindow', ['sent', 'acked', 'failed', 'unanswered', 'bytes']), ['bytes', 'count'], ['publish', 'object'],
  ],
  'queue-consume': [
    ...QUEUE_SUMMARY, ['target', 'string'], ['threads', 'workers'], ['latency', 'object'],
    ['counts', 'object'], ...counts('counts', ['messages', 'receives', 'rows', 'bytes', 'duplicates', 'malformed']),
    ['countsAll', 'object'], ...counts('countsAll', ['messages', 'duplicates', 'malformed']),
    ['publishers', 'list'], ['nothingLost', 'object'], ['errors', 'object'], ['errors.count', 'count'],
  ],
};

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
 * @param {ReadKind} kind already told from it
 * @param {string} file for the error line
 */
export function checkManifest(manifest, kind, file) {
  checkFields(manifest, [...MANIFEST, ...MANIFEST_OF[kind]], file);
}

/**
 * @param {unknown} summary parsed summary.json
 * @param {ReadKind} kind told from manifest.json
 * @param {string} file for the error line
 */
export function checkSummary(summary, kind, file) {
  const s = /** @type {Record<string, any>} */ (summary);
  // what a run that failed or was killed twice leaves instead of a summary
  if (isObject(s) && s.incomplete === true) {
    const why = typeof s.failed === 'string' ? `: it failed: ${s.failed}` : typeof s.note === 'string' ? `: ${s.note}` : '';
    throw new UsageError(`${file}: the run did not finish${why.slice(0, 300)}`);
  }
  if (isQueue(kind)) {
    checkQueueSummary(s, kind, file);
    return;
  }
  checkFields(s, SUMMARY_OF[kind], file);
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
 * A queue summary's fields, and each latency it gives: null (nothing recorded) or an object with
 * its count.
 * @param {Record<string, any>} s
 * @param {'queue-publish'|'queue-consume'} kind
 * @param {string} file
 */
function checkQueueSummary(s, kind, file) {
  const redisWindow = isObject(s) && isObject(s.window) && s.window.fromSecond !== undefined;
  const fields = SUMMARY_OF[kind].filter(([name]) => !(redisWindow && name.startsWith('window.')));
  checkFields(s, redisWindow ? [...fields, ['window.fromSecond', 'count'], ['window.toSecond', 'number']] : fields, file);
  for (const [field] of QUEUE_HISTOGRAMS[kind]) {
    const st = field.split('.').reduce((o, k) => (isObject(o) ? o[k] : undefined), s);
    if (st === null || st === undefined) continue;
    if (!isObject(st)) refuse(file, field, 'an object (count, p50, p99, …) or null', st);
    if (!TYPES.count[0](st.count)) refuse(file, `${field}.count`, TYPES.count[1], st.count);
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
