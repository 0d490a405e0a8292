/**
 * The Redis consumer's run directory (seed 002's consumer.js): what `rqbench consume` and
 * `node src/consumer.js` write, and how the reports read, merge, compare and draw it.
 */
import { rows, of, num, cellValue } from '../common/timeline-rows.js';
import { REDIS_CPU, REDIS_SUMMARY, redisCost, checkRedisSummary, redisRecorded } from '../common/redis-kinds.js';
import { summarizeConsumer } from './consumer-summary.js';
import { renderConsumerMd } from './consumer-summary-md.js';
import { mergeConsumers } from './consume-merge.js';
import { stoppedSummary, stoppedWords } from './consume-stopped.js';

export const CONSUMER_ROWS = rows({
  columns: [
    'cycles',
    'failed_cycles',
    'empty_cycles',
    'overruns',
    'cardinality_avg',
    'items',
    'fetched',
    'missing',
    'duplicates',
    'mismatched',
    'errors',
    'replica_fallbacks',
    'cycle_p50_ms',
    'cycle_p99_ms',
    'staleness_p99_ms',
  ],
  needed: ['cycles', 'overruns', 'items', 'errors'],
  counted: ['cycles', 'overruns', 'items', 'fetched', 'missing', 'duplicates', 'mismatched', 'errors'],
  histograms: ['cycle.sent', 'staleness.sent'],
  derived: (iv) => {
    const c = iv.counters;
    const cycle = iv.hist.get('cycle.sent');
    return {
      failed_cycles: c.failedCycles ?? 0,
      empty_cycles: c.emptyCycles ?? 0,
      replica_fallbacks: c.replicaFallbacks ?? 0,
      cardinality_avg: c.cycles ? Math.round(c.cardinality / c.cycles) : null,
      cycle_p50_ms: of(cycle, 'p50'),
      cycle_p99_ms: of(cycle, 'p99'),
      staleness_p99_ms: of(iv.hist.get('staleness.sent'), 'p99'),
    };
  },
  // the row keeps the average; the sum comes back to within rounding (summary.json has it exactly)
  restore: (row, counters) => ({
    intended: 0,
    counters: {
      ...counters,
      failedCycles: num(row.failed_cycles),
      emptyCycles: num(row.empty_cycles),
      replicaFallbacks: num(row.replica_fallbacks),
      cardinality: num(row.cardinality_avg) * counters.cycles,
    },
  }),
  // overruns are not a disturbance: a consumer whose cycles are longer than its period overruns every second;
  // reads moved off a replica that stopped answering are (replica_fallbacks: reads sent to a stand-in), and so
  // is a staleness far above, or a read rate far below, the run's calm level: a master frozen under a consumer
  // of its replica slows none of its cycles, but what they read is seconds old and, the window emptying, less
  disturbedBy: {
    // a cycle, or what it reads, 25 ms later than calm is a tenth of the shortest period the seed's
    // readers used (250 ms): a 4 ms cycle's p99 of 12 ms in a second of four cycles is its slowest
    // cycle, not a disturbance (a no-fault run flagged it)
    minRiseMs: 25,
    p99Column: 'cycle_p99_ms',
    countColumns: ['errors', 'failed_cycles', 'replica_fallbacks'],
    levels: [
      { column: 'staleness_p99_ms', kind: 'tail' },
      { column: 'items', kind: 'rate', cycles: 'cycles' },
    ],
  },
});

/** @type {import('../common/run-fields.js').Fields} */
const SUMMARY_FIELDS = [
  ...REDIS_SUMMARY,
  ['readers', 'workers'],
  ['windowCounts', 'object', true],
  ['perCycle', 'object', true],
  ['readerErrors', 'list', true],
];

/** @type {import('../run-kind.js').ReadableKind} */
export const consumeRun = {
  name: 'consume',
  words: 'Redis consumer',
  readable: true,
  // a consumer's cycle: the newest items listed and their values fetched
  mainOp: 'cycle',
  workers: { key: 'readers', header: 'Readers', of: (run) => run.manifest.readers ?? [] },
  startAt: '--start-at',
  serverCpu: true,
  manifestFields: [['flags.period', 'period']],
  summaryFields: SUMMARY_FIELDS,
  checkSummary: checkRedisSummary(SUMMARY_FIELDS),
  recorded: redisRecorded,
  rows: CONSUMER_ROWS,
  summarize: summarizeConsumer,
  summaryMd: renderConsumerMd,
  merge: (m) => mergeConsumers(m, CONSUMER_ROWS),
  compare: [
    ['Cycles/s', (s) => s.cycles.perSecond, 1],
    ['Items per cycle', (s) => s.perCycle.items, 0],
    ['Cycles overrun', (s) => s.cycles.overruns, 0],
    ...REDIS_CPU,
    ...redisCost('item read'),
  ],
  chart: {
    unit: 'cycles/s',
    throughput: (row, run) => [
      { series: 'cycles', value: cellValue(row.cycles) },
      { series: 'target', value: run.targetPerSec },
    ],
    targetPerSec: (manifest) => {
      const period = Number(manifest.flags.period);
      const readers = Array.isArray(manifest.readers) ? manifest.readers.length : Number(manifest.flags.readers) || 1;
      return period > 0 ? (readers * 1000) / period : null;
    },
  },
  panels: [
    [
      'Reader cycles per second, and reads sent to another node of a shard whose replica stopped answering',
      'per second',
      ['cycles', 'failed_cycles', 'empty_cycles', 'overruns', 'replica_fallbacks'],
    ],
    [
      'Items per cycle second: live items, fetched, missing',
      'per second',
      ['cardinality_avg', 'items', 'fetched', 'missing', 'duplicates', 'mismatched', 'errors'],
    ],
    ['Latency per second: cycle p50 and p99, staleness p99', 'ms', ['cycle_p50_ms', 'cycle_p99_ms', 'staleness_p99_ms']],
  ],
  // its cycles up to its last second, from its files (what only its end knew is left out, and said)
  stopped: { summarize: stoppedSummary, words: stoppedWords },
};
