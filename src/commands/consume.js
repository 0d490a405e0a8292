/** `rqbench consume` (and `node src/consumer.js`): the seed-compatible Redis consumer. */
import { connectionOptions } from '../plans/connection.js';
import { consumerOptions, consumerPlan } from '../plans/consumer-plan.js';
import { outputOptions } from '../plans/output.js';
import { metricsOptions } from '../plans/metrics-plan.js';
import { runConsumer } from '../workloads/items/run-consumer.js';
import {
  flagDefaults,
  queueConsumerOptions,
  rejectQueueFlags,
  rejectRedisFlags,
  REDIS_CONSUMER_ONLY,
  queueConsumerPlan,
} from '../plans/queue-plan.js';
import { reportRun } from './report-run.js';

export const command = 'consume';
export const describe = 'read the live items the producer writes, every period, and measure it (seed 002 consumer)';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  const built = outputOptions(metricsOptions(queueConsumerOptions(consumerOptions(connectionOptions(y)))));
  // what each flag is when not given: a queue run refuses the Redis flags that differ from it
  defaults = flagDefaults(built);
  return built
    .example('node src/consumer.js --url redis://10.0.0.5:6379 --cluster', 'every live item each second, from replicas (the seed)')
    .example('node src/consumer.js --cluster --limit 1000 -p 250 --readers 8', 'the newest 1000, 4 times a second, 8 readers')
    .example(
      'node src/consumer.js --target sqs --queue updates --threads 4 --cache redis --cache-url redis://10.0.0.5:6379 --metrics-port 9100',
      "the seed's realtime-updates server on SQS",
    );
}

/** @type {Record<string, unknown>} */
let defaults = {};

/**
 * @param {Record<string, any>} a
 * @param {string} prog
 */
export function handler(a, prog = 'rqbench consume') {
  // Redis is no queue driver: every other --target is one, named and checked by the queue drivers;
  // the queue SDKs take seconds to load: only a queue run loads them
  const run =
    a.target === 'redis'
      ? () => {
          rejectQueueFlags(a, 'consume');
          return runConsumer(consumerPlan(a));
        }
      : async () => {
          rejectRedisFlags(a, defaults, REDIS_CONSUMER_ONLY);
          const plan = queueConsumerPlan(a);
          return (await import('../workloads/queue-updates/run-queue-consumer.js')).runQueueConsumer(plan);
        };
  return reportRun(run, a, prog);
}
