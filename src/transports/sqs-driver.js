/**
 * The SQS driver (queue-driver.js): publishes with SendMessage, consumes with long-polling
 * pollers that delete what they applied (or, --delete-when before-apply, what they received); its ops are SendMessage and ReceiveMessage; its local
 * stand-in is fauxqs, which serves SNS too. The SDK loads only when something is opened (sqs.js).
 */
import { importThen } from './queue-driver.js';
import { AWS_LIMITS } from './queue-limits.js';
import {
  AWS_ENDPOINT_FORM,
  CREATE,
  ENDPOINT,
  OPS_AWS_ENDPOINT,
  OPS_AWS_REGION,
  QUEUE,
  REGION,
  VISIBILITY_TIMEOUT,
  ownOptions,
} from './queue-flags.js';

/** @typedef {import('./queue-driver.js').QueueDriver} QueueDriver */
/** @typedef {import('./queue-driver.js').QueueFlag} QueueFlag */

/** @type {QueueFlag} */
const WAIT_SECONDS = {
  spec: { type: 'number', requiresArg: true, describe: 'SQS long polling WaitTimeSeconds (0..20)', defaultDescription: '20' },
  side: 'consume',
  fill: 20,
  int: [0, 20],
};

/**
 * When a poller deletes what it received. The seed's readers deleted first ("Server side
 * processing": from the messages in hand, "after they were deleted in the queue", to applied);
 * after the apply is the safe order (a reader that dies before applying leaves the messages to
 * come back), and the default.
 * @type {QueueFlag}
 */
const DELETE_WHEN = {
  spec: {
    type: 'string',
    requiresArg: true,
    choices: ['after-apply', 'before-apply'],
    describe: 'DeleteMessageBatch after the updates are applied, or before as the seed did (a reader dying between loses them)',
    defaultDescription: 'after-apply',
  },
  side: 'consume',
  fill: 'after-apply',
  onlyHere: 'it is an SQS poller setting',
};

/**
 * Where an AWS service is, for error lines: `SQS at http://127.0.0.1:4566`, `SNS in the AWS
 * cloud (region eu-west-1)`.
 * @param {string} service
 * @param {{ endpoint?: string, region?: string }} opts
 */
export function awsWhere(service, opts) {
  if (opts.endpoint) return `${service} at ${opts.endpoint}`;
  return `${service} in the AWS cloud${opts.region ? ` (region ${opts.region})` : ''}`;
}

/**
 * The options an AWS driver reads, checked (the endpoint is a URL) and filled, as a new object.
 * @param {Readonly<Record<string, any>>} flags
 * @param {Record<string, QueueFlag>} options
 * @param {(flag: string, accepted: string, got?: unknown) => Error} bad
 */
export function checkAws(flags, options, bad) {
  if (flags.endpoint !== undefined && !AWS_ENDPOINT_FORM.re.test(flags.endpoint))
    throw bad('--endpoint', AWS_ENDPOINT_FORM.expected, flags.endpoint);
  return ownOptions(flags, options);
}

/** fauxqs in this process: SQS and SNS on one endpoint. */
export const FAUXQS = Object.freeze({
  name: 'sqs',
  label: 'SQS/SNS',
  tool: 'fauxqs',
  inProcess: true,
  example: 'an SQS + SNS + S3 emulator (fauxqs)',
  missing: async () => null, // an npm dependency: always there
  start: async () => (await import('../local/sqs-emulator.js')).startSqs(),
  /** @param {{ endpoint: string }} emu @param {string} secs */
  ready: (emu, secs) =>
    [
      `Local SQS + SNS + S3 emulator (fauxqs) ready in ${secs} s`,
      `endpoint: ${emu.endpoint}`,
      '',
      'Use:',
      `  rqbench produce --target sns --endpoint ${emu.endpoint} --topic updates --queue updates --create --rate 10 --batch-size 100`,
      `  rqbench consume --target sqs --endpoint ${emu.endpoint} --queue updates --threads 4`,
      `  aws --endpoint-url ${emu.endpoint} sqs list-queues`,
      '',
      'Ctrl-C stops it (everything lives in memory).',
      '',
    ].join('\n'),
});

/** `rqbench ops --only sqs|sns`: one endpoint and region for both; fauxqs's region when it stands in. */
export const AWS_OPS = Object.freeze({
  options: { endpoint: OPS_AWS_ENDPOINT, region: OPS_AWS_REGION },
  endpointKey: 'endpoint',
  /** @param {Record<string, any>} flags @param {{ endpoint: string, region?: string }|null} emu */
  where: (flags, emu) => ({ endpoint: emu?.endpoint ?? flags.endpoint, region: flags.region ?? emu?.region }),
  /** @param {Record<string, any>} w */
  shown: (w) => w.endpoint ?? `AWS${w.region ? ` ${w.region}` : ''}`,
});

/** @type {QueueDriver} */
export const sqs = {
  name: 'sqs',
  service: 'SQS',
  sides: ['publish', 'consume'],
  options: {
    endpoint: ENDPOINT,
    region: REGION,
    queue: QUEUE,
    create: CREATE,
    visibilityTimeout: VISIBILITY_TIMEOUT,
    waitSeconds: WAIT_SECONDS,
    deleteWhen: DELETE_WHEN,
  },
  check: (flags, bad) => checkAws(flags, sqs.options, bad),
  limits: AWS_LIMITS,
  open: async (_side, o, loaded) =>
    (await importThen(import('./sqs.js'), loaded)).openSqs({
      endpoint: o.endpoint,
      region: o.region,
      create: o.create,
      visibilityTimeout: o.visibilityTimeout,
      queue: o.queue,
    }),
  describe: (side, o, { threads } = {}) =>
    side === 'publish'
      ? 'SQS'
      : `${threads} SQS poller(s) (WaitTimeSeconds ${o.waitSeconds}, 10 messages per receive, DeleteMessageBatch ${o.deleteWhen === 'before-apply' ? 'before' : 'after'} apply) on queue ${o.queue}`,
  where: (o) => awsWhere('SQS', o),
  facts: (o) => ({ kind: 'sqs', ...(o.endpoint ? { endpoint: o.endpoint } : { cloud: 'aws' }), region: o.region ?? null, queue: o.queue }),
  consumer: {
    cloud: 'Aws',
    timestamp: 'SNS Timestamp / SQS SentTimestamp',
    timestampHelp: 'SNS Timestamp (SQS SentTimestamp without SNS)',
    receive: {
      column: 'Reading off SQS',
      row: 'Reading off SQS (per receive that returned messages)',
      metric: 'AwsSqsReceiveMessageLatency',
      help: 'Reading off SQS: one ReceiveMessage that returned messages, microseconds',
    },
  },
  ops: { ...AWS_OPS, service: 'SQS', open: async (where, name) => (await import('./aws-ops.js')).sqsService(where, name) },
  emulator: FAUXQS,
};
