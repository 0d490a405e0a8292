/**
 * Google Cloud Pub/Sub operations for `rqbench ops`: Publish and a synchronous Pull, each a single
 * unary call through the generated v1 clients (the handwritten client batches publishes and pulls
 * by streaming, neither of which is one call). A topic and subscription of the run's own are made
 * first and deleted last. As with the AWS SDKs, a client connects on its first call, so "connect"
 * is making the client (and, on the real service, finding the project through ADC).
 */
import { v1 } from '@google-cloud/pubsub';
import { newPubsubClient, shortGaxError } from './pubsub.js';
import { meterGrpc } from './grpc-overhead.js';

/** @returns {never} */
const shorten = (e) => {
  throw shortGaxError(e);
};

const BODY = Buffer.from('x'.repeat(128));
/** Messages put on the subscription before the operations, in publishes of 1,000, so Pull finds some. */
const STOCK = 10_000;
const STOCK_BATCH = 1000;
/** The longest ack deadline: a pulled message (never acked) does not come back during the run. */
const ACK_DEADLINE_S = 600;
/**
 * The generated PublisherClient bundles publishes (up to 10 ms or 100 messages, from its client
 * config) unless told not to per call: timed with bundling, every Publish would include that wait.
 */
const UNBUNDLED = { isBundling: false };
/** Each call (retries included) gives up after 10 s, not the client config's 60 s: a dead endpoint fails fast. */
const TIMEOUT = { timeout: 10_000 };
const SEND = { ...UNBUNDLED, ...TIMEOUT };

/**
 * @param {{ endpoint?: string, project?: string }} where
 * @param {string} name topic and subscription name
 * @returns {import('./queue-driver.js').OpsService}
 */
export function pubsubService(where, name) {
  let topicPath;
  let subscriptionPath;
  /**
   * @template {'PublisherClient'|'SubscriberClient'} K
   * @param {K} kind
   * @returns {Promise<{ gapic: InstanceType<(typeof v1)[K]>, close: () => Promise<void> }>}
   */
  const client = async (kind) => {
    const ps = newPubsubClient(where);
    try {
      // the cast: PubSub's getClientConfig() is what it hands its own gapic clients, but its
      // typings say port: string|number where the clients' options say number
      const gapic = /** @type {InstanceType<(typeof v1)[K]>} */ (
        new v1[kind](/** @type {ConstructorParameters<typeof v1.PublisherClient>[0]} */ (await ps.getClientConfig()))
      );
      return {
        gapic,
        close: async () => {
          await gapic.close();
          await ps.close();
        },
      };
    } catch (e) {
      await ps.close().catch(() => {});
      throw e;
    }
  };
  const admin = newPubsubClient(where);
  let made = { topic: false, subscription: false };
  return {
    service: 'Pub/Sub',
    setup: async () => {
      const [topic] = await admin.createTopic(name, TIMEOUT).catch(shorten);
      made.topic = true;
      await topic.createSubscription(name, { ackDeadlineSeconds: ACK_DEADLINE_S, gaxOpts: TIMEOUT }).catch(shorten);
      made.subscription = true;
      topicPath = topic.name;
      subscriptionPath = topic.subscription(name).name;
      const pub = await client('PublisherClient');
      try {
        const messages = Array.from({ length: STOCK_BATCH }, () => ({ data: BODY }));
        for (let n = 0; n < STOCK; n += STOCK_BATCH) await pub.gapic.publish({ topic: topicPath, messages }, SEND).catch(shorten);
      } finally {
        await pub.close();
      }
    },
    teardown: async () => {
      // both deletions are tried; the first failure is the one reported
      const results = await Promise.allSettled([
        made.subscription && admin.subscription(name).delete(TIMEOUT),
        made.topic && admin.topic(name).delete(TIMEOUT),
      ]);
      made = { topic: false, subscription: false };
      await admin.close();
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) shorten(failed.reason);
    },
    ops: [
      {
        name: 'Publish',
        what: "128 B message, one per call; it lands on the run's subscription",
        open: async () => {
          const { gapic, close } = await client('PublisherClient');
          const meter = meterGrpc();
          const opts = { ...SEND, ...meter.callOptions };
          return {
            call: () => meter.time(() => gapic.publish({ topic: topicPath, messages: [{ data: BODY }] }, opts)).catch(shorten),
            overhead: meter.take,
            close,
          };
        },
      },
      {
        name: 'Pull',
        what: `one message at most, returnImmediately (no waiting on an empty subscription), not acked (ack deadline ${ACK_DEADLINE_S} s); the subscription holds ${STOCK.toLocaleString('en-US')} messages from setup and those Publish sent`,
        open: async () => {
          const { gapic, close } = await client('SubscriberClient');
          const meter = meterGrpc();
          const opts = { ...TIMEOUT, ...meter.callOptions };
          let calls = 0;
          let empty = 0;
          return {
            overhead: meter.take,
            call: async () => {
              const [reply] = await meter
                .time(() => gapic.pull({ subscription: subscriptionPath, maxMessages: 1, returnImmediately: true }, opts))
                .catch(shorten);
              calls++;
              if (!reply.receivedMessages?.length) empty++;
            },
            close,
            detail: () =>
              `${(calls - empty).toLocaleString('en-US')} of ${calls.toLocaleString('en-US')} calls (warm-up included) returned a message`,
          };
        },
      },
    ],
  };
}
