/**
 * `rqbench consume --target sqs|pubsub`: the seed's realtime-updates server — a pool of
 * readers on the queue, every message's updates applied to a cache, and the seed's metrics:
 * reading off the queue, server-side processing, E2E and E2E from the cloud's timestamp,
 * rows updated per second, bytes; every publisher's sequence numbers checked at the end.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { checkQueueConsumer } from '../options/queue.js';
import { checkConnection } from '../options/connection.js';
import { connectionFrom } from '../targets/redis.js';
import { withLocal } from '../local/for-run.js';
import { writeJson, writeText } from '../results/run-dir.js';
import { redactString } from '../results/redact.js';
import { grouped } from '../results/format.js';
import { ATTR, nowUs, parseUpdates } from './message.js';
import { MemoryCache, RedisCache } from './cache.js';
import { QueueMetrics } from './metrics.js';
import { openQueueTarget, targetFacts } from './open-target.js';
import { queueRun } from './queue-run.js';
import { summarizeConsumer, renderConsumerMd } from './consumer-summary.js';

const COLUMNS = ['messages', 'receives', 'rows', 'bytes', 'duplicates', 'e2e_p50_ms', 'e2e_p99_ms'];
const COMPLETE_CHECK_MS = 500;

/**
 * @param {Record<string, any>} a parsed flags
 * @returns {Promise<{ dir: string, summary: object, md: string, exitCode: number }>}
 */
export async function runQueueConsumer(a) {
  checkQueueConsumer(a);
  if (a.cache === 'redis') {
    checkConnection({ ...a, url: a.cacheUrl });
    return withLocal(a, async (flags) => {
      const cache = await RedisCache.open(connectionFrom({ ...flags, url: flags.cacheUrl }));
      return consume(a, cache);
    });
  }
  return consume(a, new MemoryCache());
}

/**
 * @param {Record<string, any>} a
 * @param {MemoryCache|RedisCache} cache
 */
async function consume(a, cache) {
  const metrics = new QueueMetrics(a.target);
  const server = a.metricsPort !== undefined ? await metrics.serve(a.metricsPort) : null;
  if (server && !a.quiet) process.stderr.write(`metrics: http://127.0.0.1:${server.port}/metrics\n`);
  let target;
  const errors = { count: 0, last: '' };
  const onError = (e) => { errors.count++; errors.last = redactString(String(e?.message ?? e).split('\n')[0]); };
  let prev = { ...metrics.counts };
  let complete = false;
  let run;
  try {
    target = await openQueueTarget(a, 'consume');
    const name = a.name || `consume-${a.target}-t${a.threads}-${a.cache}`;
    run = await queueRun({
      a, command: 'consume', name, description: describe(a), facts: { ...targetFacts(a), cache: a.cache, threads: a.threads },
      columns: COLUMNS,
      rowOf: (iv) => {
        const e = iv.hist.get('e2e');
        return { ...iv.counters, e2e_p50_ms: e ? e.getValueAtPercentile(50) / 1000 : null, e2e_p99_ms: e ? e.getValueAtPercentile(99) / 1000 : null };
      },
      work: async (signal) => {
        const ac = new AbortController();
        const stop = () => ac.abort();
        signal.addEventListener('abort', stop, { once: true });
        const timers = [];
        if (a.duration > 0) timers.push(setTimeout(stop, a.duration * 1000));
        if (a.untilComplete) {
          timers.push(setInterval(async () => {
            if (await isComplete(cache)) { complete = true; stop(); }
          }, COMPLETE_CHECK_MS));
        }
        try {
          await target.consume({
            threads: a.threads, waitSeconds: a.waitSeconds, signal: ac.signal, onError,
            onMessages: (msgs, info) => handle(msgs, info, cache, metrics),
          });
        } finally {
          timers.forEach((t) => clearTimeout(t));
        }
      },
      take: () => {
        const now = { ...metrics.counts };
        const counters = Object.fromEntries(Object.keys(now).map((k) => [k, now[k] - prev[k]]));
        prev = now;
        const h = metrics.take();
        const hist = new Map([['read', h.read], ['processing', h.processing], ['e2e', h.e2e], ['e2e_cloud', h.e2eCloud]].filter(([, x]) => x.totalCount > 0));
        return { hist, counters };
      },
      status: (iv) => `${grouped(iv.counters.messages || 0)} msg/s  ${grouped(iv.counters.rows || 0)} rows/s  total ${grouped(metrics.counts.messages)}  dup ${metrics.counts.duplicates}  errors ${errors.count}`,
    });
    const progress = await cache.progress();
    const summary = summarizeConsumer({ a, run, metrics, progress, errors, complete });
    const md = renderConsumerMd(summary, run.manifest.description);
    writeJson(path.join(run.dir, 'summary.json'), summary);
    writeText(path.join(run.dir, 'summary.md'), md);
    return { dir: run.dir, summary, md, exitCode: summary.nothingLost.missing > 0 ? 1 : 0 };
  } finally {
    await target?.close();
    await cache.close();
    await server?.close();
  }
}

