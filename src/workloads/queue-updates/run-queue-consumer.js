/**
 * `rqbench consume --target sqs|pubsub`: the seed's realtime-updates server — a pool of
 * readers on the queue, every message's updates applied to a cache, and the seed's metrics:
 * reading off the queue, server-side processing, E2E (from the intended send, and from the
 * actual send) and E2E from the cloud's timestamp, rows updated per second, bytes; every
 * publisher's sequence numbers checked at the end, and every body line that is not an update
 * counted as malformed.
 */
import { performance } from 'node:perf_hooks';
import { connectionFrom } from '../../transports/redis.js';
import { withLocal } from '../../local/for-run.js';
import { redactString } from '../../record/redact.js';
import { grouped } from '../../record/format.js';
import { ATTR, nowUs, parseBody } from './message.js';
import { MemoryCache, RedisCache } from './cache.js';
import { MAX_PUBLISHERS, OTHER_PUBLISHERS, QueueMetrics } from './queue-metrics.js';
import { openQueueTarget, whereOf } from './open-target.js';
import { DRAIN_MS } from '../../transports/bounds.js';
import { queueRun, serviceWatch } from './queue-run.js';
import { summarizeConsumer, renderConsumerMd } from '../../runs/queue-consume/queue-consumer-summary.js';
import { E2E_BY_PUBLISHER, QUEUE_CONSUME_ROWS } from '../../runs/queue-consume/queue-consume-run.js';
import { withLiveMetrics } from '../../harness/live-metrics.js';

/** The timeline's columns, as the reports read them back (one list for both). */
const COLUMNS = QUEUE_CONSUME_ROWS.columns;
const COMPLETE_CHECK_MS = 500;

/**
 * @param {Readonly<import('./queue-run.js').QueueRunPlan>} run checked and frozen (plans/queue-plan.js)
 * @returns {Promise<{ dir: string, summary: object, md: string, exitCode: number, linger?: () => Promise<void> }>}
 */
export async function runQueueConsumer(run) {
  const { a } = run;
  return withLiveMetrics(a, async (live) => {
    if (a.cache === 'redis') {
      return withLocal(a, async (local) => {
        const cache = await RedisCache.open(connectionFrom({ ...local, url: local.cacheUrl }));
        return consume(run, cache, live);
      });
    }
    return consume(run, new MemoryCache(), live);
  });
}

/**
 * @param {Readonly<import('./queue-run.js').QueueRunPlan>} run
 * @param {MemoryCache|RedisCache} cache
 * @param {import('../../harness/live-endpoint.js').LiveMetrics|null} live the seed's metrics are served there
 */
async function consume({ a, driver, target: opts }, cache, live) {
  const metrics = new QueueMetrics(
    /** @type {import('../../transports/queue-driver.js').QueueConsumerTraits} */ (driver.consumer),
    live?.registry,
    a.metricsBuckets,
  );
  let target;
  const errors = { count: 0, last: '' };
  const contact = serviceWatch(() => target.probe(), whereOf(driver, opts));
  const onError = (e) => {
    errors.count++;
    errors.last = redactString(String(e?.message ?? e).split('\n')[0]);
    contact.failed(e);
  };
  let prev = { ...metrics.counts };
  /** epoch ms of each second's first and last messages applied, by second */
  const spans = [];
  let complete = false;
  try {
    target = await openQueueTarget(driver, opts, 'consume', a);
    contact.answered(); // opening it asked the service: the silence counts from here
    const name = a.name || `consume-${a.target}-t${a.threads}-${a.cache}`;
    live?.label({ runName: name });
    return await queueRun({
      a,
      command: 'consume',
      name,
      live,
      description: describe(a, driver.describe('consume', opts, { threads: a.threads })),
      facts: { ...driver.facts(opts), cache: a.cache, threads: a.threads },
      columns: COLUMNS,
      hlogComments: {
        [E2E_BY_PUBLISHER]: `rqbench ${E2E_BY_PUBLISHER}, microseconds: E2E from the intended send to the updates applied, one tag per publisher (its id; ${OTHER_PUBLISHERS} past the first ${MAX_PUBLISHERS})`,
      },
      contact,
      rowOf: (iv) => {
        const ms = (name, p) => {
          const h = iv.hist.get(name);
          return h ? h.getValueAtPercentile(p) / 1000 : null;
        };
        return {
          ...iv.counters,
          e2e_p50_ms: ms('e2e.intended', 50),
          e2e_p99_ms: ms('e2e.intended', 99),
          e2e_sent_p50_ms: ms('e2e.sent', 50),
          e2e_sent_p99_ms: ms('e2e.sent', 99),
        };
      },
      work: async (signal) => {
        const ac = new AbortController();
        const stop = () => ac.abort();
        signal.addEventListener('abort', stop, { once: true });
        const timers = [];
        if (a.duration > 0) timers.push(setTimeout(stop, a.duration * 1000));
        if (a.untilComplete) {
          timers.push(
            setInterval(async () => {
              if (await isComplete(cache)) {
                complete = true;
                stop();
              }
            }, COMPLETE_CHECK_MS),
          );
        }
        const consuming = target.consume({
          threads: a.threads,
          waitSeconds: a.waitSeconds,
          deleteWhen: a.deleteWhen,
          signal: ac.signal,
          onError,
          onAnswer: () => contact.answered(),
          onMessages: (msgs, info) => {
            contact.answered();
            return handle(msgs, info, cache, metrics);
          },
        });
        // what fails after the drain gave up on it changes nothing, and must not end the process
        consuming.catch(() => {});
        const drain = drained(ac.signal);
        try {
          await Promise.race([consuming, drain.done]);
        } finally {
          timers.forEach((t) => clearTimeout(t));
          drain.cancel();
        }
      },
      take: () => {
        const now = { ...metrics.counts };
        const counters = Object.fromEntries(Object.keys(now).map((k) => [k, now[k] - prev[k]]));
        prev = now;
        const { hist: h, byPublisher, span } = metrics.take();
        spans.push(span);
        const hist = new Map(
          /** @type {Array<[string, import('hdr-histogram-js').Histogram]>} */ ([
            ['read', h.read],
            ['processing', h.processing],
            ['e2e.intended', h.e2e],
            ['e2e.sent', h.e2eSent],
            ['e2e_cloud', h.e2eCloud],
          ]).filter(([, x]) => x.totalCount > 0),
        );
        // E2E by publisher: e2e_publisher.hlog, tagged with the publisher (only in the files: no summary or timeline figure)
        for (const [publisher, x] of byPublisher) hist.set(`${E2E_BY_PUBLISHER}.${publisher}`, x);
        return { hist, counters };
      },
      status: (iv) =>
        `${grouped(iv.counters.messages || 0)} msg/s  ${grouped(iv.counters.rows || 0)} rows/s  total ${grouped(metrics.counts.messages)}  dup ${metrics.counts.duplicates}  malformed ${metrics.counts.malformed}  errors ${errors.count}`,
      summarize: async (run) => {
        const progress = await cache.progress();
        const summary = summarizeConsumer({ a, run, metrics, spans, progress, errors, complete });
        return { summary, md: renderConsumerMd(summary, run.manifest.description), ok: summary.ok };
      },
    });
  } finally {
    await target?.close();
    await cache.close();
  }
}

