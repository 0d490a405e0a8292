/**
 * `rqbench produce --target sns|sqs|pubsub`: the seed's realtime-updates publisher from flags
 * to files — checks (a batch that cannot fit the service's message limit is bad input), the
 * target (created with --create), the open-loop Publisher, a run directory and summary.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { checkPublisher } from '../options/queue.js';
import { UsageError } from '../options/usage-error.js';
import { stats } from '../measure/histogram.js';
import { writeJson, writeText } from '../results/run-dir.js';
import { fixed, grouped, mdTable } from '../results/format.js';
import { redactString } from '../results/redact.js';
import { BodyMaker, largestAttributes } from './message.js';
import { FolderBodies } from './delta-folder.js';
import { Publisher } from './publisher.js';
import { openQueueTarget, targetFacts } from './open-target.js';
import { countedBytes, limitOf } from './limits.js';
import { queueRun } from './queue-run.js';

const COLUMNS = ['intended', 'sent', 'acked', 'failed', 'updates', 'bytes', 'publish_p50_ms', 'publish_p99_ms'];

/**
 * @param {Record<string, any>} a parsed flags
 * @returns {Promise<{ dir: string, summary: object, md: string, exitCode: number }>}
 */
export async function runPublisher(a) {
  checkPublisher(a);
  a.publisherId ??= randomBytes(4).toString('hex');
  const maker = a.fromFolder ? new FolderBodies(a.fromFolder) : new BodyMaker(a);
  // from a folder, the files say how many updates a message carries
  if (a.fromFolder) a.batchSize = maker.batchSize;
  checkFits(a, maker);
  const target = await openQueueTarget(a, 'publish');
  const publisher = new Publisher({
    target, maker, publisherId: a.publisherId, rate: a.rate, durationMs: a.duration * 1000, concurrency: a.concurrency,
  });
  let prev = { ...publisher.counts };
  const name = a.name || `produce-${a.target}-b${a.batchSize}-r${a.rate}`;
  let run;
  try {
    run = await queueRun({
      a, command: 'produce', name, description: describe(a), facts: { ...targetFacts(a), publisherId: a.publisherId },
      columns: COLUMNS,
      rowOf: (iv) => {
        const h = iv.hist.get('publish.intended');
        const s = h ? stats(h) : null;
        return { ...iv.counters, updates: (iv.counters.acked || 0) * a.batchSize, publish_p50_ms: s?.p50, publish_p99_ms: s?.p99 };
      },
      work: async (signal) => {
        signal.addEventListener('abort', () => publisher.stop(), { once: true });
        await publisher.run(performance.now() + 50);
      },
      take: () => {
        const now = { ...publisher.counts };
        const counters = Object.fromEntries(['sent', 'acked', 'failed', 'bytes'].map((k) => [k, now[k] - prev[k]]));
        const intended = now.intended - prev.intended;
        prev = now;
        const hist = new Map();
        for (const [op, h] of publisher.hist.take()) { hist.set(`${op}.intended`, h.intended); hist.set(`${op}.sent`, h.sent); }
        return { hist, counters, intended };
      },
      status: (iv) => `${grouped(iv.counters.acked || 0)}/${fixed(a.rate, 0)} msg/s  ${grouped((iv.counters.acked || 0) * a.batchSize)} updates/s  failed ${publisher.counts.failed}`,
    });
  } finally {
    await target.close();
  }
  const summary = summarize(a, publisher, run);
  const md = renderMd(a, summary, run.manifest.description);
  writeJson(path.join(run.dir, 'summary.json'), summary);
  writeText(path.join(run.dir, 'summary.md'), md);
  return { dir: run.dir, summary, md, exitCode: publisher.counts.failed ? 1 : 0 };
}

/** A message the service would refuse is bad input, found before anything is sent. */
function checkFits(a, maker) {
  const limit = limitOf(a.target);
  const attrs = largestAttributes(a.publisherId);
  const bytes = countedBytes(a.target, maker.largest ? maker.largest() : maker.body(1), attrs);
  if (bytes <= limit) return;
  if (a.fromFolder) throw new UsageError(`--from-folder holds a ${grouped(bytes)}-byte message; ${a.target} allows ${grouped(limit)} bytes`);
  const perUpdate = a.keySize + a.valueSize + 2;
  const most = Math.floor((limit - countedBytes(a.target, '', attrs)) / perUpdate);
  throw new UsageError(`--batch-size ${a.batchSize} makes ${grouped(bytes)}-byte messages; ${a.target} allows ${grouped(limit)} bytes (at most ${grouped(most)} updates of ${a.keySize}+${a.valueSize} characters per message)`);
}

function describe(a) {
  const route = a.target === 'sns' ? `SNS→SQS (raw delivery ${a.raw ? 'on' : 'off'})` : a.target === 'sqs' ? 'SQS' : 'Pub/Sub';
  const where = a.endpoint ? `at ${a.endpoint}` : 'in the cloud';
  const from = a.fromFolder ? ` from the files of ${a.fromFolder}` : '';
  return `Publisher ${a.publisherId}: ${a.rate} messages/s x ${a.batchSize} updates${from} (keys ${a.keySize}, values ${a.valueSize} characters) to ${route} ${where}, ${a.duration ? `${a.duration} s` : 'until Ctrl-C'}, ${a.concurrency} in flight at most.`;
}

function summarize(a, publisher, run) {
  const t = run.recorder.totals;
  const c = publisher.counts;
  const secs = run.durationS || 1;
  return {
    name: path.basename(run.dir), kind: 'publisher', target: a.target, publisherId: a.publisherId, interrupted: run.interrupted,
    rate: a.rate, batchSize: a.batchSize, keySize: a.keySize, valueSize: a.valueSize,
    messages: { intended: c.intended, sent: c.sent, acked: c.acked, failed: c.failed, planned: Number.isFinite(publisher.total) ? publisher.total : null },
    achievedMessagesPerSec: c.acked / secs, updatesPerSec: (c.acked * a.batchSize) / secs, bytes: c.bytes,
    publish: { intended: t.get('publish.intended') ? stats(t.get('publish.intended')) : null, sent: t.get('publish.sent') ? stats(t.get('publish.sent')) : null },
    lastError: publisher.lastError ? redactString(String(publisher.lastError.message).split('\n')[0]) : null,
    durationS: secs,
  };
}

function renderMd(a, s, description) {
  const p = s.publish;
  const row = (label, k) => [label, fixed(p.intended?.[k], 3), fixed(p.sent?.[k], 3)];
  return [
    `# ${s.name}`, '', description, '',
    mdTable(['Messages', 'Value'], [
      ['target rate, messages/s', fixed(a.rate, 1)],
      ['achieved, messages/s', fixed(s.achievedMessagesPerSec, 1)],
      ['updates/s', grouped(s.updatesPerSec)],
      ['sent / acknowledged / failed', `${grouped(s.messages.sent)} / ${grouped(s.messages.acked)} / ${grouped(s.messages.failed)}`],
      ['body bytes acknowledged', grouped(s.bytes)],
    ]), '',
    'Publish latency, ms (from the intended send time, corrected; and from the actual send):', '',
    mdTable(['Percentile', 'intended', 'sent'], [row('p50', 'p50'), row('p99', 'p99'), row('p999', 'p999'), row('max', 'max')]),
    ...(s.lastError ? ['', `Last error: ${s.lastError}`] : []), '',
  ].join('\n');
}
