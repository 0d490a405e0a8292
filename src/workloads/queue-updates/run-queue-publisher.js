/**
 * `rqbench produce --target sns|sqs|pubsub`: the seed's realtime-updates publisher from its plan
 * to files — the target (created with --create), the open-loop Publisher, a run directory and
 * summary. Every check (flags, --out, a --from-folder line that is not an update, a batch that
 * cannot fit the service's message limit) was made when the plan was (plans/queue-plan.js).
 */
import { performance } from 'node:perf_hooks';
import { stats } from '../../measure/histogram.js';
import { fixed, grouped } from '../../record/format.js';
import { BodyMaker } from './message.js';
import { FolderBodies } from './delta-folder.js';
import { Publisher } from './publisher.js';
import { openQueueTarget, whereOf } from './open-target.js';
import { pause } from '../../transports/bounds.js';
import { queueRun, serviceWatch } from './queue-run.js';
import { lostAny, renderPublisherMd, summarizePublisher } from '../../runs/queue-publish/queue-publisher-summary.js';
import { QUEUE_PUBLISH_ROWS } from '../../runs/queue-publish/queue-publish-run.js';
import { withLiveMetrics } from '../../harness/live-metrics.js';

/** The timeline's columns, as the reports read them back (one list for both). */
const COLUMNS = QUEUE_PUBLISH_ROWS.columns;
const COUNTERS = ['sent', 'acked', 'failed', 'unanswered', 'bytes'];

/**
 * @param {Readonly<import('./queue-run.js').QueueRunPlan>} plan checked and frozen (plans/queue-plan.js)
 * @returns {Promise<{ dir: string, summary: object, md: string, exitCode: number, linger?: () => Promise<void> }>}
 */
export function runPublisher(plan) {
  return withLiveMetrics(plan.a, (live) => publish(plan, live));
}

/**
 * @param {Readonly<import('./queue-run.js').QueueRunPlan>} plan
 * @param {import('../../harness/live-endpoint.js').LiveMetrics|null} live
 */
async function publish({ a, driver, target: opts }, live) {
  const maker = a.fromFolder
    ? new FolderBodies(a.fromFolder)
    : new BodyMaker(/** @type {ConstructorParameters<typeof BodyMaker>[0]} */ (a));
  const target = await openQueueTarget(driver, opts, 'publish', a);
  const contact = serviceWatch(() => target.probe(), whereOf(driver, opts));
  const publisher = new Publisher({
    target,
    maker,
    publisherId: a.publisherId,
    rate: a.rate,
    durationMs: a.duration * 1000,
    concurrency: a.concurrency,
    onAnswer: () => contact.answered(),
    onError: (e) => contact.failed(e),
  });
  let prev = { ...publisher.counts };
  const name = a.name || `produce-${a.target}-b${a.batchSize}-r${a.rate}`;
  live?.label({ runName: name, extra: { publisher: a.publisherId } });
  try {
    return await queueRun({
      a,
      command: 'produce',
      name,
      live,
      description: describe(a, driver.describe('publish', opts, {})),
      facts: { ...driver.facts(opts), publisherId: a.publisherId },
      columns: COLUMNS,
      contact,
      rowOf: (iv) => {
        const h = iv.hist.get('publish.intended');
        const s = h ? stats(h) : null;
        const lag = iv.hist.get('lag');
        return {
          ...iv.counters,
          intended: iv.intended,
          updates: (iv.counters.acked || 0) * a.batchSize,
          publish_p50_ms: s?.p50,
          publish_p99_ms: s?.p99,
          lag_p99_ms: lag ? stats(lag).p99 : null,
        };
      },
      // message 0 is due at the start of second 0: the schedule's seconds are the recorded ones
      work: async (signal, t0) => {
        signal.addEventListener('abort', () => publisher.stop(), { once: true });
        await publisher.run(t0);
        // a run lasts its duration even when the last answer came sooner: the rate is per second of
        // the schedule (a timer may fire a little early on the loop's clock: wait until it is over)
        const end = t0 + a.duration * 1000;
        while (a.duration > 0 && !signal.aborted && performance.now() < end) await pause(end - performance.now() + 1, signal);
      },
      take: () => {
        const now = { ...publisher.counts };
        const counters = Object.fromEntries(COUNTERS.map((k) => [k, now[k] - prev[k]]));
        const intended = now.intended - prev.intended;
        prev = now;
        const hist = new Map();
        for (const [op, h] of publisher.hist.take()) {
          hist.set(`${op}.intended`, h.intended);
          hist.set(`${op}.sent`, h.sent);
        }
        const lag = publisher.takeLag();
        if (lag.totalCount) hist.set('lag', lag);
        return { hist, counters, intended };
      },
      status: (iv) =>
        `${grouped(iv.counters.acked || 0)}/${fixed(a.rate, 0)} msg/s  ${grouped((iv.counters.acked || 0) * a.batchSize)} updates/s  failed ${publisher.counts.failed}  unanswered ${publisher.counts.unanswered}`,
      summarize: async (run) => {
        const summary = summarizePublisher({ a, publisher, run });
        return { summary, md: renderPublisherMd(summary, run.manifest.description), ok: !lostAny(summary) };
      },
    });
  } finally {
    await target.close();
  }
}

/**
 * @param {Record<string, any>} a
 * @param {string} route the target's words for itself ('SNS→SQS (raw delivery off)')
 */
function describe(a, route) {
  const where = a.endpoint ? `at ${a.endpoint}` : 'in the cloud';
  const from = a.fromFolder ? ` from the files of ${a.fromFolder}` : '';
  return `Publisher ${a.publisherId}: ${a.rate} messages/s x ${a.batchSize} updates${from} (keys ${a.keySize}, values ${a.valueSize} characters) to ${route} ${where}, ${a.duration ? `${a.duration} s` : 'until Ctrl-C'}, ${a.concurrency} in flight at most.`;
}
