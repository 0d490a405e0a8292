/** --local: a throwaway Redis (or cluster) that lives exactly as long as one run. */
import { startRedis } from './redis.js';

/**
 * @param {Record<string, any>} a parsed flags (cluster, masters, replicas, quiet)
 */
export async function startLocalFor(a) {
  const local = await startRedis({ cluster: !!a.cluster, masters: a.masters, replicas: a.replicas });
  if (!a.quiet) {
    const shape = a.cluster ? `cluster of ${local.nodes.length} nodes` : `standalone Redis${local.nodes.length > 1 ? ` with ${local.nodes.length - 1} replica(s)` : ''}`;
    process.stderr.write(`rqbench: started a local ${shape} at ${local.url}\n`);
  }
  return local;
}
