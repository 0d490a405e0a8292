/**
 * A queue consumer's summary: the seed's table (Percentile | Reading off SQS | Server side
 * processing | E2E, rows p50 and p999; Pub/Sub without the reading column, as in the seed),
 * the rest of the distribution, throughput, and whether anything was lost.
 */
import { anyThin, pctCell, thinNote } from '../common/thin-percentiles.js';
import path from 'node:path';
import { stats } from '../../measure/histogram.js';
import { fixed, grouped, mdTable } from '../../record/format.js';
import { windowText } from '../common/window-text.js';
import { queueDriver } from '../../transports/queue-drivers.js';

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
 * The figures of the run's window (queue-run.js): latency from the recorder's totals, counts
 * summed over the same seconds, rates over the part of them in which messages arrived (not the
 * time spent waiting for a publisher). Whether anything was lost, malformed or left unfinished
 * covers the whole run.
 * @param {object} p
 * @param {Record<string, any>} p.a
 * @param {import('../common/window-text.js').QueueRunInfo} p.run
 * @param {{ counts: Record<string, number> }} p.metrics the consumer's QueueMetrics: its counts
 * @param {Array<{ first: number|null, last: number|null }>} p.spans each second's first and last message applied (epoch ms)
 * @param {import('./queue-progress.js').PublisherProgress[]} p.progress
 * @param {{ count: number, last: string }} p.errors
 * @param {boolean} p.complete
 */
export function summarizeConsumer({ a, run, metrics, spans, progress, errors, complete }) {
  const t = run.recorder.totals;
  const st = (name) => (t.get(name) ? stats(t.get(name)) : null);
  const all = metrics.counts;
  const c = { ...Object.fromEntries(Object.keys(all).map((k) => [k, 0])), ...run.inWindow };
  const inWindow = spans.filter((_, i) => i >= run.recorder.warmupS && i < run.recorder.windowEnd);
  const firsts = inWindow.map((x) => x.first).filter((x) => x !== null);
  const lasts = inWindow.map((x) => x.last).filter((x) => x !== null);
  // rates over the time messages were arriving, not the time spent waiting before or after
  const active = firsts.length ? Math.max(1, (Math.max(...lasts) - Math.min(...firsts)) / 1000) : null;
  const rate = (n) => (active ? n / active : null);
  const missing = progress.reduce((n, p) => n + (p.missing ?? 0), 0);
  const unfinished = progress.filter((p) => p.last === null).map((p) => p.publisher);
  const nothingLost = {
    publishers: progress.length,
    missing,
    duplicates: all.duplicates,
    malformed: all.malformed,
    malformedMessages: all.malformedMessages,
    unidentified: all.unidentified,
    complete,
    unfinished,
    ok: progress.length > 0 && missing === 0 && unfinished.length === 0 && all.malformed === 0,
  };
  return {
    name: path.basename(run.dir),
    kind: 'consumer',
    target: a.target,
    threads: a.threads,
    cache: a.cache,
    interrupted: run.interrupted,
    stoppedBy: run.stoppedBy,
    // the run did what was asked: nothing missing or malformed, and complete when --until-complete asked for it
    ok: missing === 0 && all.malformed === 0 && (!a.untilComplete || complete),
    window: run.window,
    latency: {
      read: st('read'),
      processing: st('processing'),
      e2e: st('e2e.intended'),
      e2eSent: st('e2e.sent'),
      e2eCloud: st('e2e_cloud'),
    },
    counts: c,
    countsAll: { ...all },
    messagesPerSec: rate(c.messages),
    rowsPerSec: rate(c.rows),
    bytesPerSec: rate(c.bytes),
    activeS: active,
    // when the first and last messages of the window were applied (epoch ms): a report merging
    // consumers of one queue takes its rates over the span from the first to the last of them
    active: firsts.length ? { fromMs: Math.min(...firsts), toMs: Math.max(...lasts) } : null,
    averageBatchSize: c.messages ? c.rows / c.messages : 0,
    publishers: progress,
    nothingLost,
    errors: { count: errors.count, last: errors.last || null },
    durationS: run.durationS,
  };
}

/**
 * @param {ReturnType<typeof summarizeConsumer>} s
 * @param {string} description
 */
