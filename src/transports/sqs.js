/**
 * SQS: a queue found (or made with `create`) by name or URL, sends with string attributes,
 * and consumption by `threads` long-polling loops sharing the queue, each deleting what it
 * handled in one DeleteMessageBatch. Messages that came through SNS are unwrapped here
 * (raw delivery on or off), so the consumer sees one shape whatever the route. Every call has
 * a bound (bounds.js): an endpoint that does not answer fails the call, never hangs it.
 */
import {
  SQSClient,
  CreateQueueCommand,
  GetQueueUrlCommand,
  GetQueueAttributesCommand,
  SetQueueAttributesCommand,
  SendMessageCommand,
  ReceiveMessageCommand,
  DeleteMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import { performance } from 'node:perf_hooks';
import { awsClientConfig, sendWithin, stringAttributes } from './aws.js';
import { AWS_LIMITS } from './queue-limits.js';
import { CALL_TIMEOUT_MS, CREATE_TIMEOUT_MS, pause } from './bounds.js';

/**
 * A message as the consumer sees it, whatever the queue.
 * @typedef {object} QueueMessage
 * @property {string} body the publisher's body (SNS envelope removed)
 * @property {Record<string, string>} attrs the publisher's attributes
 * @property {number|null} cloudMs the service's own publish time, epoch ms (SNS Timestamp,
 *   SQS SentTimestamp, Pub/Sub publishTime), null when unknown
 * @property {number} bytes body bytes as received
 */

/**
 * @typedef {object} SqsOptions
 * @property {string} queue name or URL
 * @property {string} [endpoint]
 * @property {string} [region]
 * @property {boolean} [create] make the queue when missing
 * @property {number} [visibilityTimeout] seconds, set on a queue this creates
 */

/**
 * Opens a queue.
 * @param {SqsOptions} opts
 */
export async function openSqs(opts) {
  const client = new SQSClient(awsClientConfig(opts));
  try {
    const queueUrl = await resolveQueue(client, opts);
    const { Attributes } = await sendWithin(client, new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
    return new SqsQueue(client, queueUrl, Attributes?.QueueArn ?? '');
  } catch (e) {
    client.destroy();
    throw e;
  }
}

/**
 * @param {SQSClient} client
 * @param {SqsOptions} opts
 */
async function resolveQueue(client, { queue, create, visibilityTimeout }) {
  if (/^https?:\/\//.test(queue)) return queue;
  try {
    return (await sendWithin(client, new GetQueueUrlCommand({ QueueName: queue }))).QueueUrl;
  } catch (e) {
    if (!create || !/NonExistentQueue|QueueDoesNotExist|does not exist/i.test(`${e.name} ${e.message}`)) throw e;
  }
  const Attributes = visibilityTimeout ? { VisibilityTimeout: String(visibilityTimeout) } : undefined;
  return (await sendWithin(client, new CreateQueueCommand({ QueueName: queue, Attributes }), { timeoutMs: CREATE_TIMEOUT_MS })).QueueUrl;
}

export class SqsQueue {
  /**
   * @param {SQSClient} client
   * @param {string} queueUrl
   * @param {string} queueArn
   */
  constructor(client, queueUrl, queueArn) {
    this.client = client;
    this.queueUrl = queueUrl;
    this.queueArn = queueArn;
    this.limit = AWS_LIMITS.messageBytes;
  }

  /**
   * Lets an SNS topic send to this queue (the policy SNS→SQS needs on real AWS).
   * @param {string} topicArn
   */
  async allowTopic(topicArn) {
    const Policy = JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'rqbench-sns',
          Effect: 'Allow',
          Principal: { Service: 'sns.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Resource: this.queueArn,
          Condition: { ArnEquals: { 'aws:SourceArn': topicArn } },
        },
      ],
    });
    await sendWithin(this.client, new SetQueueAttributesCommand({ QueueUrl: this.queueUrl, Attributes: { Policy } }), {
      timeoutMs: CREATE_TIMEOUT_MS,
    });
  }

  /**
   * @param {string} body
   * @param {Record<string, string>} attrs
   */
  async publish(body, attrs) {
    await sendWithin(
      this.client,
      new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: body, MessageAttributes: stringAttributes(attrs) }),
    );
  }

  /** One cheap call that only the queue's service can answer: is it still there? */
  async probe() {
    await sendWithin(this.client, new GetQueueAttributesCommand({ QueueUrl: this.queueUrl, AttributeNames: ['QueueArn'] }));
  }

  /**
   * Runs `threads` pollers until `signal` aborts. Each receive that returned messages is timed
   * (`receiveMs`; null for one begun before the first message was sent); the messages are deleted
   * (one batch) after `onMessages` resolved, so a consumer that dies before that leaves them to
   * come back after the visibility timeout (unless `deleteWhen` is before-apply).
   * @param {object} p
   * @param {number} p.threads
   * @param {number} [p.waitSeconds] long polling, 20 by default
   * @param {number} [p.maxMessages] per receive, 10 (the SQS maximum)
   * @param {'after-apply'|'before-apply'} [p.deleteWhen] before: the messages are deleted first and
   *   handed on once the delete answered (`receivedAt` then, as the seed's "Server side processing"
   *   starts "after they were deleted in the queue")
   * @param {AbortSignal} p.signal
   * @param {(msgs: QueueMessage[], info: { receiveMs: number|null, receivedAt: number }) => Promise<void>} p.onMessages
   * @param {(err: Error) => void} [p.onError]
   * @param {() => void} [p.onAnswer] the queue answered a receive (with messages or without)
   */
  async consume({
    threads,
    waitSeconds = 20,
    maxMessages = 10,
    deleteWhen = 'after-apply',
    signal,
    onMessages,
    onError = () => {},
    onAnswer = () => {},
  }) {
    // when the first message the consumer saw was sent (the queue's clock, epoch ms): a poll begun
    // before then waited for the publisher to start, not on SQS, and is not timed (the seed's
    // "Reading off SQS" is a thread waiting for the next batch of a run under way)
    let firstSentMs = Infinity;
    const poll = async () => {
      while (!signal.aborted) {
        const t = performance.now();
        const polledAtMs = Date.now();
        let res;
        try {
          // a long poll may rightly take waitSeconds; beyond that plus one call's bound, nobody is there
          res = await sendWithin(
            this.client,
            new ReceiveMessageCommand({
              QueueUrl: this.queueUrl,
              MaxNumberOfMessages: maxMessages,
              WaitTimeSeconds: waitSeconds,
              MessageAttributeNames: ['All'],
              MessageSystemAttributeNames: ['SentTimestamp'],
            }),
            { signal, timeoutMs: waitSeconds * 1000 + CALL_TIMEOUT_MS },
          );
        } catch (e) {
          if (signal.aborted) return;
          onError(e);
          await pause(500, signal);
          continue;
        }
        onAnswer();
        const raw = res.Messages ?? [];
        if (!raw.length) continue;
        const answeredAt = performance.now();
        const msgs = raw.map(fromSqs);
        for (const m of msgs) if (m.cloudMs) firstSentMs = Math.min(firstSentMs, m.cloudMs);
        const receiveMs = polledAtMs >= firstSentMs || firstSentMs === Infinity ? answeredAt - t : null;
        if (deleteWhen === 'before-apply') await this.#delete(raw).catch(onError);
        const receivedAt = performance.now();
        await onMessages(msgs, { receiveMs, receivedAt });
        if (deleteWhen !== 'before-apply') await this.#delete(raw).catch(onError);
      }
    };
    await Promise.all(Array.from({ length: threads }, poll));
  }

  async #delete(raw) {
    const Entries = raw.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle }));
    const res = await sendWithin(this.client, new DeleteMessageBatchCommand({ QueueUrl: this.queueUrl, Entries }));
    if (res.Failed?.length) throw new Error(`DeleteMessageBatch: ${res.Failed.length} failed (${res.Failed[0].Code})`);
  }

  close() {
    this.client.destroy();
  }
}

