/** --local: a throwaway Redis (or cluster) that lives exactly as long as one run. */
import { startRedis } from './local-redis.js';
import { describeCap } from './cpu-cap.js';
import { writeErr } from '../command-io.js';
import { startCounting } from './count-run.js';

/**
 * Runs `fn` against a local server when the plan says --local (with a new frozen plan pointed
 * at it), else with the plan as it is.
 * @template T
 * @param {Readonly<Record<string, any>>} a a run's plan (local, cluster, masters, replicas, nodeCpus, quiet)
 * @param {(plan: Readonly<Record<string, any>>, local: import('./local-redis.js').LocalRedis|null,
 *   counter: import('./callgrind.js').InstructionCounter|null) => Promise<T>} fn with --count-instructions, the counter
 *   of the nodes, their idle rate already measured
 * @returns {Promise<T>}
 */
export async function withLocal(a, fn) {
  if (!a.local) return fn(a, null, null);
  const counting = a.countInstructions ? startCounting(a) : null;
  let local;
  try {
    local = await startRedis({
      cluster: !!a.cluster,
      masters: a.masters,
      replicas: a.replicas,
      ...(a.nodeCpus !== undefined && { cpus: a.nodeCpus }),
      ...counting?.options,
    });
  } catch (e) {
    // the flag's name is known here, not where the cap failed
    if (e.code === 'ECPUCAP') e.message = `--node-cpus: ${e.message}`;
    throw e;
  }
  try {
    if (!a.quiet) {
      const shape = a.cluster
        ? `cluster of ${local.nodes.length} nodes`
        : `standalone Redis${local.nodes.length > 1 ? ` with ${local.nodes.length - 1} replica(s)` : ''}`;
      writeErr(`rqbench: started a local ${shape} at ${local.url}${local.cpus ? `, ${describeCap(local.cpus)}` : ''}\n`);
    }
    const counter = counting ? await counting.idle(local) : null;
    return await fn(Object.freeze({ ...a, host: local.host, port: local.port }), local, counter);
  } finally {
    await local.stop();
  }
}

/**
 * What a run's description says of a local target: " (local, started for this run)", with its
 * CPU cap when there is one, so a summary shows what instance it emulated.
 * @param {import('./local-redis.js').LocalRedis|null} local
 * @returns {string}
 */
export function localNote(local) {
  if (!local) return '';
  return ` (local, started for this run${local.cpus ? `, ${describeCap(local.cpus)}` : ''})`;
}
