/**
 * The SNS→SQS driver (queue-driver.js): publishes to a topic (with --create, also the queue,
 * its policy and the subscription that routes to it); consumers read that queue with
 * --target sqs, so SNS has a publishing side only. It shares fauxqs and the AWS flags with SQS.
 */
import { importThen } from './queue-driver.js';
import { AWS_LIMITS } from './queue-limits.js';
import { CREATE, ENDPOINT, QUEUE, REGION, TOPIC, VISIBILITY_TIMEOUT } from './queue-flags.js';
import { AWS_OPS, FAUXQS, awsWhere, checkAws } from './sqs-driver.js';

/** @type {import('./queue-driver.js').QueueFlag} */
const RAW = {
  spec: { type: 'boolean', describe: 'SNS→SQS raw message delivery (with --create)' },
  onlyHere: 'it is an SNS→SQS subscription setting',
};

/** @type {import('./queue-driver.js').QueueDriver} */
export const sns = {
  name: 'sns',
  service: 'SNS',
  sides: ['publish'],
  options: {
    endpoint: ENDPOINT,
    region: REGION,
    topic: TOPIC,
    queue: QUEUE,
    create: CREATE,
    raw: RAW,
    visibilityTimeout: VISIBILITY_TIMEOUT,
  },
  check: (flags, bad) => checkAws(flags, sns.options, bad),
  limits: AWS_LIMITS,
  open: async (_side, o, loaded) =>
    (await importThen(import('./sns.js'), loaded)).openSns({
      endpoint: o.endpoint,
      region: o.region,
      create: o.create,
      visibilityTimeout: o.visibilityTimeout,
      topic: o.topic,
      queue: o.queue,
      raw: o.raw,
    }),
  describe: (_side, o) => `SNS→SQS (raw delivery ${o.raw ? 'on' : 'off'})`,
  where: (o) => awsWhere('SNS', o),
  // the queue is part of the route only when this run made it
  facts: (o) => ({
    kind: 'sns',
    ...(o.endpoint ? { endpoint: o.endpoint } : { cloud: 'aws' }),
    region: o.region ?? null,
    topic: o.topic,
    queue: o.create ? o.queue : null,
    rawDelivery: !!o.raw,
  }),
  ops: { ...AWS_OPS, service: 'SNS', open: async (where, name) => (await import('./aws-ops.js')).snsService(where, name) },
  emulator: FAUXQS,
};
