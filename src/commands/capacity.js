/**
 * `rqbench capacity`: the highest rate the target holds for a data model, topology and writers,
 * found by ramping and bisecting real producer runs, with the node that limits it and a
 * projection of where each node saturates.
 */
import { connectionOptions } from '../plans/connection.js';
import { producerOptions } from '../plans/producer-plan.js';
import { outputOptions } from '../plans/output.js';
import { SEARCH_OWNED, capacityOptions } from '../plans/capacity-plan.js';
import { metricsOptions } from '../plans/metrics-plan.js';
import { instanceOf } from '../plans/instance.js';
import { UsageError } from '../usage-error.js';
import { prepareCapacity } from '../experiments/capacity/capacity-args.js';
import { runCapacity } from '../experiments/capacity/run-capacity.js';
import { commandLine } from '../experiments/children.js';
import { redactString } from '../record/redact.js';
import { commandArgv, exitNow, setExitCode, writeErr, writeOut } from '../command-io.js';

const PROG = 'rqbench capacity';

export const command = 'capacity';
export const describe =
  'find the highest rate that holds (ramp, then bisection), what limits it, and where each node saturates; writes capacity.md, capacity.json and report.html';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  const built = capacityOptions(metricsOptions(outputOptions(producerOptions(connectionOptions(y)))));
  // the producer flags the search sets itself are refused: --help does not list them
  for (const flag of Object.keys(SEARCH_OWNED)) built.hide(flag);
  return built
    .example('$0 capacity --local -t 2 --slo-p99 50', 'a throwaway local Redis: the highest zset rate with p99 ≤ 50 ms')
    .example('$0 capacity --local --node-cpus 0.5 -t 2', 'the same on a node capped at half a core')
    .example(
      '$0 capacity --url redis://10.0.0.5:6379 --cluster -t 8 --ns 10 --instance-type r6g.large --hourly-price 0.1008',
      'an ElastiCache cluster, with its price for the cost table',
    );
}

/**
 * @param {Record<string, any>} a parsed flags
 */
export async function handler(a) {
  let prepared;
  try {
    prepared = prepareCapacity(a);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    writeErr(`${PROG}: ${e.message}\n`);
    exitNow(2);
  }
  const { plan } = prepared;
  // the command as it can be pasted into a shell, through the one redaction (its words quoted: a
  // password with a space is one quoted value to it)
  const command = redactString(commandLine('rqbench', commandArgv()));
  const out = await runCapacity({ ...prepared, command, instance: instanceOf(plan) });
  if (plan.json) writeOut(`${JSON.stringify(out.result, null, 2)}\n`);
  else if (!plan.quiet) writeOut(`${out.result.answer}\n${out.result.projectionLine}\n${out.result.noiseLine}\n`);
  writeErr(`${PROG}: wrote ${out.dir} (capacity.md, report.html)\n`);
  setExitCode(out.exitCode);
  // the last scrape finds the final values (Ctrl-C ends the wait)
  if (out.live && out.exitCode !== 130) await out.live.hub.linger();
  else await out.live?.hub.close();
}
