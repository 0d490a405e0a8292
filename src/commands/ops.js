/** `rqbench ops`: per-operation client overhead and latency, one call at a time, in seed 003's tables. */
import { connectionOptions } from '../plans/connection.js';
import { opsOptions, opsPlan } from '../plans/ops-plan.js';
import { outputOptions } from '../plans/output.js';
import { runOps } from '../workloads/single-ops/run-ops.js';
import { OVERHEAD_HOW } from '../runs/ops/ops-table.js';
import { reportRun } from './report-run.js';

export const command = 'ops';
export const describe = 'client overhead and latency of single operations per service: connect, first call, warm calls (seed 003 tables)';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return opsOptions(outputOptions(connectionOptions(y)))
    .example('rqbench ops --local', 'GET, MGET, ZRANGEBYSCORE, SET, ZADD against a throwaway local Redis')
    .example('rqbench ops --url rediss://my-cache:6379 --cluster --warmup 2 -d 10', 'against a cluster, shorter')
    .example(
      'rqbench ops --only sqs,sns --endpoint http://127.0.0.1:4566',
      'SQS SendMessage/ReceiveMessage and SNS GetTopicAttributes/Publish on an emulator',
    )
    .example(
      'rqbench ops --local --only redis,sqs,sns,pubsub',
      'Redis and the queue services, each on a throwaway local server or emulator',
    )
    .example(
      'rqbench ops --local --only s3,sns,sts,cloudwatch,events,dynamodb,pinpoint',
      "seed 003's 7 AWS services: S3 and SNS on fauxqs, the rest on moto's server (npm run install:moto)",
    )
    .example('rqbench ops --only sts,dynamodb --region eu-west-1', "against AWS itself, credentials from the SDK's chain")
    .epilog(
      `Two tables: the client's overhead per call (seed 003's quantity) and the whole call, send to reply. ${OVERHEAD_HOW} An operation the endpoint does not implement (an emulator's gap) is a row saying "not emulated", not a failure. Local stand-ins: fauxqs for SQS, SNS and S3; the Pub/Sub emulator; moto's server for STS, CloudWatch, CloudWatch Events, DynamoDB and Pinpoint.`,
    );
}

/**
 * @param {Record<string, any>} a
 */
export function handler(a) {
  return reportRun(
    async () => {
      return runOps(opsPlan(a));
    },
    a,
    'rqbench ops',
  );
}
