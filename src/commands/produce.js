/** `rqbench produce` (and `node src/producer.js`): the seed-compatible Redis producer. */
import { connectionOptions } from '../plans/connection.js';
import { producerOptions, producerPlan } from '../plans/producer-plan.js';
import { outputOptions } from '../plans/output.js';
import { metricsOptions } from '../plans/metrics-plan.js';
import { runProducer } from '../workloads/items/run-producer.js';
import {
  flagDefaults,
  publisherOptions,
  rejectQueueFlags,
  rejectRedisFlags,
  REDIS_PRODUCER_ONLY,
  publisherPlan,
} from '../plans/queue-plan.js';
import { reportRun } from './report-run.js';

export const command = 'produce';
export const describe = 'write items to Redis at a held rate and measure it (seed 002 producer)';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  const built = outputOptions(metricsOptions(publisherOptions(producerOptions(connectionOptions(y)))));
  // what each flag is when not given: a queue run refuses the Redis flags that differ from it
  defaults = flagDefaults(built);
  return built
    .example('node src/producer.js --local --cluster -q 40000 -t 2 -d 20', 'a throwaway local 3-shard cluster, 2 writers, 40k items/s')
    .example(
      'node src/producer.js --url redis://10.0.0.5:6379 --cluster -q 300000 -t 8 --ns 10 --same-slot',
      'all 8 writers here, 10 sorted sets forced into one slot',
    )
    .example('rqbench produce --url redis://10.0.0.5:6379 --cluster -q 300000 -t 8 -a 1', 'writer 1 of 8 (run -a 2..8 on other hosts)')
    .example(
      'rqbench produce --target sns --topic updates --queue updates --create --rate 45 --batch-size 1000',
      "the seed's realtime updates through SNS→SQS",
    );
}

/** @type {Record<string, unknown>} */
let defaults = {};

/**
 * @param {Record<string, any>} a
 * @param {string} prog
 */
export function handler(a, prog = 'rqbench produce') {
  // Redis is no queue driver: every other --target is one, named and checked by the queue drivers;
  // the queue SDKs take seconds to load: only a queue run loads them
  const run =
    a.target === 'redis'
      ? () => {
          rejectQueueFlags(a, 'publish');
          return runProducer(producerPlan(a));
        }
      : async () => {
          rejectRedisFlags(a, defaults, REDIS_PRODUCER_ONLY);
          const plan = publisherPlan(a);
          return (await import('../workloads/queue-updates/run-queue-publisher.js')).runPublisher(plan);
        };
  return reportRun(run, a, prog);
}
