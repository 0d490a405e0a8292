/** `failover[:<master>]`: CLUSTER FAILOVER on a replica of the master (default: master 1), until roles have swapped. */
import { nodeRef } from './action-common.js';
import { pickMaster, replicasOf, slotCount } from './plan.js';
import { waitSettled } from './settle.js';
import { parseInfo } from '../transports/redis.js';

/**
 * @param {import('./action-common.js').ActionContext} ctx
 */
export async function failover({ admin, action, signal, detail }) {
  const nodes = await admin.topology();
  const master = pickMaster(nodes, action.master, 'first');
  const replica = await linkedReplica(admin, replicasOf(nodes, master));
  if (!replica) throw new Error(`master ${master.addr} has no replica in sync to fail over to`);
  Object.assign(detail, { from: nodeRef(master), to: nodeRef(replica), slots: slotCount(master) });
  const t0 = Date.now();
  await admin.call(replica.addr, 'CLUSTER', 'FAILOVER');
  // Swapped: everyone sees the replica as the master and the old master as its replica.
  await waitSettled(admin, `${replica.addr} taking over from ${master.addr}`, {
    signal,
    check: (view, addr) => {
      const now = new Map(view.map((n) => [n.id, n]));
      const ok = now.get(replica.id)?.role === 'master' && now.get(master.id)?.masterId === replica.id;
      return ok ? [] : [`${addr} does not see the roles swapped yet`];
    },
  });
  detail.swapMs = Date.now() - t0;
}

/**
 * The first replica whose replication link is up (a coordinated failover needs one in sync).
 * @param {import('./admin.js').ClusterAdmin} admin
 * @param {import('../transports/redis.js').RedisNode[]} replicas
 */
async function linkedReplica(admin, replicas) {
  for (const r of replicas) {
    const info = parseInfo(/** @type {string} INFO replies with text */ (await admin.call(r.addr, 'INFO', 'replication').catch(() => '')));
    if (info.master_link_status === 'up') return r;
  }
  return undefined;
}
