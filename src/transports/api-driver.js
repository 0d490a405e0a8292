/**
 * The AWS services rqbench only times (`rqbench ops`), beyond the queue drivers': S3 and the
 * seed's S3 Express table on the SQS/SNS/S3 emulator; STS, CloudWatch, CloudWatch Events,
 * DynamoDB and Pinpoint on moto's server, declared here with the flags that point at it. Each
 * service loads its SDK (aws-api-ops.js) only when opened.
 */
import { AWS_OPS, FAUXQS } from './sqs-driver.js';
import { OPS_AWS_REGION } from './queue-flags.js';

/** @typedef {import('./queue-driver.js').QueueFlag} QueueFlag */
/** @typedef {import('./queue-driver.js').QueueEmulator} QueueEmulator */
/** @typedef {{ name: string, ops: import('./queue-driver.js').QueueOps, emulator?: QueueEmulator }} OpsDriver */

/** moto's server, a child process: STS, CloudWatch, EventBridge, DynamoDB, Pinpoint and more on one endpoint. */
export const MOTO = Object.freeze({
  name: 'moto',
  label: 'AWS API',
  tool: 'moto',
  inProcess: false,
  example: "moto's server: STS, CloudWatch, EventBridge, DynamoDB, Pinpoint (needs npm run install:moto)",
  missing: async () => {
    const { findMotoServer, MOTO_INSTALL_HINT } = await import('../local/moto-emulator.js');
    return findMotoServer() ? null : MOTO_INSTALL_HINT;
  },
  start: async () => (await import('../local/moto-emulator.js')).startMoto(),
  /** @param {{ endpoint: string }} emu @param {string} secs */
  ready: (emu, secs) =>
    [
      `Local moto server ready in ${secs} s`,
      `endpoint: ${emu.endpoint}`,
      '',
      'Use:',
      `  rqbench ops --only sts,cloudwatch,events,dynamodb,pinpoint --api-endpoint ${emu.endpoint}`,
      `  aws --endpoint-url ${emu.endpoint} sts get-caller-identity`,
      '',
      'Ctrl-C stops it (everything lives in memory).',
      '',
    ].join('\n'),
});

/** @type {QueueFlag} */
const API_ENDPOINT = {
  spec: {
    type: 'string',
    requiresArg: true,
    describe: 'STS, CloudWatch, CloudWatch Events, DynamoDB and Pinpoint endpoint (moto: rqbench local moto)',
    defaultDescription: '--endpoint, or AWS',
  },
  form: { re: /^https?:\/\/[^\s]+$/, expected: 'an http(s):// URL' },
};

/** @type {QueueFlag} */
const ASSUME_ROLE_ARN = {
  spec: {
    type: 'string',
    requiresArg: true,
    describe: 'the role STS AssumeRole assumes (in AWS, one the caller may assume)',
    defaultDescription: 'arn:aws:iam::123456789012:role/rqbench-ops (an emulator takes any)',
  },
  form: { re: /^arn:aws[\w-]*:iam::\d{12}:role\/\S+$/, expected: 'an IAM role ARN (arn:aws:iam::<account>:role/<name>)' },
};

/** Where moto's services go: --api-endpoint, else --endpoint (one emulator for all, as LocalStack), else AWS. */
const API_OPS = Object.freeze({
  options: { region: OPS_AWS_REGION, apiEndpoint: API_ENDPOINT, assumeRoleArn: ASSUME_ROLE_ARN },
  endpointKey: 'apiEndpoint',
  /** @param {Record<string, any>} flags @param {{ endpoint: string, region?: string }|null} emu */
  where: (flags, emu) => ({
    endpoint: emu?.endpoint ?? flags.apiEndpoint ?? flags.endpoint,
    region: flags.region ?? emu?.region,
    roleArn: flags.assumeRoleArn,
  }),
  /** @param {Record<string, any>} w */
  shown: (w) => w.endpoint ?? `AWS${w.region ? ` ${w.region}` : ''}`,
});

/**
 * @param {string} name
 * @param {string} service
 * @param {string} open the function of aws-api-ops.js that makes the service
 * @param {typeof AWS_OPS | typeof API_OPS} where
 * @param {QueueEmulator} emulator
 * @returns {OpsDriver}
 */
const timed = (name, service, open, where, emulator) => ({
  name,
  ops: { ...where, service, open: async (w, n) => (await import('./aws-api-ops.js'))[open](w, n) },
  emulator,
});

/** In seed 003's order. @type {OpsDriver[]} */
export const AWS_API_DRIVERS = [
  timed('s3', 'S3', 's3Service', AWS_OPS, FAUXQS),
  timed('sts', 'STS', 'stsService', API_OPS, MOTO),
  timed('cloudwatch', 'CloudWatch', 'cloudWatchService', API_OPS, MOTO),
  timed('events', 'CloudWatch Events', 'eventsService', API_OPS, MOTO),
  timed('dynamodb', 'DynamoDB', 'dynamoDbService', API_OPS, MOTO),
  timed('pinpoint', 'Pinpoint', 'pinpointService', API_OPS, MOTO),
  timed('s3express', 'S3Express', 's3ExpressService', AWS_OPS, FAUXQS),
];
