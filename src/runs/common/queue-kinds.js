/**
 * What the queue publisher's and consumer's run directories share: a summary whose window may
 * end inside a second and whose latencies are named fields, each computed from one .hlog file and
 * tag; and the start of a merge of several runs into the shape each run's own summary.json has (so
 * one run reported alone reads like its own summary.md and N runs read like one): latency from the
 * .hlog histograms added up over the window, the load generators' own figures, the window.
 */
import { stats } from '../../measure/histogram.js';
import { commonSummary } from './common-summary.js';
import { checkFields, checkLatency, fieldOf, isObject } from './run-fields.js';
import { mergedName, oneOf } from './merging.js';

/** @typedef {import('./merging.js').MergedRuns} MergedRuns */
/** @typedef {Array<[string, string, string]>} LatencyFields [summary field, .hlog operation, tag] */

/**
 * A queue run's window is { fromS, toS, seconds } (toS may end inside a second); a newer one may
 * say fromSecond and toSecond as Redis runs do, and is checked as they are.
 * @type {import('./run-fields.js').Fields}
 */
export const QUEUE_SUMMARY = [
  ['window', 'object'],
  ['window.fromS', 'count'],
  ['window.toS', 'number'],
  ['window.seconds', 'seconds'],
  ['name', 'string'],
  ['interrupted', 'interrupted', true],
  ['durationS', 'seconds'],
];

/**
 * A queue summary's fields, and each latency it gives: null (nothing recorded) or an object with its count.
 * @param {import('./run-fields.js').Fields} fields the kind's
 * @param {LatencyFields} latencies the kind's
 * @returns {(s: any, file: string) => void}
 */
export const checkQueueSummary = (fields, latencies) => (s, file) => {
  const redisWindow = isObject(s) && isObject(s.window) && s.window.fromSecond !== undefined;
  const own = fields.filter(([name]) => !(redisWindow && name.startsWith('window.')));
  checkFields(s, redisWindow ? [...own, ['window.fromSecond', 'count'], ['window.toSecond', 'number']] : own, file);
  for (const [field] of latencies) {
    const st = fieldOf(s, field);
    if (st !== null && st !== undefined) checkLatency(st, field, file, true);
  }
};

/**
 * How many values the summary counted from each .hlog file and tag, after its warm-up.
 * @param {LatencyFields} latencies
 * @returns {(summary: Record<string, any>) => Record<string, Record<string, number>>} op → tag → count
 */
export const queueRecorded = (latencies) => (summary) => {
  /** @type {Record<string, Record<string, number>>} */
  const out = {};
  for (const [field, op, tag] of latencies) {
    const st = field.split('.').reduce((o, k) => o?.[k], summary);
    if (st) (out[op] ??= {})[tag] = st.count;
  }
  return out;
};

/**
 * The part of a merged queue summary every queue kind has, and the latencies its fields name.
 * @param {MergedRuns} m
 * @param {LatencyFields} latencies
 * @returns {{ sums: Array<Record<string, any>>, common: Record<string, any>, latency: Record<string, any>, one: boolean }}
 */
export function mergeQueueRuns(m, latencies) {
  const { runs, rows, warmupS, durationS } = m;
  const sums = runs.map((r) => r.summary);
  // only the files the summary has fields for (not e2e_publisher.hlog)
  const totals = m.histograms({ fromSec: warmupS, toSec: durationS, ops: [...new Set(latencies.map(([, op]) => op))] });
  // the load generators' CPU, memory and event-loop delay over the window, as Redis reports have them
  const { client } = commonSummary({ rows, totals: new Map(), warmupS, durationS });
  const one = runs.length === 1;
  const toS = Math.max(...sums.map((s) => s.window.toS ?? s.window.toSecond));
  const common = {
    name: mergedName(m),
    target: oneOf(sums.map((s) => s.target)),
    interrupted: sums.find((s) => s.interrupted)?.interrupted ?? false,
    stoppedBy: one ? (sums[0].stoppedBy ?? null) : null,
    // one run keeps its own window (toS may end inside a second); runs merged span the longest
    window: one && sums[0].window.fromS !== undefined ? sums[0].window : { fromS: warmupS, toS, seconds: Math.max(0, toS - warmupS) },
    durationS: Math.max(...sums.map((s) => s.durationS)),
    client,
  };
  /** @type {Record<string, any>} */
  const latency = {};
  for (const [field, op, tag] of latencies) {
    const h = totals.get(op === tag ? op : `${op}.${tag}`);
    setPath(latency, field, h?.totalCount ? stats(h) : null);
  }
  return { sums, common, latency, one };
}

/**
 * @template T
 * @param {T[]} items
 * @param {(x: T) => unknown} f
 */
export function sum(items, f) {
  return items.reduce((a, x) => a + (Number(f(x)) || 0), 0);
}

/** Sets o.a.b = v for field 'a.b'. */
function setPath(o, field, v) {
  const keys = field.split('.');
  const last = keys.pop();
  let at = o;
  for (const k of keys) at = at[k] ??= {};
  at[last] = v;
}
