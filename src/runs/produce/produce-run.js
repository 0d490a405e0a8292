/**
 * The Redis producer's run directory (seed 002's producer.js): what `rqbench produce` and
 * `node src/producer.js` write, and how the reports read, merge, compare and draw it.
 */
import { rows, of, ofNonEmpty, num } from '../common/timeline-rows.js';
import { ackedVsIntended, REDIS_CPU, REDIS_SUMMARY, redisCost, checkRedisSummary, redisRecorded } from '../common/redis-kinds.js';
import { summarize } from './produce-summary.js';
import { renderSummaryMd } from './produce-summary-md.js';
import { mergeProducers } from './produce-merge.js';
import { stoppedSummary, stoppedWords } from './produce-stopped.js';

export const PRODUCER_ROWS = rows({
  columns: [
    'intended',
    'sent',
    'acked',
    'failed',
    'moved',
    'ask',
    'retries',
    'tryagain',
    'clusterdown',
    'conn_retries',
    'errors',
    'batch_p50_ms',
    'batch_p99_ms',
    'lag_p99_ms',
    'inflight_wait_ms',
  ],
  needed: ['intended', 'sent', 'acked', 'failed', 'errors'],
  counted: ['sent', 'acked', 'failed', 'moved', 'ask', 'retries', 'tryagain', 'clusterdown', 'errors'],
  histograms: ['batch.intended', 'lag'],
  derived: (iv) => {
    const b = iv.hist.get('batch.intended');
    return {
      intended: iv.intended,
      batch_p50_ms: ofNonEmpty(b, 'p50'),
      batch_p99_ms: ofNonEmpty(b, 'p99'),
      lag_p99_ms: of(iv.hist.get('lag'), 'p99'),
      inflight_wait_ms: Math.round(iv.counters.capWaitMs || 0),
      conn_retries: iv.counters.connRetries,
    };
  },
  restore: (row, counters) => ({
    intended: num(row.intended),
    counters: { ...counters, connRetries: num(row.conn_retries), capWaitMs: num(row.inflight_wait_ms) },
  }),
  disturbedBy: {
    p99Column: 'batch_p99_ms',
    countColumns: ['moved', 'ask', 'retries', 'tryagain', 'clusterdown', 'conn_retries', 'failed', 'errors'],
    ackedColumn: 'acked',
  },
});

/** @type {import('../common/run-fields.js').Fields} */
const SUMMARY_FIELDS = [
  ...REDIS_SUMMARY,
  ['writers', 'workers'],
  ['target', 'object'],
  ['target.itemsPerSec', 'number'],
  ['achieved', 'object'],
  ['achieved.itemsPerSec', 'number'],
  ['achieved.items', 'count', true],
  ['writerErrors', 'list', true],
];

/** @type {import('../run-kind.js').ReadableKind} */
export const produceRun = {
  name: 'produce',
  words: 'Redis producer',
  readable: true,
  // a producer's chunk: the writes of one send, from its intended start
  mainOp: 'batch',
  workers: { key: 'writers', header: 'Writers', of: (run) => run.manifest.writers ?? [] },
  startAt: '--start-at',
  serverCpu: true,
  // an experiment step's trials hold the producer and its consumer: the producer is compared
  compareDefault: true,
  manifestFields: [],
  summaryFields: SUMMARY_FIELDS,
  checkSummary: checkRedisSummary(SUMMARY_FIELDS),
  recorded: redisRecorded,
  rows: PRODUCER_ROWS,
  summarize,
  summaryMd: renderSummaryMd,
  merge: (m) => mergeProducers(m, PRODUCER_ROWS),
  compare: [
    ['Target items/s', (s) => s.target.itemsPerSec, 0],
    ['Achieved items/s', (s) => s.achieved.itemsPerSec, 0],
    ['Achieved items/s per writer', (s) => s.achieved.itemsPerWriterPerSec, 0],
    ...REDIS_CPU,
    ...redisCost('item written'),
  ],
  chart: {
    unit: 'items/s',
    throughput: ackedVsIntended,
  },
  panels: [
    ['Items per second: due by the schedule, sent, acknowledged', 'items per second', ['intended', 'sent', 'acked']],
    [
      'Failures, redirects and retries per second',
      'per second',
      ['failed', 'moved', 'ask', 'retries', 'tryagain', 'clusterdown', 'conn_retries', 'errors'],
    ],
    [
      'Latency per second: batch p50 and p99 from the intended start, schedule lag',
      'ms',
      ['batch_p50_ms', 'batch_p99_ms', 'lag_p99_ms', 'inflight_wait_ms'],
    ],
  ],
  // its files are appended every second: a killed producer's are read up to its last second
  stopped: { summarize: stoppedSummary, words: stoppedWords },
  mergeNotes: (runs, sharedT0) => {
    const workers = runs.flatMap((r) => r.manifest.writers ?? []);
    const twice = [...new Set(workers.filter((w, i) => workers.indexOf(w) !== i))];
    return twice.length && sharedT0
      ? [`writer ${twice.join(', ')} is in more than one run directory: its items are counted once per directory`]
      : [];
  },
};
