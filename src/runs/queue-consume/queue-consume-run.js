/**
 * A queue consumer's run directory (seed 000's consumer, from SQS or Pub/Sub): what `rqbench
 * consume --target …` writes, and how the reports read, merge, compare and draw it.
 */
import { rows, of, cellValue } from '../common/timeline-rows.js';
import { counts } from '../common/run-fields.js';
import { QUEUE_SUMMARY, checkQueueSummary, mergeQueueRuns, queueRecorded, sum } from '../common/queue-kinds.js';
import { oneOf, sumRecords } from '../common/merging.js';
import { renderConsumerMd, summarizeConsumer } from './queue-consumer-summary.js';
import { mergePublishers, nothingLostOf } from './queue-progress.js';

export const QUEUE_CONSUME_ROWS = rows({
  columns: [
    'messages',
    'receives',
    'rows',
    'bytes',
    'duplicates',
    'malformed',
    'e2e_p50_ms',
    'e2e_p99_ms',
    'e2e_sent_p50_ms',
    'e2e_sent_p99_ms',
  ],
  needed: ['messages', 'receives', 'rows', 'bytes', 'duplicates', 'malformed'],
  counted: ['messages', 'receives', 'rows', 'bytes', 'duplicates', 'malformed'],
  histograms: ['e2e.intended', 'e2e.sent'],
  derived: (iv) => {
    const e2e = iv.hist.get('e2e.intended');
    const sent = iv.hist.get('e2e.sent');
    return { e2e_p50_ms: of(e2e, 'p50'), e2e_p99_ms: of(e2e, 'p99'), e2e_sent_p50_ms: of(sent, 'p50'), e2e_sent_p99_ms: of(sent, 'p99') };
  },
  restore: (row, counters) => ({ intended: 0, counters }),
  disturbedBy: { p99Column: 'e2e_p99_ms', countColumns: ['malformed'] },
});

/**
 * The summary's latency fields (the seed's three metrics, E2E from the send and from the cloud's
 * timestamp beside) and the .hlog file and tag each was computed from.
 * @type {import('../common/queue-kinds.js').LatencyFields}
 */
const LATENCIES = [
  ['latency.read', 'read', 'read'],
  ['latency.processing', 'processing', 'processing'],
  ['latency.e2e', 'e2e', 'intended'],
  ['latency.e2eSent', 'e2e', 'sent'],
  ['latency.e2eCloud', 'e2e_cloud', 'e2e_cloud'],
];

/**
 * A queue consumer's E2E from the intended send kept apart per publisher: `<this>.hlog`, one tag
 * per publisher id (queue-metrics.js), in the run directory only: no summary field counts it.
 */
export const E2E_BY_PUBLISHER = 'e2e_publisher';

/**
 * A queue consumer's percentile lines: the seed's three metrics, from the intended send for E2E.
 * @type {import('../run-kind.js').Curve[]}
 */
export const QUEUE_CONSUMER_CURVES = [
  ['Reading off the queue', 'read', 'read', [6, 3]],
  ['Server side processing', 'processing', 'processing', [2, 2]],
  ['E2E', 'e2e', 'intended', [1, 0]],
];

/** @type {import('../common/run-fields.js').Fields} */
const SUMMARY_FIELDS = [
  ...QUEUE_SUMMARY,
  ['target', 'string'],
  ['threads', 'workers'],
  ['latency', 'object'],
  ['counts', 'object'],
  ...counts('counts', ['messages', 'receives', 'rows', 'bytes', 'duplicates', 'malformed']),
  ['countsAll', 'object'],
  ...counts('countsAll', ['messages', 'duplicates', 'malformed']),
  ['publishers', 'list'],
  ['nothingLost', 'object'],
  ['errors', 'object'],
  ['errors.count', 'count'],
];

/**
 * Consumers of one queue: what each applied adds up; the rates are over the span from the first
 * message any of them applied to the last (each run's own span, when a run has no `active`).
 * @param {import('../common/merging.js').MergedRuns} m
 */
