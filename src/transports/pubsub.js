/**
 * Google Cloud Pub/Sub: a topic and subscription (made with `create` when missing), publishes
 * with attributes, and consumption by streaming pull over `threads` streams (the pool) with the client's own flow control;
 * a message is acked after the consumer's callback resolved, so a consumer that dies before
 * that leaves it to come back after the ack deadline. `endpoint` (host:port) points at an
 * emulator or any compatible endpoint; otherwise the standard credential chain (ADC) is used.
 * Every call, stream connection and close has a bound (bounds.js).
 */
import { PubSub } from '@google-cloud/pubsub';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { PUBSUB_LIMITS, PUBSUB_OUTSTANDING } from './queue-limits.js';
import { CALL_TIMEOUT_MS, CLOSE_MS, CREATE_TIMEOUT_MS, within } from './bounds.js';

/** gax call options: one call (retries included) gives up after this long. */
const CALL = { timeout: CALL_TIMEOUT_MS };
const CREATE = { timeout: CREATE_TIMEOUT_MS };
/** gRPC status codes. */
const DEADLINE_EXCEEDED = 4;
const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;
/**
 * How far past its own total timeout the client's retrying may run before rqbench stops waiting:
 * it was seen to give up 11 s after asking, 6 s late, on a busy machine, where a run promises to
 * end on "no answer within 5 s".
 */
export const OVERRUN_MS = 1000;
/** A subscription whose streams gave up is opened again after this long, ms. */
const REOPEN_MS = 1000;

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
 * Opens the topic and (for a consumer, or with `create`) the subscription. Each is looked up
 * within one call's bound, so a dead endpoint or a missing resource ends the run here, before
 * anything is measured, rather than in a stream that retries forever.
 * @param {PubsubOptions} opts
 */
export async function openPubsub(opts) {
  const client = newPubsubClient(opts);
  try {
    // every publish gives up after one call's bound, retries included (the client's own is 60 s)
    const topic = client.topic(opts.topic, { batching: { maxMessages: 1, maxMilliseconds: 0 }, gaxOpts: CALL });
    // a consumer reads the subscription only: its topic may be gone while the subscription lives
    if ((opts.create || !opts.subscription) && !(await exists(topic, opts.endpoint))) {
      if (!opts.create) throw new Error(`Pub/Sub topic ${opts.topic} does not exist (--create makes it)`);
      await createIgnoringRace(() => topic.create(CREATE));
    }
    if (opts.subscription) {
      const subscription = topic.subscription(opts.subscription);
      if (!(await exists(subscription, opts.endpoint))) {
        if (!opts.create) throw new Error(`Pub/Sub subscription ${opts.subscription} does not exist (--create makes it)`);
        await createIgnoringRace(() => subscription.create({ ackDeadlineSeconds: opts.ackDeadline ?? 10, gaxOpts: CREATE }));
      }
    }
    return new PubsubTopic(client, topic, opts.subscription ?? null);
  } catch (e) {
    await within(client.close(), CLOSE_MS, 'closing the Pub/Sub client').catch(() => {});
    throw shortGaxError(e);
  }
}

/**
 * @param {{ getMetadata: (o: object) => Promise<unknown> }} resource a topic or subscription
 * @param {string} [endpoint] host:port, to say why when the client overruns its timeout
 */
async function exists(resource, endpoint) {
  try {
    await within(resource.getMetadata(CALL), CALL_TIMEOUT_MS + OVERRUN_MS, 'Pub/Sub');
    return true;
  } catch (e) {
    const err = /** @type {any} */ (e);
    if (err.code === NOT_FOUND) return false;
    // our bound, not the client's: say the call's timeout, and why from one TCP connect
    if (err.timedOut && err.code === undefined) {
      throw Object.assign(new Error(`no answer within ${CALL_TIMEOUT_MS / 1000} s${endpoint ? ` (${await tcpProbe(endpoint)})` : ''}`), {
        timedOut: true,
      });
    }
    throw e;
  }
}

/**
 * One TCP connect to host:port, within half a second: what a client that keeps retrying does not say.
 * @param {string} endpoint
 * @returns {Promise<string>} 'connect ECONNREFUSED 127.0.0.1:8085', 'a TCP connection opens', …
 */
export function tcpProbe(endpoint) {
  const i = endpoint.lastIndexOf(':');
  const host = endpoint.slice(0, i).replace(/^\[|\]$/g, '');
  const port = Number(endpoint.slice(i + 1));
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const done = (/** @type {string} */ what) => {
      s.destroy();
      resolve(what);
    };
    s.setTimeout(500, () => done(`no TCP connection to ${endpoint} within 0.5 s`));
    s.once('connect', () => done(`a TCP connection to ${endpoint} opens, but the service does not answer`));
    s.once('error', (e) => done(`connect ${/** @type {any} */ (e).code ?? e.message} ${endpoint}`));
  });
}

/**
 * A PubSub client for `endpoint` (an emulator: plain gRPC, no credentials) or, without one, the
 * real service with the standard credential chain (ADC). It connects on its first call.
 * @param {{ project?: string, endpoint?: string }} opts
 * @returns {PubSub}
 */
