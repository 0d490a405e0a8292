/** `rqbench ops`: per-operation latency, one call at a time, in seed 003's table. */
import { checkConnection, connectionOptions } from '../options/connection.js';
import { outputOptions } from '../options/output.js';
import { bad } from '../usage-error.js';
import { opsServices, runOps } from '../workloads/single-ops/run-ops.js';
import { opsFlags, queueEmulators } from '../transports/queue-drivers.js';
import { kebab } from '../options/queue.js';
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
    checkConnection(a);
    checkOps(a);
    return runOps(a);
  }, a, 'rqbench ops');
}

/** @param {Record<string, any>} a */
function checkOps(a) {
  const only = String(a.only).split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const services = opsServices();
  const unknown = only.filter((s) => !services.includes(s));
  if (!only.length || unknown.length) throw bad('--only', `a comma-separated list of ${services.join(', ')}`, a.only);
  a.only = only;
  for (const [key, flag] of opsFlags()) {
    if (a[key] !== undefined && flag.form && !flag.form.re.test(String(a[key]))) throw bad(`--${kebab(key)}`, flag.form.expected, a[key]);
  }
  if (!(Number.isFinite(a.warmup) && a.warmup >= 0 && a.warmup <= 3600)) throw bad('--warmup', 'seconds from 0 to 3600', a.warmup);
  if (!(Number.isFinite(a.duration) && a.duration > 0 && a.duration <= 3600)) throw bad('--duration', 'seconds, more than 0 and at most 3600', a.duration);
}
