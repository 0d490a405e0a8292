/** `rqbench ops`: per-operation latency, one call at a time, in seed 003's table. */
import { connectionOptions } from '../plans/connection.js';
import { opsOptions, opsPlan } from '../plans/ops-plan.js';
import { outputOptions } from '../plans/output.js';
import { runOps } from '../workloads/single-ops/run-ops.js';
import { reportRun } from './report-run.js';

export const command = 'ops';
export const describe = 'latency of single operations per service: connect, first call, warm calls (seed 003 table)';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return opsOptions(outputOptions(connectionOptions(y)))
    .example('rqbench ops --local', 'GET, MGET, ZRANGEBYSCORE, SET, ZADD against a throwaway local Redis')
    .example('rqbench ops --url rediss://my-cache:6379 --cluster --warmup 2 -d 10', 'against a cluster, shorter')
    .example('rqbench ops --only sqs,sns --endpoint http://127.0.0.1:4566', 'SQS SendMessage/ReceiveMessage and SNS GetTopicAttributes/Publish on an emulator')
    .example('rqbench ops --local --only redis,sqs,sns,pubsub', 'every service, each on a throwaway local server or emulator');
}

/**
 * @param {Record<string, any>} a
 */
export function handler(a) {
  return reportRun(async () => {
    return runOps(opsPlan(a));
  }, a, 'rqbench ops');
}