/**
 * One SQS message in the shape every consumer sees. An SNS envelope (raw delivery off) is
 * recognised by its Type and TopicArn and unwrapped: its Message, its MessageAttributes and
 * its Timestamp; otherwise the SQS attributes and SentTimestamp are the message's own.
 * @param {import('@aws-sdk/client-sqs').Message} m
 * @returns {QueueMessage}
 */
export function fromSqs(m) {
  const body = m.Body ?? '';
  const envelope = snsEnvelope(body);
  if (envelope) {
    /** @type {Record<string, string>} */
    const attrs = {};
    for (const [k, v] of Object.entries(envelope.MessageAttributes ?? {})) attrs[k] = String(v.Value);
    return { body: envelope.Message, attrs, cloudMs: Date.parse(envelope.Timestamp) || null, bytes: Buffer.byteLength(body) };
  }
  /** @type {Record<string, string>} */
  const attrs = {};
  for (const [k, v] of Object.entries(m.MessageAttributes ?? {})) attrs[k] = v.StringValue ?? '';
  const sent = Number(m.Attributes?.SentTimestamp);
  return { body, attrs, cloudMs: Number.isFinite(sent) && sent > 0 ? sent : null, bytes: Buffer.byteLength(body) };
}

/** The parsed SNS notification when `body` is one, else null (cheap test first: bodies are large). */
function snsEnvelope(body) {
  if (body.charCodeAt(0) !== 123 /* { */ || !body.includes('"TopicArn"')) return null;
  try {
    const o = JSON.parse(body);
    return o && o.Type === 'Notification' && typeof o.Message === 'string' ? o : null;
  } catch {
    return null;
  }
}
