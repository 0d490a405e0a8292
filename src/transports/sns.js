/**
 * SNS: a topic found (or made with `create`) by name or ARN, publishes with string
 * attributes. With `create` and a queue it also makes the SNS→SQS route: the queue, the
 * queue policy that lets the topic send, and the subscription (raw delivery on or off).
 * Every call has a bound (bounds.js).
 */
import {
  SNSClient,
  CreateTopicCommand,
  PublishCommand,
  SubscribeCommand,
  ListSubscriptionsByTopicCommand,
  SetSubscriptionAttributesCommand,
  GetTopicAttributesCommand,
} from '@aws-sdk/client-sns';
import { awsClientConfig, sendWithin, stringAttributes } from './aws.js';
import { AWS_LIMITS } from './queue-limits.js';
import { CREATE_TIMEOUT_MS } from './bounds.js';
import { openSqs } from './sqs.js';

/**
 * @typedef {object} SnsOptions
 * @property {string} topic name or ARN
 * @property {string} [queue] SQS queue (name or URL) to subscribe, with `create`
 * @property {boolean} [raw] raw message delivery on the subscription
 * @property {string} [endpoint]
 * @property {string} [region]
 * @property {boolean} [create]
 * @property {number} [visibilityTimeout] of a queue this creates
 */

/**
 * Opens a topic (and with `create` + `queue`, the route to the queue).
 * @param {SnsOptions} opts
 */
export async function openSns(opts) {
  const client = new SNSClient(awsClientConfig(opts));
  try {
    const topicArn = await resolveTopic(client, opts);
    if (opts.create && opts.queue) await subscribeQueue(client, topicArn, opts);
    const topic = new SnsTopic(client, topicArn);
    // an ARN given without --create was never asked about: the topic must be there before the run starts
    await topic.probe();
    return topic;
  } catch (e) {
    client.destroy();
    throw e;
  }
}

/**
 * @param {SNSClient} client
 * @param {SnsOptions} opts
 */
async function resolveTopic(client, { topic, create }) {
  if (topic.startsWith('arn:')) return topic;
  // CreateTopic is idempotent: it returns the existing topic's ARN. Without --create, a name
  // still needs the ARN, and asking for it this way creates nothing that was not there.
  if (!create) throw new Error(`SNS topic "${topic}": pass its ARN, or --create to make it`);
  return (await sendWithin(client, new CreateTopicCommand({ Name: topic }), { timeoutMs: CREATE_TIMEOUT_MS })).TopicArn;
}

/** Queue, policy, subscription: each made only when missing. */
async function subscribeQueue(client, topicArn, opts) {
  const queue = await openSqs({ ...opts, queue: /** @type {string} */ (opts.queue), create: true });
  try {
    await queue.allowTopic(topicArn);
    const raw = opts.raw ? 'true' : 'false';
    const subs = (await sendWithin(client, new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }))).Subscriptions ?? [];
    const existing = subs.find((s) => s.Protocol === 'sqs' && s.Endpoint === queue.queueArn);
    if (existing?.SubscriptionArn && !/PendingConfirmation/i.test(existing.SubscriptionArn)) {
      await sendWithin(
        client,
        new SetSubscriptionAttributesCommand({
          SubscriptionArn: existing.SubscriptionArn,
          AttributeName: 'RawMessageDelivery',
          AttributeValue: raw,
        }),
        { timeoutMs: CREATE_TIMEOUT_MS },
      );
    } else {
      await sendWithin(
        client,
        new SubscribeCommand({
          TopicArn: topicArn,
          Protocol: 'sqs',
          Endpoint: queue.queueArn,
          Attributes: { RawMessageDelivery: raw },
          ReturnSubscriptionArn: true,
        }),
        { timeoutMs: CREATE_TIMEOUT_MS },
      );
    }
  } finally {
    queue.close();
  }
}

export class SnsTopic {
  /**
   * @param {SNSClient} client
   * @param {string} topicArn
   */
  constructor(client, topicArn) {
    this.client = client;
    this.topicArn = topicArn;
    this.limit = AWS_LIMITS.messageBytes;
  }

  /**
   * @param {string} body
   * @param {Record<string, string>} attrs
   */
  async publish(body, attrs) {
    await sendWithin(
      this.client,
      new PublishCommand({ TopicArn: this.topicArn, Message: body, MessageAttributes: stringAttributes(attrs) }),
    );
  }

  /** One cheap call that only the topic's service can answer: is it still there? */
  async probe() {
    await sendWithin(this.client, new GetTopicAttributesCommand({ TopicArn: this.topicArn }));
  }

  close() {
    this.client.destroy();
  }
}