export function renderConsumerMd(s, description) {
  const L = s.latency;
  // what the target calls its receive and its own timestamp (streaming pull has no receive to time)
  const { receive, timestamp } = queueDriver(s.target)?.consumer ?? { receive: null, timestamp: "the service's timestamp" };
  const header = ['Percentile', ...(receive ? [receive.column] : []), 'Server side processing', 'E2E'];
  const row = (label, k) => [
    label,
    ...(receive ? [seedDuration(L.read?.[k])] : []),
    seedDuration(L.processing?.[k]),
    seedDuration(L.e2e?.[k]),
  ];
  const ms = (x, k) => fixed(x?.[k], 3);
  const fromSent = s.counts.e2eFromSent ? `; ${grouped(s.counts.e2eFromSent)} message(s) without time_intended counted from time_sent` : '';
  const detail = /** @type {Array<[string, import('../../measure/histogram.js').HistogramStats|undefined]>} */ ([
    ...(receive ? [[receive.row, L.read]] : []),
    ['Server side processing (messages in hand → applied)', L.processing],
    [`E2E (time_intended → applied: from the publisher's schedule, corrected${fromSent})`, L.e2e],
    ['E2E from the actual send (time_sent → applied, as the seed measured)', L.e2eSent],
    [`E2E, cloud timestamp (${timestamp} → applied)`, L.e2eCloud],
  ]).map(([label, x]) => {
    const c = x?.count ?? 0;
    return [
      label,
      grouped(c),
      pctCell(ms(x, 'p50'), c, 0.5),
      pctCell(ms(x, 'p90'), c, 0.9),
      pctCell(ms(x, 'p99'), c, 0.99),
      pctCell(ms(x, 'p999'), c, 0.999),
      ms(x, 'max'),
    ];
  });
  const n = s.nothingLost;
  const batch = Math.round(s.averageBatchSize);
  return [
    `# ${s.name}`,
    '',
    description,
    '',
    windowText(s.window, s.durationS, s.stoppedBy),
    '',
    `### Batch size - ${grouped(batch)}, Rate - ${fixed(s.messagesPerSec, 1)} = ${grouped(s.rowsPerSec)}, Thread pool size - ${s.threads}`,
    '',
    mdTable(header, [row('p50', 'p50'), row('p999', 'p999')]),
    '',
    'In ms:',
    '',
    mdTable(['Metric', 'n', 'p50', 'p90', 'p99', 'p999', 'max'], detail),
    '',
    ...(anyThin(detail) ? [thinNote('messages'), ''] : []),
    mdTable(
      ['Throughput', 'Value'],
      [
        ['messages (receives)', `${grouped(s.counts.messages)} (${grouped(s.counts.receives)})`],
        [`rows updated per second (over the ${fixed(s.activeS, 1)} s messages arrived in)`, grouped(s.rowsPerSec)],
        ['bytes received per second', grouped(s.bytesPerSec)],
        ['errors', `${grouped(s.errors.count)}${s.errors.last ? ` (last: ${s.errors.last})` : ''}`],
      ],
    ),
    '',
    '## Nothing lost?',
    '',
    `Over the whole run: ${grouped(s.countsAll.messages)} message(s) applied.`,
    '',
    lostVerdict(n),
    '',
    ...(s.publishers.length
      ? [
          mdTable(
            ['Publisher', 'Received', 'Duplicates', 'Last seq', 'Missing'],
            s.publishers.map((p) => [
              p.publisher,
              grouped(p.received),
              grouped(p.duplicates),
              p.last === null ? 'not seen yet' : grouped(p.last),
              `${grouped(p.missing)}${p.missingSample.length ? ` (${p.missingSample.join(', ')}…)` : ''}`,
            ]),
          ),
          '',
        ]
      : []),
  ].join('\n');
}

/** Sentences: malformed, lost, or cannot tell yet — "Nothing lost" only when none of those. */
function lostVerdict(n) {
  const dup = n.duplicates
    ? ` ${grouped(n.duplicates)} duplicate deliveries were seen and applied again (at-least-once delivery).`
    : ' No duplicates.';
  const bad = n.malformed
    ? `**MALFORMED: ${grouped(n.malformed)} line(s) in ${grouped(n.malformedMessages)} message(s) were not key<TAB>value** and were not applied. `
    : '';
  const anon = n.unidentified
    ? ` ${grouped(n.unidentified)} message(s) had no publisher and seq attributes: nothing can say whether any of theirs was lost.`
    : '';
  if (!n.publishers) return `${bad}No publisher's messages were received.${anon}`;
  if (n.missing) return `${bad}**LOST: ${grouped(n.missing)} message(s) missing** across ${n.publishers} publisher(s).${dup}${anon}`;
  if (n.unfinished.length)
    return `${bad}Nothing missing so far, but the last message of ${n.unfinished.join(', ')} has not arrived: the run ended before those publishers were complete.${dup}${anon}`;
  if (n.malformed)
    return `${bad}Every message of ${n.publishers} publisher(s) arrived, from first to last, but not every update in them was applied.${dup}${anon}`;
  return `Nothing lost: every message of ${n.publishers} publisher(s) was applied, from first to last.${dup}${anon}`;
}
