/** `rqbench kv`: a key-value workload of the user's shape, open-loop, with each node's share of it. */
import { connectionOptions } from '../plans/connection.js';
import { kvOptions, kvPlan } from '../plans/kv-plan.js';
import { outputOptions } from '../plans/output.js';
import { metricsOptions } from '../plans/metrics-plan.js';
import { runKv } from '../workloads/kv/run-kv.js';
import { KV_OPS } from '../workloads/kv/kv-ops.js';
import { reportRun } from './report-run.js';

export const command = 'kv';
export const describe =
  "a key-value workload of your shape (operation mix or a YCSB preset, key popularity, value sizes, arrivals), open-loop, with each node's share of the operations and CPU";

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return kvOptions(metricsOptions(outputOptions(connectionOptions(y))))
    .example('$0 kv --local --rate 20000 -d 10', '90 % GET / 10 % SET on uniform keys, a throwaway local Redis')
    .example('$0 kv --local --cluster --key-dist zipf:0.99 --rate 50000', 'Zipf keys on a throwaway 3-shard cluster: the hot shard named')
    .example(
      '$0 kv --url redis://10.0.0.5:6379 --cluster --preset ycsb-b --rate 100000 -t 4',
      "YCSB's read-mostly workload B, 4 client processes",
    )
    .example(
      '$0 kv --local --mix get:80,set:20 --sizes 128:7,1024:3 --arrivals poisson --ramp 0:1000,30:20000',
      'weighted value sizes, Poisson arrivals on a rising rate',
    )
    .epilog(
      `Operations: ${Object.entries(KV_OPS)
        .map(([k, v]) => `${k} = ${v.command}`)
        .join(
          '; ',
        )}. Each is timed from its intended start (coordinated omission corrected) and from its send; a --seed gives the same operations, keys, sizes and gaps again. docs/kv.md maps the YCSB presets to Redis commands.`,
    );
}

/** @param {Record<string, any>} a */
export function handler(a) {
  return reportRun(() => runKv(kvPlan(a)), a, 'rqbench kv');
}
