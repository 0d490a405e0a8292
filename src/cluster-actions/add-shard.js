/**
 * `add-shard[:<master>,<replica>,...]`: a new master and its replicas join the cluster, then the
 * new master takes its even share of slots from the others. On a cluster the local harness
 * started, the nodes are started here (1 master + replicas) and stopped with it; otherwise the
 * argument names running, empty, cluster-enabled nodes.
 */
import { nodeRef } from './action-common.js';
import { migrateSlots } from './migrate.js';
import { mastersInOrder, planFill, replicasOf } from './plan.js';
import { waitFor, waitSettled } from './settle.js';
import { parseInfo } from '../transports/redis.js';

const JOIN_TIMEOUT_MS = 30_000;

/**
 * @param {import('./action-common.js').ActionContext} ctx
 */
export async function addShard({ admin, action, local, log, signal, detail }) {
  const before = await admin.topology();
  const addrs = action.addrs ?? (await startLocalNodes(local, before));
  const [masterAddr, ...replicaAddrs] = addrs;
  const ids = await Promise.all(addrs.map((addr) => emptyNodeId(admin, addr)));
  const idOf = new Map(addrs.map((addr, i) => [addr, ids[i]]));
  detail.added = addrs.map((addr, i) => ({ id: ids[i], addr, role: i === 0 ? 'master' : 'replica' }));
  const t0 = Date.now();

  // Each new node meets one existing master by the address the cluster uses for it.
  const anchor = mastersInOrder(before)[0];
  await Promise.all(addrs.map((addr) => admin.call(addr, 'CLUSTER', 'MEET', anchor.host, anchor.port)));
  // Joined: every node knows every other, and the new ones see the cluster ok (before that
  // they refuse the keys MIGRATE brings them with CLUSTERDOWN).
  const everyone = [...before.filter((n) => !n.failed).map((n) => n.id), ...ids];
  detail.joinMs = await waitSettled(admin, 'the new nodes joining', {
    signal,
    timeoutMs: JOIN_TIMEOUT_MS,
    check: (view, addr) => {
      const known = new Set(view.map((n) => n.id));
      return everyone.every((id) => known.has(id)) ? [] : [`${addr} does not know every node yet`];
    },
  });
  for (const addr of replicaAddrs) await admin.call(addr, 'CLUSTER', 'REPLICATE', idOf.get(masterAddr));

  const nodes = await admin.topology();
  const master = nodes.find((n) => n.id === idOf.get(masterAddr));
  if (!master) throw new Error(`${masterAddr} joined but is not in the cluster's view`);
  const moves = planFill(nodes, master);
  const tally = Object.assign(detail, {
    from: moves.map((m) => ({ ...nodeRef(m.from), slots: m.slots.length })),
    slotsMoved: 0,
    keysMigrated: 0,
  });
  const t1 = Date.now();
  await migrateSlots(admin, moves, { masters: mastersInOrder(nodes), tally, label: 'add-shard', log, signal });
  detail.migrateMs = Date.now() - t1;
  const replicaIds = new Set(replicaAddrs.map((a) => idOf.get(a)));
  detail.settleMs = await waitSettled(admin, `${masterAddr} serving slots with its replicas in sync`, {
    signal,
    check: (view, addr) => {
      const ok = view.filter((n) => replicaIds.has(n.id) && n.masterId === master.id).length === replicaIds.size;
      return ok ? [] : [`${addr} does not see the new replicas of ${masterAddr} yet`];
    },
  });
  await waitFor(
    'the new replicas in sync',
    async () => {
      const links = /** @type {string[]} INFO replies with text */ (
        await Promise.all(replicaAddrs.map((a) => admin.call(a, 'INFO', 'replication')))
      );
      return replicaAddrs.filter((a, i) => parseInfo(links[i]).master_link_status !== 'up').map((a) => `${a} master_link_status is not up`);
    },
    { signal },
  );
  detail.tookMs = Date.now() - t0;
}

/**
 * Starts a master and as many replicas as the best-covered master has (kills and failovers
 * leave some masters without theirs) on the local harness.
 * @param {import('./action-common.js').LocalRedis|undefined} local
 * @param {import('../transports/redis.js').RedisNode[]} nodes
 * @returns {Promise<string[]>}
 */
async function startLocalNodes(local, nodes) {
  if (!local?.addNodes) {
    throw new Error(
      'add-shard on a cluster not started by rqbench needs the new nodes: add-shard:<host:port>,<host:port>,... (master first, then its replicas)',
    );
  }
  const replicas = Math.max(0, ...mastersInOrder(nodes).map((m) => replicasOf(nodes, m).length));
  const started = await local.addNodes(1 + replicas);
  return started.map((n) => `${n.host}:${n.port}`);
}

/**
 * The node's id, after checking it can join: cluster-enabled, alone, and holding no keys.
 * @param {import('./admin.js').ClusterAdmin} admin
 * @param {string} addr
 */
async function emptyNodeId(admin, addr) {
  const info = parseInfo(
    /** @type {string} CLUSTER INFO replies with text */ (
      await admin.call(addr, 'CLUSTER', 'INFO').catch((err) => {
        throw new Error(/cluster support disabled/i.test(err.message) ? `${addr} is not cluster-enabled` : err.message);
      })
    ),
  );
  if (Number(info.cluster_known_nodes) !== 1)
    throw new Error(`${addr} already belongs to a cluster (it knows ${info.cluster_known_nodes} nodes)`);
  const keys = Number(await admin.call(addr, 'DBSIZE'));
  if (keys > 0) throw new Error(`${addr} is not empty (${keys} keys)`);
  return String(await admin.call(addr, 'CLUSTER', 'MYID'));
}
