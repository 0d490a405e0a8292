/**
 * What the Redis producer's and consumer's run directories share: the summary's fields and
 * window, its latencies by operation and tag, the server's CPU by role in a comparison, and the
 * merge of several runs' summaries (the kind's own figures are made by its own summarize, from the
 * merged seconds and histograms, as each run's were).
 */
import { checkFields, checkLatency, isObject, refuse } from './run-fields.js';
import { episodes } from './disturbance.js';
import { sumRecords } from './merging.js';
import { cellValue } from './timeline-rows.js';

/** @typedef {import('./merging.js').MergedRuns} MergedRuns */

/** @type {import('./run-fields.js').Fields} */
export const REDIS_SUMMARY = [
  ['window', 'object'],
  ['window.fromSecond', 'count'],
  ['window.toSecond', 'number'],
  ['window.seconds', 'count'],
  ['name', 'string'],
  ['totals', 'object'],
  ['errorKinds', 'object', true],
  ['latency', 'object'],
  ['interrupted', 'interrupted', true],
  ['mode', 'string', true],
];

/**
 * A Redis summary: its fields, a window that does not end before it starts, and every latency an
 * object of tags, each with its count.
 * @param {import('./run-fields.js').Fields} fields the kind's
 * @returns {(s: any, file: string) => void}
 */
export const checkRedisSummary = (fields) => (s, file) => {
  checkFields(s, fields, file);
  if (s.window.toSecond < s.window.fromSecond)
    refuse(file, 'window.toSecond', `a number >= window.fromSecond (${s.window.fromSecond})`, s.window.toSecond);
  for (const [op, byTag] of Object.entries(s.latency)) {
    if (!isObject(byTag)) refuse(file, `latency.${op}`, 'an object of tags', byTag);
    for (const [tag, st] of Object.entries(byTag)) checkLatency(st, `latency.${op}.${tag}`, file);
  }
};

/**
 * How many values the summary counted from each .hlog file and tag, after its warm-up.
 * @param {Record<string, any>} summary
 * @returns {Record<string, Record<string, number>>} op → tag → count
 */
export function redisRecorded(summary) {
  /** @type {Record<string, Record<string, number>>} */
  const out = {};
  for (const [op, byTag] of Object.entries(summary.latency))
    for (const [tag, st] of Object.entries(byTag)) (out[op] ??= {})[tag] = st.count;
  return out;
}

/**
 * The role figures compare shows for a Redis run (main thread where reported), then the process's beside.
 * @type {import('../run-kind.js').Metrics}
 */
export const REDIS_CPU = [
  ['master CPU avg %', (s) => s.cpu.master, 1],
  ['replica CPU avg %', (s) => s.cpu.replica, 1],
  ['master process CPU avg %', (s) => s.cpu.process?.master, 1],
  ['replica process CPU avg %', (s) => s.cpu.process?.replica, 1],
];

/**
 * A writer's second on the throughput chart: acknowledged beside intended, and failed when any
 * (the producer's items, kv's operations).
 * @param {Record<string, number|string|null>} row a timeline row
 */
export function ackedVsIntended(row) {
  const failed = cellValue(row.failed);
  return [
    { series: 'acked', value: cellValue(row.acked) },
    { series: 'intended', value: cellValue(row.intended) },
    ...(failed ? [{ series: 'failed', value: failed }] : []),
  ];
}

/**
 * Cost per item (cost-summary.js) compare shows for a Redis run, per role: what carries over to a
 * node of another size. Memory only where the run wrote (a consumer's has none: left out).
 * @param {'item written'|'item read'} per
 * @returns {import('../run-kind.js').Metrics}
 */
export function redisCost(per) {
  const role = (r, k) => (s) => s.cost?.roles?.[r]?.[k];
  const unit = per === 'item written' ? 'item' : 'item read';
  return [
    [`master engine CPU µs/${unit}`, role('master', 'engineUs'), 2],
    [`master process CPU µs/${unit}`, role('master', 'processUs'), 2],
    [`replica engine CPU µs/${unit}`, role('replica', 'engineUs'), 2],
    [`master bytes in/${unit}`, role('master', 'netIn'), 1],
    [`master bytes out/${unit}`, role('master', 'netOut'), 1],
    [`master replication out/${unit}`, role('master', 'replOut'), 1],
    ...(per === 'item written'
      ? /** @type {import('../run-kind.js').Metrics} */ ([
          ['master memory bytes/live item', role('master', 'memory'), 0],
          ['replica memory bytes/live item', role('replica', 'memory'), 0],
        ])
      : []),
  ];
}

