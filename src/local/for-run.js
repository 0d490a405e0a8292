/** --local: a throwaway Redis (or cluster) that lives exactly as long as one run. */
import { startRedis } from './local-redis.js';

/**
 * Runs `fn` against a local server when the plan says --local (with a new frozen plan pointed
 * at it), else with the plan as it is.
 * @template T
 * @param {Readonly<Record<string, any>>} a a run's plan (local, cluster, masters, replicas, quiet)
 * @param {(plan: Readonly<Record<string, any>>, local: import('./local-redis.js').LocalRedis|null) => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withLocal(a, fn) {
  if (!a.local) return fn(a, null);
  const local = await startRedis({ cluster: !!a.cluster, masters: a.masters, replicas: a.replicas });
  try {
    if (!a.quiet) {
      const shape = a.cluster ? `cluster of ${local.nodes.length} nodes` : `standalone Redis${local.nodes.length > 1 ? ` with ${local.nodes.length - 1} replica(s)` : ''}`;
      process.stderr.write(`rqbench: started a local ${shape} at ${local.url}\n`);
    }
    return await fn(Object.freeze({ ...a, host: local.host, port: local.port }), local);
  } finally {
    await local.stop();
  }
}
