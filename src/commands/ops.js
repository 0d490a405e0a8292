/** `rqbench ops`: per-operation latency, one call at a time, in seed 003's table. */
import { connectionOptions } from '../plans/connection.js';
import { opsPlan } from '../plans/ops-plan.js';
import { outputOptions } from '../plans/output.js';
import { opsServices, runOps } from '../workloads/single-ops/run-ops.js';
import { opsFlags, queueEmulators } from '../transports/queue-drivers.js';
import { kebab } from '../plans/queue-plan.js';
import { reportRun } from './report-run.js';

export const command = 'ops';
export const describe = 'latency of single operations per service: connect, first call, warm calls (seed 003 table)';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  const g = 'Operations:';
  const emulators = queueEmulators().map((e) => `the ${e.label} emulator${e.tool ? ` (${e.tool})` : ''}`);
  let built = outputOptions(connectionOptions(y))
    .option('only', { type: 'string', requiresArg: true, default: 'redis', group: g, describe: `services, comma-separated: ${opsServices().join(', ')}` });
  // where each queue service is: the queue drivers' flags
  for (const [key, flag] of opsFlags()) built = built.option(kebab(key), { ...flag.spec, group: g });
  return built
    .option('local', { type: 'boolean', default: false, group: 'Connection:', describe: `start what the chosen services need and no flag names: a throwaway Redis (or cluster with --cluster), ${emulators.join(', ')}` })
    .option('warmup', { type: 'number', requiresArg: true, default: 5, group: g, describe: 'seconds of unrecorded calls per operation first' })
    .option('duration', { alias: 'd', type: 'number', requiresArg: true, default: 15, group: g, describe: 'seconds of measured calls per operation' })
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
