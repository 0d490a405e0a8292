/**
 * A queue publisher's summary.json and summary.md: the target and achieved rates, what happened to every message
 * (the whole run, drain included), and the publish latency. `rqbench report` renders publishers
 * merged from several run directories with the same code.
 */
import path from 'node:path';
import { stats } from '../../measure/histogram.js';
import { fixed, grouped, mdTable } from '../../record/format.js';
import { redactString } from '../../record/redact.js';
import { windowText } from '../common/window-text.js';

/**
 * Anything planned that is not known to be acknowledged (an interrupted run planned only what it got to).
 * @param {{ messages: { failed: number, unanswered: number, notSent: number } }} s
 */
export function lostAny(s) {
  const m = s.messages;
  return m.failed > 0 || m.unanswered > 0 || m.notSent > 0;
}

/**
 * summary.md of a publisher (and of publishers merged by `rqbench report`).
 * @param {Record<string, any>} s summary.json of a publisher
 * @param {string} description
 */
export function renderPublisherMd(s, description) {
  const p = s.publish;
  const row = (label, k) => [label, fixed(p.intended?.[k], 3), fixed(p.sent?.[k], 3), fixed(s.lag?.[k], 3)];
  const m = s.messages;
  return [
    `# ${s.name}`,
    '',
    description,
    '',
    windowText(s.window, s.durationS, s.stoppedBy),
    '',
    mdTable(
      ['Messages', 'Value'],
      [
        ['target rate, messages/s', fixed(s.rate, 1)],
        ['achieved, messages/s (acknowledged in the window)', fixed(s.achievedMessagesPerSec, 1)],
        ['updates/s', grouped(s.updatesPerSec)],
        [
          'in the window: sent / acknowledged / failed / unanswered',
          [s.inWindow.sent, s.inWindow.acked, s.inWindow.failed, s.inWindow.unanswered].map(grouped).join(' / '),
        ],
      ],
    ),
    '',
    'The whole run, drain included:',
    '',
    mdTable(
      ['Messages', 'Value'],
      [
        ['planned / sent', `${m.planned === null ? 'until stopped' : grouped(m.planned)} / ${grouped(m.sent)}`],
        ['acknowledged', grouped(m.acked)],
        ['failed (refused, or the call failed)', grouped(m.failed)],
        ["unanswered (no answer within the call's bound, or still in flight when the drain ended)", grouped(m.unanswered)],
        ['never sent (the schedule was behind when the duration ended)', grouped(m.notSent)],
        ['body bytes acknowledged', grouped(s.bytes)],
      ],
    ),
    '',
    verdict(s),
    '',
    'Publish latency, ms (from the intended send time, corrected; from the actual send; and the schedule lag):',
    '',
    mdTable(['Percentile', 'intended', 'sent', 'lag'], [row('p50', 'p50'), row('p99', 'p99'), row('p999', 'p999'), row('max', 'max')]),
    ...(s.lastError ? ['', `Last error: ${s.lastError}`] : []),
    '',
  ].join('\n');
}

/** One sentence: everything acknowledged, or what was not. */
function verdict(s) {
  const m = s.messages;
  const stopped = s.interrupted ? ` The run was interrupted (${s.interrupted}).` : '';
  if (!lostAny(s)) return `Every message sent was acknowledged.${stopped}`;
  const parts = [
    [m.failed, 'failed'],
    [m.unanswered, 'unanswered'],
    [m.notSent, 'never sent'],
  ]
    .filter(([n]) => n > 0)
    .map(([n, w]) => `${grouped(n)} ${w}`);
  return `**NOT ALL ACKNOWLEDGED: ${parts.join(', ')}.**${stopped}`;
}

/**
 * `messages` covers the whole run (nothing sent is left out of it, the drain included); the
 * rate and latency cover the window, with `inWindow` the counts of those same seconds.
 * @param {object} p
 * @param {Record<string, any>} p.a the publisher's plan
 * @param {{ counts: Record<string, number>, total: number, notSent: number, lastError: Error|null }} p.publisher what it did
 * @param {{ dir: string, recorder: { totals: Map<string, import('hdr-histogram-js').Histogram> }, inWindow: Record<string, number>, window: Record<string, number>,
 *   seconds?: number, interrupted: any, stoppedBy: any, durationS: number }} p.run the run's files and window (workloads/queue-updates/queue-run.js)
 */
export function summarizePublisher({ a, publisher, run }) {
  const t = run.recorder.totals;
  const c = publisher.counts;
  const w = run.inWindow;
  const secs = run.window.seconds;
  const st = (name) => (t.get(name) ? stats(t.get(name)) : null);
  return {
    name: path.basename(run.dir),
    kind: 'publisher',
    target: a.target,
    publisherId: a.publisherId,
    interrupted: run.interrupted,
    stoppedBy: run.stoppedBy,
    rate: a.rate,
    batchSize: a.batchSize,
    keySize: a.keySize,
    valueSize: a.valueSize,
    messages: {
      planned: Number.isFinite(publisher.total) ? publisher.total : null,
      intended: c.intended,
      sent: c.sent,
      acked: c.acked,
      failed: c.failed,
      unanswered: c.unanswered,
      notSent: publisher.notSent,
    },
    window: run.window,
    inWindow: { sent: w.sent ?? 0, acked: w.acked ?? 0, failed: w.failed ?? 0, unanswered: w.unanswered ?? 0, bytes: w.bytes ?? 0 },
    achievedMessagesPerSec: secs > 0 ? (w.acked ?? 0) / secs : null,
    updatesPerSec: secs > 0 ? ((w.acked ?? 0) * a.batchSize) / secs : null,
    bytes: c.bytes,
    publish: { intended: st('publish.intended'), sent: st('publish.sent') },
    lag: st('lag'),
    lastError: publisher.lastError ? redactString(String(publisher.lastError.message).split('\n')[0]) : null,
    durationS: run.durationS,
  };
}
