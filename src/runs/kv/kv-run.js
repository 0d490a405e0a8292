/**
 * `rqbench kv`'s run directory: a key-value workload's seconds (timeline.csv), its latency per
 * operation (one .hlog each, and `all`), and summary.json with each node's share of the operations
 * and of the CPU; and how the reports read, merge, compare and draw it.
 */
import { rows, of, ofNonEmpty, num } from '../common/timeline-rows.js';
import { ackedVsIntended, REDIS_CPU, REDIS_SUMMARY, checkRedisSummary, redisRecorded } from '../common/redis-kinds.js';
import { summarizeKv } from './kv-summary.js';
import { renderKvMd } from './kv-summary-md.js';
import { mergeKv } from './kv-merge.js';

export const KV_ROWS = rows({
  columns: [
    'intended',
    'sent',
    'acked',
    'failed',
    'moved',
    'ask',
    'retries',
    'errors',
    'all_p50_ms',
    'all_p99_ms',
    'lag_p99_ms',
    'inflight_wait_ms',
  ],
  needed: ['intended', 'sent', 'acked', 'failed', 'errors'],
  counted: ['sent', 'acked', 'failed', 'moved', 'ask', 'retries', 'errors'],
  histograms: ['all.intended', 'lag'],
  derived: (iv) => {
    const all = iv.hist.get('all.intended');
    return {
      intended: iv.intended,
      all_p50_ms: ofNonEmpty(all, 'p50'),
      all_p99_ms: ofNonEmpty(all, 'p99'),
      lag_p99_ms: of(iv.hist.get('lag'), 'p99'),
      inflight_wait_ms: Math.round(iv.counters.capWaitMs || 0),
    };
  },
  restore: (row, counters) => ({ intended: num(row.intended), counters: { ...counters, capWaitMs: num(row.inflight_wait_ms) } }),
  disturbedBy: {
    p99Column: 'all_p99_ms',
    countColumns: ['moved', 'ask', 'retries', 'failed', 'errors'],
  },
});

/** @type {import('../common/run-fields.js').Fields} */
const SUMMARY_FIELDS = [
  ...REDIS_SUMMARY,
  ['clients', 'workers'],
  ['rate', 'object'],
  ['rate.intendedPerSec', 'number', true],
  ['rate.achievedPerSec', 'number', true],
  ['operations', 'object'],
  ['nodes', 'list'],
  ['windowCounts', 'object', true],
  ['clientErrors', 'list', true],
];

/**
 * The node that took the most operations (its share, its CPU), null for a run that sent none.
 * @param {Record<string, any>} s
 */
const busiest = (s) => (s.nodes ?? []).filter((n) => n.ops > 0).reduce((x, y) => (x === null || y.ops > x.ops ? y : x), null);

/** @type {import('../run-kind.js').ReadableKind} */
export const kvRun = {
  name: 'kv',
  words: 'kv',
  readable: true,
  // every operation of the mix together, from its intended start
  mainOp: 'all',
  workers: { key: 'clients', header: 'Clients', of: (run) => run.manifest.clients ?? [] },
  startAt: null,
  serverCpu: true,
  manifestFields: [],
  summaryFields: SUMMARY_FIELDS,
  checkSummary: checkRedisSummary(SUMMARY_FIELDS),
  recorded: redisRecorded,
  rows: KV_ROWS,
  summarize: summarizeKv,
  summaryMd: renderKvMd,
  merge: (m) => mergeKv(m, KV_ROWS),
  compare: [
    ['Target operations/s', (s) => s.rate.intendedPerSec, 0],
    ['Achieved operations/s', (s) => s.rate.achievedPerSec, 0],
    ['Busiest node, % of the operations', (s) => ((busiest(s)?.opsShare ?? null) === null ? null : busiest(s).opsShare * 100), 1],
    ['Busiest node CPU avg %', (s) => busiest(s)?.cpuAvg ?? null, 1],
    ...REDIS_CPU,
    ['master engine CPU µs/operation', (s) => s.cost?.roles?.master?.engineUs, 2],
    ['master process CPU µs/operation', (s) => s.cost?.roles?.master?.processUs, 2],
    ['replica engine CPU µs/operation', (s) => s.cost?.roles?.replica?.engineUs, 2],
    ['master bytes in/operation', (s) => s.cost?.roles?.master?.netIn, 1],
    ['master bytes out/operation', (s) => s.cost?.roles?.master?.netOut, 1],
  ],
  chart: {
    unit: 'operations/s',
    throughput: ackedVsIntended,
  },
  panels: [
    ['Operations per second: due by the schedule, sent, answered', 'operations per second', ['intended', 'sent', 'acked']],
    ['Failures, redirects and retries per second', 'per second', ['failed', 'moved', 'ask', 'retries', 'errors']],
    [
      'Latency per second: every operation, p50 and p99 from the intended start; schedule lag',
      'ms',
      ['all_p50_ms', 'all_p99_ms', 'lag_p99_ms', 'inflight_wait_ms'],
    ],
  ],
  // a killed kv run is not read back: its summary is written once, at its end
  stopped: null,
};
