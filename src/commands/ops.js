/** `rqbench ops`: per-operation latency, one call at a time, in seed 003's table. */
import { checkConnection, connectionOptions } from '../options/connection.js';
import { outputOptions } from '../options/output.js';
import { bad } from '../options/usage-error.js';
import { OPS_SERVICES, runOps } from '../ops/run-ops.js';
import { reportRun } from './report-run.js';

export const command = 'ops';
export const describe = 'latency of single operations per service: connect, first call, warm calls (seed 003 table)';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  const g = 'Operations:';
  return outputOptions(connectionOptions(y))
    .option('only', { type: 'string', requiresArg: true, default: 'redis', group: g, describe: `services, comma-separated: ${OPS_SERVICES.join(', ')}` })
    .option('endpoint', { type: 'string', requiresArg: true, group: g, describe: 'SQS/SNS endpoint (an emulator: rqbench local sqs); omitted: AWS, with the SDK\'s credential chain' })
    .option('region', { type: 'string', requiresArg: true, group: g, describe: 'AWS region', defaultDescription: 'the AWS SDK chain' })
    .option('local', { type: 'boolean', default: false, group: 'Connection:', describe: 'start what the chosen services need and no flag names: a throwaway Redis (or cluster with --cluster), the SQS/SNS emulator (fauxqs), the Pub/Sub emulator' })
    .option('pubsub-endpoint', { type: 'string', requiresArg: true, group: g, describe: 'Pub/Sub endpoint, host:port (an emulator: rqbench local pubsub); omitted: Google Cloud, with ADC' })
    .option('project', { type: 'string', requiresArg: true, group: g, describe: 'GCP project', defaultDescription: 'GOOGLE_CLOUD_PROJECT or the credential chain' })
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
    checkConnection(a);
    checkOps(a);
    return runOps(a);
  }, a, 'rqbench ops');
}

/** @param {Record<string, any>} a */
function checkOps(a) {
  const only = String(a.only).split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const unknown = only.filter((s) => !OPS_SERVICES.includes(s));
  if (!only.length || unknown.length) throw bad('--only', `a comma-separated list of ${OPS_SERVICES.join(', ')}`, a.only);
  a.only = only;
  if (a.endpoint !== undefined && !/^https?:\/\/[^\s]+$/.test(a.endpoint)) throw bad('--endpoint', 'an http(s):// URL (SQS/SNS)', a.endpoint);
  if (a.pubsubEndpoint !== undefined && !/^[^\s/]+:\d+$/.test(a.pubsubEndpoint)) throw bad('--pubsub-endpoint', 'host:port (e.g. 127.0.0.1:8085)', a.pubsubEndpoint);
  if (!(Number.isFinite(a.warmup) && a.warmup >= 0 && a.warmup <= 3600)) throw bad('--warmup', 'seconds from 0 to 3600', a.warmup);
  if (!(Number.isFinite(a.duration) && a.duration > 0 && a.duration <= 3600)) throw bad('--duration', 'seconds, more than 0 and at most 3600', a.duration);
}