function mergeConsumers(m) {
  const { sums, common, latency, one } = mergeQueueRuns(m, LATENCIES);
  const counts = sumRecords(sums.map((s) => s.counts));
  const countsAll = sumRecords(sums.map((s) => s.countsAll));
  const spans = sums.map((s) => s.active).filter(Boolean);
  let activeS = one ? sums[0].activeS : null;
  if (!one && spans.length) activeS = Math.max(1, (Math.max(...spans.map((x) => x.toMs)) - Math.min(...spans.map((x) => x.fromMs))) / 1000);
  // runs from before `active` was written: the longest of their spans (consumers of one queue run side by side)
  if (!one && spans.length < sums.filter((s) => s.activeS).length) activeS = Math.max(activeS ?? 0, ...sums.map((s) => s.activeS ?? 0));
  const rate = (n) => (activeS ? n / activeS : null);
  const merged = one
    ? { publishers: sums[0].publishers, nothingLost: sums[0].nothingLost, ok: sums[0].ok }
    : mergedProgress(sums, countsAll);
  return {
    ...common,
    kind: 'consumer',
    threads: sum(sums, (s) => s.threads),
    cache: oneOf(sums.map((s) => s.cache)),
    ok: merged.ok,
    latency: latency.latency,
    counts,
    countsAll,
    messagesPerSec: rate(counts.messages),
    rowsPerSec: rate(counts.rows),
    bytesPerSec: rate(counts.bytes),
    activeS,
    active: spans.length ? { fromMs: Math.min(...spans.map((x) => x.fromMs)), toMs: Math.max(...spans.map((x) => x.toMs)) } : null,
    averageBatchSize: counts.messages ? counts.rows / counts.messages : 0,
    publishers: merged.publishers,
    nothingLost: merged.nothingLost,
    ...(merged.progressNote && { progressNote: merged.progressNote }),
    errors: {
      count: sum(sums, (s) => s.errors.count),
      last:
        sums
          .map((s) => s.errors.last)
          .filter(Boolean)
          .at(-1) ?? null,
    },
  };
}

/**
 * Every publisher's sequence numbers over the consumers, and whether anything was lost.
 * @param {Array<Record<string, any>>} sums
 * @param {Record<string, number>} countsAll
 */
function mergedProgress(sums, countsAll) {
  const { publishers: list, note } = mergePublishers(sums);
  const nothingLost = nothingLostOf(list, countsAll);
  return { publishers: list, nothingLost, ok: nothingLost.ok, progressNote: note };
}

/** @type {import('../run-kind.js').ReadableKind} */
export const queueConsumeRun = {
  name: 'queue-consume',
  words: 'queue consumer',
  readable: true,
  // E2E: from the publisher's schedule to the updates applied
  mainOp: 'e2e',
  workers: { key: 'threads', header: 'Threads', of: (run) => run.summary.threads ?? null },
  // consumers of one queue start when they are started
  startAt: null,
  serverCpu: false,
  manifestFields: [],
  summaryFields: SUMMARY_FIELDS,
  checkSummary: checkQueueSummary(SUMMARY_FIELDS, LATENCIES),
  recorded: queueRecorded(LATENCIES),
  rows: QUEUE_CONSUME_ROWS,
  summarize: summarizeConsumer,
  summaryMd: (run, s) => renderConsumerMd(/** @type {any} */ (s), run.description),
  merge: mergeConsumers,
  compare: [
    ['Messages/s', (s) => s.messagesPerSec, 1],
    ['Rows updated/s', (s) => s.rowsPerSec, 0],
    ['Messages applied', (s) => s.counts.messages, 0],
    ['Duplicates', (s) => s.counts.duplicates, 0],
    ['Missing', (s) => s.nothingLost.missing, 0],
    // the seed's table: reading off the queue and server-side processing (E2E is the main operation below)
    ['Reading off the queue p50 ms', (s) => s.latency.read?.p50, 3],
    ['Reading off the queue p99.9 ms', (s) => s.latency.read?.p999, 3],
    ['Server side processing p50 ms', (s) => s.latency.processing?.p50, 3],
    ['Server side processing p99.9 ms', (s) => s.latency.processing?.p999, 3],
  ],
  chart: {
    unit: 'messages/s',
    // it has no target of its own: it takes what the publishers send
    throughput: (row) => [{ series: 'applied', value: cellValue(row.messages) }],
    throughputTitle: 'Throughput: messages applied per second',
    curves: QUEUE_CONSUMER_CURVES,
    // reading off the queue only where a receive was timed (not Pub/Sub)
    seedMetrics: (ops) => (ops.has('read') ? 'reading off the queue, processing, E2E' : 'processing, E2E'),
    byPublisher: E2E_BY_PUBLISHER,
  },
  panels: [
    ['Messages per second: applied, receives, rows', 'per second', ['messages', 'receives', 'rows', 'duplicates', 'malformed']],
    ['Bytes per second', 'bytes per second', ['bytes']],
    [
      'E2E latency per second: from the intended send and from the send',
      'ms',
      ['e2e_p50_ms', 'e2e_p99_ms', 'e2e_sent_p50_ms', 'e2e_sent_p99_ms'],
    ],
  ],
  // a consumer's summary has whether anything was lost, which only its own end knows
  stopped: null,
};
