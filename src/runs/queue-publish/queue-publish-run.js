/**
 * A queue publisher's run directory (seed 000's publisher, to SNS, SQS or Pub/Sub): what
 * `rqbench produce --target …` writes, and how the reports read, merge, compare and draw it.
 */
import { rows, of, num, cellValue } from '../common/timeline-rows.js';
import { counts } from '../common/run-fields.js';
import { QUEUE_SUMMARY, checkQueueSummary, mergeQueueRuns, queueRecorded, sum } from '../common/queue-kinds.js';
import { oneOf, sumRecords } from '../common/merging.js';
import { renderPublisherMd, summarizePublisher } from './queue-publisher-summary.js';

export const QUEUE_PUBLISH_ROWS = rows({
  columns: ['intended', 'sent', 'acked', 'failed', 'unanswered', 'updates', 'bytes', 'publish_p50_ms', 'publish_p99_ms', 'lag_p99_ms'],
  needed: ['intended', 'sent', 'acked', 'failed', 'unanswered', 'updates'],
  counted: ['sent', 'acked', 'failed', 'unanswered', 'updates', 'bytes'],
  histograms: ['publish.intended', 'lag'],
  derived: (iv) => {
    const p = iv.hist.get('publish.intended');
    return { intended: iv.intended, publish_p50_ms: of(p, 'p50'), publish_p99_ms: of(p, 'p99'), lag_p99_ms: of(iv.hist.get('lag'), 'p99') };
  },
  restore: (row, counters) => ({ intended: num(row.intended), counters }),
  disturbedBy: { p99Column: 'publish_p99_ms', countColumns: ['failed', 'unanswered'], ackedColumn: 'acked' },
});

/**
 * The summary's latency fields and the .hlog file and tag each was computed from.
 * @type {import('../common/queue-kinds.js').LatencyFields}
 */
const LATENCIES = [
  ['publish.intended', 'publish', 'intended'],
  ['publish.sent', 'publish', 'sent'],
  ['lag', 'lag', 'lag'],
];

/** @type {import('../common/run-fields.js').Fields} */
const SUMMARY_FIELDS = [
  ...QUEUE_SUMMARY,
  ['rate', 'number'],
  ['batchSize', 'workers'],
  ['messages', 'object'],
  ...counts('messages', ['intended', 'sent', 'acked', 'failed', 'unanswered', 'notSent']),
  ['inWindow', 'object'],
  ...counts('inWindow', ['sent', 'acked', 'failed', 'unanswered', 'bytes']),
  ['bytes', 'count'],
  ['publish', 'object'],
];

/**
 * Publishers side by side: their schedules add up (rates, messages), their latencies merge.
 * @param {import('../common/merging.js').MergedRuns} m
 */
function mergePublishers(m) {
  const { sums, common, latency } = mergeQueueRuns(m, LATENCIES);
  // each publisher's achieved rate over its own window: concurrent publishers' rates add
  const rateOf = (s, n) => (s.window.seconds > 0 ? n / s.window.seconds : 0);
  return {
    ...common,
    kind: 'publisher',
    publisherId: sums.map((s) => s.publisherId).join(', '),
    rate: sum(sums, (s) => s.rate),
    batchSize: oneOf(sums.map((s) => s.batchSize)),
    keySize: oneOf(sums.map((s) => s.keySize)),
    valueSize: oneOf(sums.map((s) => s.valueSize)),
    messages: {
      ...sumRecords(sums.map((s) => s.messages)),
      planned: sums.every((s) => typeof s.messages.planned === 'number') ? sum(sums, (s) => s.messages.planned) : null,
    },
    inWindow: sumRecords(sums.map((s) => s.inWindow)),
    achievedMessagesPerSec: sum(sums, (s) => rateOf(s, s.inWindow.acked)),
    updatesPerSec: sum(sums, (s) => rateOf(s, s.inWindow.acked * s.batchSize)),
    bytes: sum(sums, (s) => s.bytes),
    publish: latency.publish,
    lag: latency.lag,
    lastError:
      sums
        .map((s) => s.lastError)
        .filter(Boolean)
        .at(-1) ?? null,
  };
}

/** @type {import('../run-kind.js').ReadableKind} */
export const queuePublishRun = {
  name: 'queue-publish',
  words: 'queue publisher',
  readable: true,
  // one publish call: a batch of updates sent, from its intended start
  mainOp: 'publish',
  workers: { key: 'publisher', header: 'Publisher', of: (run) => run.summary.publisherId ?? run.manifest.target?.publisherId ?? null },
  // publishers of one queue start when they are started
  startAt: null,
  serverCpu: false,
  manifestFields: [],
  summaryFields: SUMMARY_FIELDS,
  checkSummary: checkQueueSummary(SUMMARY_FIELDS, LATENCIES),
  recorded: queueRecorded(LATENCIES),
  rows: QUEUE_PUBLISH_ROWS,
  summarize: summarizePublisher,
  summaryMd: (run, s) => renderPublisherMd(s, run.description),
  merge: mergePublishers,
  compare: [
    ['Target messages/s', (s) => s.rate, 1],
    ['Achieved messages/s', (s) => s.achievedMessagesPerSec, 1],
    ['Updates/s', (s) => s.updatesPerSec, 0],
    ['Messages failed', (s) => s.messages.failed, 0],
    ['Messages unanswered', (s) => s.messages.unanswered, 0],
    ['Messages never sent', (s) => s.messages.notSent, 0],
  ],
  chart: {
    unit: 'messages/s',
    throughput: (row) => {
      const lost = (cellValue(row.failed) ?? 0) + (cellValue(row.unanswered) ?? 0);
      return [
        { series: 'published', value: cellValue(row.acked) },
        { series: 'scheduled', value: cellValue(row.intended) },
        ...(lost ? [{ series: 'lost', value: lost }] : []),
      ];
    },
  },
  panels: [
    ['Messages per second: due, sent, acknowledged', 'messages per second', ['intended', 'sent', 'acked', 'failed', 'unanswered']],
    ['Updates and bytes per second', 'per second', ['updates', 'bytes']],
    ['Latency per second: publish p50 and p99, schedule lag', 'ms', ['publish_p50_ms', 'publish_p99_ms', 'lag_p99_ms']],
  ],
  // a publisher's summary has every message's fate, which only its own end knows
  stopped: null,
};
