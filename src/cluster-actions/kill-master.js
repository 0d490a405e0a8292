/**
 * `kill-master[:<master>]`: kills a master (default: master 1) the hard way, then waits until
 * one of its replicas has taken over and every live node reports cluster_state:ok.
 * A local process gets SIGKILL; a remote node gets DEBUG SEGFAULT, which most servers refuse
 * unless started with enable-debug-command (managed services never allow it).
 */
import { isAlive } from '../local/process.js';
import { localProcess, nodeRef } from './action-common.js';
import { pickMaster, replicasOf, slotCount, slotsOf } from './plan.js';
import { waitSettled } from './settle.js';
import { slotTable } from '../transports/redis.js';

/** A failover with cluster-node-timeout 15 s (the default) takes ~20 s; leave room beyond that. */
const TAKEOVER_TIMEOUT_MS = 60_000;

/**
 * @param {import('./action-common.js').ActionContext} ctx
 */
export async function killMaster({ admin, action, local, signal, detail }) {
  const nodes = await admin.topology();
  const master = pickMaster(nodes, action.master, 'first');
  const replicas = replicasOf(nodes, master);
  if (replicas.length === 0) throw new Error(`master ${master.addr} has no replica: killing it would leave its slots unserved`);
  const firstSlot = slotsOf(master)[0];
  Object.assign(detail, { killed: nodeRef(master), slots: slotCount(master) });
  // what the replicas had not received yet is what the kill can lose (acknowledged writes included)
  detail.replication = await replicationSnapshot(admin, master, replicas);
  const t0 = Date.now();
  detail.method = await kill(admin, master, localProcess(local, master));
  admin.drop(master.addr);
  const replicaIds = new Set(replicas.map((r) => r.id));
  let promoted;
  await waitSettled(admin, `a replica of ${master.addr} taking over`, {
    signal,
    timeoutMs: TAKEOVER_TIMEOUT_MS,
    skip: (n) => n.id === master.id,
    check: (view, addr) => {
      const owner = view.find((n) => n.addr === slotTable(view)[firstSlot]);
      if (!owner || !replicaIds.has(owner.id)) return [`${addr} does not see a replica of ${master.addr} serving its slots yet`];
      promoted = owner;
      return [];
    },
  });
  detail.recoverMs = Date.now() - t0;
  detail.promoted = nodeRef(/** @type {any} */ (promoted));
}

/**
 * The master's replication offset and each replica's, read together right before the kill
 * (each from the node itself: the master's own view of its replicas lags by up to a second).
 * @returns {Promise<{ masterOffset: number, replicas: Array<{ addr: string, offset: number }>, lagBytes: number } | { error: string }>}
 */
async function replicationSnapshot(admin, master, replicas) {
  const offsetOf = (text, field) => Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(String(text))?.[1] ?? NaN);
  try {
    const [m, ...rs] = await Promise.all([master, ...replicas].map((n) => admin.call(n.addr, 'INFO', 'replication')));
    const masterOffset = offsetOf(m, 'master_repl_offset');
    const out = replicas.map((r, i) => ({ addr: r.addr, offset: offsetOf(rs[i], 'slave_repl_offset') }));
    const best = Math.max(...out.map((r) => r.offset));
    return { masterOffset, replicas: out, lagBytes: Math.max(0, masterOffset - best) };
  } catch (e) {
    return { error: e.message };
  }
}

/**
 * @returns {Promise<string>} how it was killed
 */
async function kill(admin, master, proc) {
  if (proc && isAlive(proc.pid)) {
    process.kill(proc.pid, 'SIGKILL');
    return `SIGKILL pid ${proc.pid}`;
  }
  try {
    await admin.call(master.addr, 'DEBUG', 'SEGFAULT');
  } catch (err) {
    // The connection dropping is the crash; an error reply is a refusal.
    if (/closed|ECONNRESET|EPIPE/i.test(err.message)) return 'DEBUG SEGFAULT';
    throw new Error(
      `cannot kill ${master.addr}: DEBUG SEGFAULT was refused (${err.message.split('.')[0]}); ` +
        'the server needs enable-debug-command yes (or local, from its own host), or use failover instead',
      { cause: err },
    );
  }
  throw new Error(`cannot kill ${master.addr}: DEBUG SEGFAULT returned instead of crashing the server`);
}
