/**
 * A queue consumer's summary: the seed's table (Percentile | Reading off SQS | Server side
 * processing | E2E, rows p50 and p999; Pub/Sub without the reading column, as in the seed),
 * the rest of the distribution, throughput, and whether anything was lost.
 */
import path from 'node:path';
import { stats } from '../measure/histogram.js';
import { fixed, grouped, mdTable } from '../results/format.js';

/**
 * The seed's way of writing a latency: 450us, 3ms, 1.6ms, 77ms, 1.2s.
 * @param {number} ms
 */
export function seedDuration(ms) {
  if (!Number.isFinite(ms) || ms <= 0) return '-';
  if (ms < 1) return `${Math.round(ms * 1000)}us`;
  if (ms < 10) return `${Number(ms.toFixed(1))}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  return `${Number((ms / 1000).toFixed(1))}s`;
}

/**
 * @param {object} p
 * @param {Record<string, any>} p.a
 * @param {any} p.run from queueRun
 * @param {import('./metrics.js').QueueMetrics} p.metrics
 * @param {import('./cache.js').PublisherProgress[]} p.progress
 * @param {{ count: number, last: string }} p.errors
 * @param {boolean} p.complete
 */
export function summarizeConsumer({ a, run, metrics, progress, errors, complete }) {
  const t = run.recorder.totals;
  const st = (name) => (t.get(name) ? stats(t.get(name)) : null);
  const c = metrics.counts;
  const secs = run.durationS || 1;
  // rates over the time messages were arriving, not the time spent waiting before or after
  const active = metrics.firstAt ? Math.max(1, (metrics.lastAt - metrics.firstAt) / 1000) : secs;
  const missing = progress.reduce((n, p) => n + (p.missing ?? 0), 0);
  const unfinished = progress.filter((p) => p.last === null).map((p) => p.publisher);
  return {
    name: path.basename(run.dir), kind: 'consumer', target: a.target, threads: a.threads, cache: a.cache, interrupted: run.interrupted,
    latency: { read: st('read'), processing: st('processing'), e2e: st('e2e'), e2eCloud: st('e2e_cloud') },
    counts: { ...c },
    messagesPerSec: c.messages / active, rowsPerSec: c.rows / active, bytesPerSec: c.bytes / active, activeS: active,
    averageBatchSize: c.messages ? c.rows / c.messages : 0,
    publishers: progress,
    nothingLost: {
      publishers: progress.length, missing, duplicates: c.duplicates, complete,
      unfinished, ok: progress.length > 0 && missing === 0 && unfinished.length === 0,
    },
    errors: { count: errors.count, last: errors.last || null },
    durationS: secs,
  };
}

/**
 * @param {ReturnType<typeof summarizeConsumer>} s
 * @param {string} description
 */
export function renderConsumerMd(s, description) {
  const L = s.latency;
  const sqs = s.target === 'sqs';
  const header = ['Percentile', ...(sqs ? ['Reading off SQS'] : []), 'Server side processing', 'E2E'];
  const row = (label, k) => [label, ...(sqs ? [seedDuration(L.read?.[k])] : []), seedDuration(L.processing?.[k]), seedDuration(L.e2e?.[k])];
  const ms = (x, k) => fixed(x?.[k], 3);
  const detail = [
    ...(sqs ? [['Reading off SQS (per receive that returned messages)', L.read]] : []),
    ['Server side processing (messages in hand → applied)', L.processing],
    ['E2E (time_sent → applied)', L.e2e],
    [`E2E, cloud timestamp (${sqs ? 'SNS Timestamp / SQS SentTimestamp' : 'Pub/Sub publishTime'} → applied)`, L.e2eCloud],
  ].map(([label, x]) => [label, grouped(x?.count ?? 0), ms(x, 'p50'), ms(x, 'p90'), ms(x, 'p99'), ms(x, 'p999'), ms(x, 'max')]);
  const n = s.nothingLost;
  const batch = Math.round(s.averageBatchSize);
  return [
    `# ${s.name}`, '', description, '',
    `### Batch size - ${grouped(batch)}, Rate - ${fixed(s.messagesPerSec, 1)} = ${grouped(s.rowsPerSec)}, Thread pool size - ${s.threads}`, '',
    mdTable(header, [row('p50', 'p50'), row('p999', 'p999')]), '',
    'In ms:', '',
    mdTable(['Metric', 'n', 'p50', 'p90', 'p99', 'p999', 'max'], detail), '',
    mdTable(['Throughput', 'Value'], [
      ['messages (receives)', `${grouped(s.counts.messages)} (${grouped(s.counts.receives)})`],
      ['rows updated per second (while messages arrived)', grouped(s.rowsPerSec)],
      ['bytes received per second', grouped(s.bytesPerSec)],
      ['errors', `${grouped(s.errors.count)}${s.errors.last ? ` (last: ${s.errors.last})` : ''}`],
    ]), '',
    '## Nothing lost?', '',
    lostVerdict(n), '',
    ...(s.publishers.length
      ? [mdTable(['Publisher', 'Received', 'Duplicates', 'Last seq', 'Missing'], s.publishers.map((p) => [
        p.publisher, grouped(p.received), grouped(p.duplicates), p.last === null ? 'not seen yet' : grouped(p.last),
        `${grouped(p.missing)}${p.missingSample.length ? ` (${p.missingSample.join(', ')}…)` : ''}`,
      ])), '']
      : []),
  ].join('\n');
}

/** One sentence: lost nothing, lost some, or cannot tell yet. */
function lostVerdict(n) {
  if (!n.publishers) return 'No publisher\'s messages were received.';
  const dup = n.duplicates ? ` ${grouped(n.duplicates)} duplicate deliveries were seen and applied again (at-least-once delivery).` : ' No duplicates.';
  if (n.missing) return `**LOST: ${grouped(n.missing)} message(s) missing** across ${n.publishers} publisher(s).${dup}`;
  if (n.unfinished.length) return `Nothing missing so far, but the last message of ${n.unfinished.join(', ')} has not arrived: the run ended before those publishers were complete.${dup}`;
  return `Nothing lost: every message of ${n.publishers} publisher(s) was applied, from first to last.${dup}`;
}