/**
 * One receive's messages: updates applied (with the messages' identities), then the metrics.
 * Resolving lets the target delete/ack them: a consumer that dies before leaves them to come back.
 * @param {import('../targets/sqs.js').QueueMessage[]} msgs
 * @param {{ receiveMs: number, receivedAt: number }} info
 * @param {MemoryCache|RedisCache} cache
 * @param {QueueMetrics} metrics
 */
async function handle(msgs, { receiveMs, receivedAt }, cache, metrics) {
  if (receiveMs > 0) metrics.read(receiveMs * 1000);
  const updates = [];
  const marks = [];
  let bytes = 0;
  for (const m of msgs) {
    for (const u of parseUpdates(m.body)) updates.push(u);
    bytes += m.bytes;
    const seq = Number(m.attrs[ATTR.seq]);
    if (m.attrs[ATTR.publisher] && Number.isInteger(seq) && seq > 0) {
      marks.push({ publisher: m.attrs[ATTR.publisher], seq, final: m.attrs[ATTR.final] === '1' });
    }
  }
  const duplicates = await cache.apply(updates, marks);
  const appliedAt = performance.now();
  const appliedUs = nowUs();
  metrics.processing((appliedAt - receivedAt) * 1000);
  for (const m of msgs) {
    const sentNs = Number(m.attrs[ATTR.timeSent]);
    if (!(sentNs > 0)) continue;
    metrics.e2e(appliedUs - sentNs / 1000, m.cloudMs ? appliedUs - m.cloudMs * 1000 : null);
  }
  metrics.applied({ messages: msgs.length, rows: updates.length, bytes, duplicates });
}

/** Every publisher seen has sent its last message and none of its messages is missing. */
async function isComplete(cache) {
  const p = await cache.progress().catch(() => []);
  return p.length > 0 && p.every((x) => x.last !== null && x.missing === 0);
}

function describe(a) {
  const where = a.endpoint ? `at ${a.endpoint}` : 'in the cloud';
  const how = a.target === 'sqs'
    ? `${a.threads} SQS poller(s) (WaitTimeSeconds ${a.waitSeconds}, 10 messages per receive, DeleteMessageBatch after apply)`
    : `Pub/Sub streaming pull (${a.threads} stream(s), flow control ${a.threads * 10} messages, ack after apply)`;
  return `Consumer: ${how} on ${a.target === 'sqs' ? `queue ${a.queue}` : `subscription ${a.subscription}`} ${where}, updates applied to ${a.cache === 'redis' ? 'Redis (pipelined SETs by slot)' : 'a Map in memory'}; ${a.untilComplete ? 'until every publisher is complete' : ''}${a.untilComplete && a.duration ? ', at most ' : ''}${a.duration ? `${a.duration} s` : a.untilComplete ? '' : 'until Ctrl-C'}.`;
}
