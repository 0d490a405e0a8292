/**
 * The flags more than one queue driver reads, declared once so --help describes each the same
 * way for every target, and what the seed's runs used as names (000_*.txt). A flag only one
 * system reads is declared in that system's driver module.
 */

/** The name a topic, queue and subscription get when no flag names them. */
export const DEFAULT_NAME = 'rqbench-updates';

/** @typedef {import('./queue-driver.js').QueueFlag} QueueFlag */

/** @type {QueueFlag} */
export const ENDPOINT = {
  spec: {
    type: 'string',
    requiresArg: true,
    describe:
      'endpoint of a compatible service or emulator (http://127.0.0.1:PORT for SQS/SNS, 127.0.0.1:PORT for Pub/Sub); omitted: the real cloud',
  },
};

/** @type {QueueFlag} */
export const CREATE = {
  spec: { type: 'boolean', describe: 'create the topic, queue, policy and subscription when missing' },
};

/** @type {QueueFlag} */
export const TOPIC = {
  spec: {
    type: 'string',
    requiresArg: true,
    describe: 'SNS topic (name with --create, or ARN) or Pub/Sub topic',
    defaultDescription: DEFAULT_NAME,
  },
  fill: DEFAULT_NAME,
};

/** @type {QueueFlag} */
export const QUEUE = {
  spec: {
    type: 'string',
    requiresArg: true,
    describe: 'SQS queue name or URL (with --target sns --create: subscribed to the topic)',
    defaultDescription: DEFAULT_NAME,
  },
  fill: DEFAULT_NAME,
};

/** @type {QueueFlag} */
export const REGION = {
  spec: { type: 'string', requiresArg: true, describe: 'AWS region', defaultDescription: 'the AWS SDK chain (AWS_REGION, ~/.aws/config)' },
};

/** @type {QueueFlag} */
export const VISIBILITY_TIMEOUT = {
  spec: {
    type: 'number',
    requiresArg: true,
    describe: 'SQS visibility timeout of a queue --create makes, s',
    defaultDescription: '30 (the SQS default)',
  },
  int: [0, 43_200],
};

/** @type {QueueFlag} `rqbench ops`: the SQS and SNS operations share one endpoint and region */
export const OPS_AWS_ENDPOINT = {
  spec: {
    type: 'string',
    requiresArg: true,
    describe: "SQS, SNS and S3 endpoint (an emulator: rqbench local sqs); omitted: AWS, with the SDK's credential chain",
  },
  form: { re: /^https?:\/\/[^\s]+$/, expected: 'an http(s):// URL (SQS, SNS, S3)' },
};

/** @type {QueueFlag} */
export const OPS_AWS_REGION = {
  spec: { type: 'string', requiresArg: true, describe: 'AWS region', defaultDescription: 'the AWS SDK chain' },
};

/** An SQS or SNS endpoint is a URL. */
export const AWS_ENDPOINT_FORM = { re: /^https?:\/\/[^\s]+$/, expected: 'an http(s):// URL' };

/**
 * A driver's options from the flags, the unset ones filled, as a new frozen object (the flags
 * are left as they are): what a driver's check returns once its own checks passed.
 * @param {Readonly<Record<string, any>>} flags
 * @param {Record<string, QueueFlag>} options the driver's
 */
export function ownOptions(flags, options) {
  return Object.freeze(Object.fromEntries(Object.entries(options).map(([k, f]) => [k, flags[k] ?? f.fill])));
}