/**
 * What a Redis kind's merge starts from: the runs' summaries, and what its summarize takes from
 * the merged seconds (the window's histograms, the counts of every second).
 * @param {MergedRuns} m
 * @param {import('./merging.js').MergedSecond[]} rows the merged seconds the kind's figures come from
 */
export function redisMergeInput(m, rows) {
  const { runs, warmupS, durationS } = m;
  const sums = runs.map((r) => r.summary);
  // the rows' window: histograms of a second past it (a Ctrl-C, the drain) are left out as the rows are
  const totals = m.histograms({ fromSec: warmupS, toSec: durationS });
  const common = {
    rows,
    totals,
    warmupS,
    durationS,
    totalCounts: sumRecords(sums.map((s) => s.totals)),
    errorKinds: sumRecords(sums.map((s) => s.errorKinds)),
  };
  return { sums, common, interrupted: sums.some((s) => s.interrupted) };
}

/** What one run read back keeps from its own summary: what only the run itself could know. */
const OWN = [
  'cost',
  'disturbances',
  'actions',
  'disturbance',
  'verify',
  'outcome',
  'unreachable',
  'warnings',
  'missingWhy',
  'noise',
  'stopped',
];

/**
 * The end of a Redis kind's merge. One run read back keeps what only the run itself could know
 * (acknowledgements by the second they were due in, the read-back, how it ended); runs merged get
 * their disturbed episodes from the merged seconds, the worst exit code, each host's noise.
 * @param {MergedRuns} m
 * @param {Record<string, any>} summary the kind's summarize over the merged seconds
 * @param {object} p
 * @param {import('./timeline-rows.js').TimelineRows} p.rows the kind's timeline rows
 * @param {string[]} [p.own] more fields one run keeps of its own
 * @param {(runs: import('./merging.js').RunDir[]) => Record<string, any>|undefined} [p.verify] the runs' read-backs added up
 * @returns {Record<string, any>}
 */
export function finishRedisMerge(m, summary, { rows, own = [], verify }) {
  const { runs } = m;
  const sums = runs.map((r) => r.summary);
  if (runs.length === 1) {
    for (const k of [...OWN, ...own]) if (sums[0][k] !== undefined) summary[k] = sums[0][k];
    // a stopped run has no episodes of its own: made from its seconds, as for merged runs
    if (runs[0].stopped) summary.disturbances = mergedEpisodes(m, rows);
    return summary;
  }
  summary.disturbances = mergedEpisodes(m, rows);
  const problems = sums.flatMap((s, i) => (s.outcome?.problems ?? []).map((p) => `${runs[i].dir}: ${p}`));
  const codes = sums.map((s) => s.outcome?.exitCode ?? 0);
  summary.outcome = { exitCode: codes.find((c) => c > 1) ?? Math.max(...codes), problems };
  // each host's noise is its own: kept run by run, and noisy when any of them was
  const noise = runs.filter((r) => r.summary.noise).map((r) => ({ dir: r.dir, ...r.summary.noise }));
  if (noise.length) summary.noise = { noisy: noise.some((n) => n.noisy), runs: noise };
  const read = verify?.(runs);
  if (read) summary.verify = read;
  return summary;
}

/**
 * The disturbed episodes of merged runs, by the same rules as a run's own, from the merged
 * seconds (each second's p99 from the runs' histograms of it added up). Acknowledgements by the
 * second they were due in are each run's own: here a second with nothing acknowledged counts.
 * @param {MergedRuns} m
 * @param {import('./timeline-rows.js').TimelineRows} spec
 */
function mergedEpisodes(m, spec) {
  const histogramsAt = m.perSecond(spec.histograms);
  const rows = m.rows.map((r) => ({
    ...r,
    row: { ...spec.rowOf({ intended: r.intended, counters: r.counters, hist: histogramsAt(r.index) }), events: r.events },
  }));
  return episodes({ rows, t0: 0, ...spec.disturbedBy });
}

/**
 * Every run's dropped connections, by the second of its own t0 (runs merged share a --start-at).
 * @param {Array<Record<string, any>>} sums the runs' summaries
 * @param {'writer'|'reader'|'client'} who
 */
export function dropsOf(sums, who) {
  return sums.flatMap((s) =>
    (s.connectionDrops ?? []).map((d) => ({ worker: d[who], node: d.node, atS: d.atS, reconnectMs: d.reconnectMs })),
  );
}

/**
 * @template T
 * @param {T[]} items
 * @param {(x: T) => number} f
 */
export function sumOf(items, f) {
  return items.reduce((a, x) => a + f(x), 0);
}