export function newPubsubClient(opts) {
  const project =
    opts.project ?? process.env.GOOGLE_CLOUD_PROJECT ?? process.env.PUBSUB_PROJECT_ID ?? (opts.endpoint ? 'rqbench' : undefined);
  // An explicit endpoint needs no Google credentials: keep google-auth-library from probing the
  // GCE metadata server (a link-local address) for them.
  if (opts.endpoint) process.env.METADATA_SERVER_DETECTION ??= 'none';
  // A non-Google apiEndpoint makes the client use plain gRPC without credentials (emulator mode).
  return new PubSub({ ...(project && { projectId: project }), ...(opts.endpoint && { apiEndpoint: opts.endpoint }) });
}

/**
 * google-gax appends every retried attempt's error to the message of the one it gives up with
 * (" : Previous errors : [...]", one per retry, kilobytes): the first, in one line, keeping the
 * code; a call that ran out of time says so first, and is marked `timedOut`.
 * @param {any} e
 * @returns {Error & { code?: number, timedOut?: boolean }}
 */
export function shortGaxError(e) {
  let msg = String(e?.message ?? e)
    .split(' : Previous errors')[0]
    .replace(/\s+/g, ' ')
    .trim();
  const total = /^Total timeout of API \S+ exceeded (\d+) milliseconds retrying error (?:Error: )?(.*)$/.exec(msg);
  const deadline = /^4 DEADLINE_EXCEEDED: Deadline exceeded after (\d+(?:\.\d+)?)s/.exec(msg);
  if (total) msg = `no answer within ${Number(total[1]) / 1000} s (${total[2]})`;
  else if (deadline) msg = `no answer within ${Math.round(Number(deadline[1]))} s (${msg})`;
  return Object.assign(new Error(msg), { code: e?.code, timedOut: e?.code === DEADLINE_EXCEEDED });
}

/** Two processes creating the same resource: the second one's ALREADY_EXISTS (gRPC 6) is fine. */
async function createIgnoringRace(fn) {
  try {
    await fn();
  } catch (e) {
    if (/** @type {any} */ (e).code !== ALREADY_EXISTS) throw e;
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
    this.limit = PUBSUB_LIMITS.messageBytes;
  }

  /**
   * @param {string} body
   * @param {Record<string, string>} attrs
   */
  async publish(body, attrs) {
    await this.topic.publishMessage({ data: Buffer.from(body), attributes: attrs }).catch((e) => {
      throw shortGaxError(e);
    });
  }

  /** One cheap call only the service can answer: is the subscription (or, publishing, the topic) still there? */
  async probe() {
    const resource = this.subscriptionName ? this.topic.subscription(this.subscriptionName) : this.topic;
    await resource.getMetadata(CALL).catch((e) => {
      throw shortGaxError(e);
    });
  }

  /**
   * Streaming pull until `signal` aborts: `threads` streams (the pool), and the client library's
   * own flow control, 1,000 messages outstanding, as the seed's client had. Not threads x 10: the
   * library frees a message's place only once its ack is sent, in batches every 100 ms, so 10
   * places held one stream to about 100 messages/s with the CPU idle, far below the seed's rates.
   * Each delivery is handed over alone (streaming pull has no receive call to time: receiveMs is 0).
   * @param {object} p
   * @param {number} p.threads
   * @param {AbortSignal} p.signal
   * @param {(msgs: import('./sqs.js').QueueMessage[], info: { receiveMs: number, receivedAt: number }) => Promise<void>} p.onMessages
   * @param {(err: Error) => void} [p.onError]
   * @param {() => void} [p.onAnswer] a message arrived (streaming pull says nothing else when it works)
   */
  async consume({ threads, signal, onMessages, onError = () => {}, onAnswer = () => {} }) {
    if (!this.subscriptionName) throw new Error('Pub/Sub: a subscription is needed to consume');
    const sub = this.topic.subscription(this.subscriptionName, {
      flowControl: { maxMessages: PUBSUB_OUTSTANDING, allowExcessMessages: false },
      // streams that cannot connect within one call's bound end in an error: the default waits
      // 5 minutes, and its channel goes on reconnecting after close(), holding the process
      streamingOptions: { maxStreams: threads, timeout: CALL_TIMEOUT_MS },
    });
    sub.on('message', (m) => {
      onAnswer();
      const receivedAt = performance.now();
      const msg = {
        body: m.data.toString(),
        attrs: { ...m.attributes },
        cloudMs: m.publishTime?.getTime?.() ?? null,
        bytes: m.data.length,
      };
      onMessages([msg], { receiveMs: 0, receivedAt }).then(
        () => m.ack(),
        (e) => {
          onError(e);
          m.nack();
        },
      );
    });
    /** @type {NodeJS.Timeout|undefined} */
    let reopen;
    sub.on('error', (e) => {
      onError(shortGaxError(e));
      // the streams retry what can be retried by themselves; when they gave up, the subscription
      // closed: open it again after a pause (the consumer's watchdog decides when it is hopeless)
      clearTimeout(reopen);
      reopen = setTimeout(() => {
        if (!signal.aborted && !sub.isOpen) sub.open();
      }, REOPEN_MS);
    });
    await new Promise((resolve) => {
      if (signal.aborted) resolve(undefined);
      else signal.addEventListener('abort', resolve, { once: true });
    });
    clearTimeout(reopen);
    await within(sub.close(), CLOSE_MS, 'closing the Pub/Sub subscription').catch(onError);
  }

  async close() {
    // a client still closing after its bound is left behind: the run has its numbers already
    await within(this.client.close(), CLOSE_MS, 'closing the Pub/Sub client').catch(() => {});
  }
}