/**
 * `done` resolves DRAIN_MS after `signal` aborts: the longest the readers get to finish what they
 * hold (apply, then delete or ack) once the run is over. Messages still held then are neither
 * deleted nor acked, so they come back to the next consumer; this run counts only what it applied.
 * @param {AbortSignal} signal
 */
function drained(signal) {
  let timer;
  const later = () => {
    timer = setTimeout(resolve, DRAIN_MS);
  };
  /** @type {(value?: unknown) => void} */
  let resolve = () => {};
  const done = new Promise((r) => {
    resolve = r;
  });
  if (signal.aborted) later();
  else signal.addEventListener('abort', later, { once: true });
  return {
    done,
    cancel: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', later);
    },
  };
}

/**
 * One receive's messages: updates applied (with the messages' identities), then the metrics.
 * Resolving lets the target delete/ack them: a consumer that dies before leaves them to come back.
 * @param {import('../../transports/sqs.js').QueueMessage[]} msgs
 * @param {{ receiveMs: number|null, receivedAt: number }} info
 * @param {MemoryCache|RedisCache} cache
 * @param {QueueMetrics} metrics
 */
async function handle(msgs, { receiveMs, receivedAt }, cache, metrics) {
  // null: a receive that waited for the first message; 0: a stream's delivery, no receive to time
  if (receiveMs) metrics.read(receiveMs * 1000);
  const updates = [];
  const marks = [];
  let bytes = 0;
  let malformed = 0;
  let malformedMessages = 0;
  let unidentified = 0;
  for (const m of msgs) {
    const body = parseBody(m.body);
    for (const u of body.updates) updates.push(u);
    malformed += body.malformed;
    if (body.malformed) malformedMessages++;
    bytes += m.bytes;
    const seq = Number(m.attrs[ATTR.seq]);
    if (m.attrs[ATTR.publisher] && Number.isInteger(seq) && seq > 0) {
      marks.push({ publisher: m.attrs[ATTR.publisher], seq, final: m.attrs[ATTR.final] === '1' });
    } else {
      unidentified++;
    }
  }
  const duplicates = await cache.apply(updates, marks);
  const appliedAt = performance.now();
  const appliedUs = nowUs();
  metrics.processing((appliedAt - receivedAt) * 1000);
  for (const m of msgs) {
    const sentNs = Number(m.attrs[ATTR.timeSent]);
    if (!(sentNs > 0)) continue;
    const intendedNs = Number(m.attrs[ATTR.timeIntended]);
    metrics.e2e(
      intendedNs > 0 ? appliedUs - intendedNs / 1000 : null,
      appliedUs - sentNs / 1000,
      m.cloudMs ? appliedUs - m.cloudMs * 1000 : null,
      m.attrs[ATTR.publisher],
    );
  }
  metrics.applied({ messages: msgs.length, rows: updates.length, bytes, duplicates, malformed, malformedMessages, unidentified });
}

/** Every publisher seen has sent its last message and none of its messages is missing. */
async function isComplete(cache) {
  const p = await cache.progress().catch(() => []);
  return p.length > 0 && p.every((x) => x.last !== null && x.missing === 0);
}

/**
 * @param {Record<string, any>} a
 * @param {string} how the target's words for how it reads ('4 SQS poller(s) (…) on queue q')
 */
function describe(a, how) {
  const where = a.endpoint ? `at ${a.endpoint}` : 'in the cloud';
  return `Consumer: ${how} ${where}, updates applied to ${a.cache === 'redis' ? 'Redis (pipelined SETs by slot)' : 'a Map in memory'}; ${a.untilComplete ? 'until every publisher is complete' : ''}${a.untilComplete && a.duration ? ', at most ' : ''}${a.duration ? `${a.duration} s` : a.untilComplete ? '' : 'until Ctrl-C'}.`;
}
