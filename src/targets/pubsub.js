/**
 * Google Cloud Pub/Sub: a topic and subscription (made with `create` when missing), publishes
 * with attributes, and consumption by streaming pull with flow control sized by `threads`;
 * a message is acked after the consumer's callback resolved, so a consumer that dies before
 * that leaves it to come back after the ack deadline. `endpoint` (host:port) points at an
 * emulator or any compatible endpoint; otherwise the standard credential chain (ADC) is used.
 */
import { PubSub } from '@google-cloud/pubsub';
import { performance } from 'node:perf_hooks';
import { PUBSUB_LIMIT } from '../queues/limits.js';

/**
 * @typedef {object} PubsubOptions
 * @property {string} topic
 * @property {string} [subscription]
 * @property {string} [project] defaults to the credential chain's project (or GOOGLE_CLOUD_PROJECT)
 * @property {string} [endpoint] host:port of an emulator or compatible endpoint
 * @property {boolean} [create]
 * @property {number} [ackDeadline] seconds, on a subscription this creates (10..600)
 */

/**
 * @param {PubsubOptions} opts
 */
export async function openPubsub(opts) {
  const client = newPubsubClient(opts);
  try {
    const topic = client.topic(opts.topic, { batching: { maxMessages: 1, maxMilliseconds: 0 } });
    if (opts.create) {
      const [exists] = await topic.exists();
      if (!exists) await createIgnoringRace(() => topic.create());
    }
    let subscription = null;
    if (opts.subscription) {
      subscription = topic.subscription(opts.subscription);
      if (opts.create) {
        const [exists] = await subscription.exists();
        if (!exists) await createIgnoringRace(() => subscription.create({ ackDeadlineSeconds: opts.ackDeadline ?? 10 }));
      }
    }
    return new PubsubTopic(client, topic, opts.subscription ?? null);
  } catch (e) {
    await client.close().catch(() => {});
    throw shortGaxError(e);
  }
}

/**
 * A PubSub client for `endpoint` (an emulator: plain gRPC, no credentials) or, without one, the
 * real service with the standard credential chain (ADC). It connects on its first call.
 * @param {{ project?: string, endpoint?: string }} opts
 * @returns {PubSub}
 */
export function newPubsubClient(opts) {
  const project = opts.project ?? process.env.GOOGLE_CLOUD_PROJECT ?? process.env.PUBSUB_PROJECT_ID ?? (opts.endpoint ? 'rqbench' : undefined);
  // An explicit endpoint needs no Google credentials: keep google-auth-library from probing the
  // GCE metadata server (a link-local address) for them.
  if (opts.endpoint) process.env.METADATA_SERVER_DETECTION ??= 'none';
  // A non-Google apiEndpoint makes the client use plain gRPC without credentials (emulator mode).
  return new PubSub({ ...(project && { projectId: project }), ...(opts.endpoint && { apiEndpoint: opts.endpoint }) });
}

/**
 * google-gax appends every retried attempt's error to the message of the one it gives up with
 * (" : Previous errors : [...]", one per retry, kilobytes): the first, in one line, keeping the code.
 * @param {any} e
 * @returns {Error}
 */
export function shortGaxError(e) {
  const msg = String(e?.message ?? e).split(' : Previous errors')[0].replace(/\s+/g, ' ').trim();
  return Object.assign(new Error(msg), { code: e?.code });
}

/** Two processes creating the same resource: the second one's ALREADY_EXISTS (gRPC 6) is fine. */
async function createIgnoringRace(fn) {
  try {
    await fn();
  } catch (e) {
    if (/** @type {any} */ (e).code !== 6) throw e;
  }
}

export class PubsubTopic {
  /**
   * @param {PubSub} client
   * @param {import('@google-cloud/pubsub').Topic} topic
   * @param {string|null} subscriptionName
   */
  constructor(client, topic, subscriptionName) {
    this.client = client;
    this.topic = topic;
    this.subscriptionName = subscriptionName;
    this.limit = PUBSUB_LIMIT;
  }

  /**
   * @param {string} body
   * @param {Record<string, string>} attrs
   */
  async publish(body, attrs) {
    await this.topic.publishMessage({ data: Buffer.from(body), attributes: attrs }).catch((e) => { throw shortGaxError(e); });
  }

  /**
   * Streaming pull until `signal` aborts. Flow control: `threads` streams and at most
   * threads x 10 messages outstanding (the SQS pollers' 10 per receive, for comparable runs).
   * Each delivery is handed over alone (streaming pull has no receive call to time: receiveMs is 0).
   * @param {object} p
   * @param {number} p.threads
   * @param {AbortSignal} p.signal
   * @param {(msgs: import('./sqs.js').QueueMessage[], info: { receiveMs: number, receivedAt: number }) => Promise<void>} p.onMessages
   * @param {(err: Error) => void} [p.onError]
   */
  async consume({ threads, signal, onMessages, onError = () => {} }) {
    if (!this.subscriptionName) throw new Error('Pub/Sub: a subscription is needed to consume');
    const sub = this.topic.subscription(this.subscriptionName, {
      flowControl: { maxMessages: threads * 10, allowExcessMessages: false },
      streamingOptions: { maxStreams: threads },
    });
    sub.on('message', (m) => {
      const receivedAt = performance.now();
      const msg = { body: m.data.toString(), attrs: { ...m.attributes }, cloudMs: m.publishTime?.getTime?.() ?? null, bytes: m.data.length };
      onMessages([msg], { receiveMs: 0, receivedAt }).then(() => m.ack(), (e) => { onError(e); m.nack(); });
    });
    sub.on('error', onError);
    await new Promise((resolve) => {
      if (signal.aborted) resolve(undefined);
      else signal.addEventListener('abort', resolve, { once: true });
    });
    await sub.close();
  }

  async close() {
    await this.client.close();
  }
}
