/**
 * `remove-shard[:<master>]`: moves every slot of a master (default: the last one) evenly to the
 * others, then makes every remaining node forget it and its replicas. Nodes the local harness
 * started are shut down; a remote node is reset (CLUSTER RESET HARD) and left running.
 */
import { terminate } from '../local/process.js';
import { localProcess, nodeRef } from './action-common.js';
import { migrateSlots } from './migrate.js';
import { mastersInOrder, pickMaster, planDrain, replicasOf } from './plan.js';
import { waitSettled } from './settle.js';

/**
 * @param {import('./action-common.js').ActionContext} ctx
 */
export async function removeShard({ admin, action, local, log, signal, detail }) {
  const nodes = await admin.topology();
  const master = pickMaster(nodes, action.master, 'last');
  // Taken now: a master emptied of slots turns itself (and its replicas) into replicas of another master.
  const leaving = [master, ...replicasOf(nodes, master)];
  const moves = planDrain(nodes, master);
  const tally = Object.assign(detail, {
    removed: leaving.map((n) => ({ ...nodeRef(n), role: n.role })),
    to: moves.map((m) => ({ ...nodeRef(m.to), slots: m.slots.length })),
    slotsMoved: 0,
    keysMigrated: 0,
  });
  const t0 = Date.now();
  await migrateSlots(admin, moves, { masters: mastersInOrder(nodes), tally, label: 'remove-shard', log, signal });
  detail.migrateMs = Date.now() - t0;

  const ids = new Set(leaving.map((n) => n.id));
  for (const n of leaving) admin.drop(n.addr);
  const staying = (await admin.topology()).filter((n) => !ids.has(n.id) && !n.failed);
  // All at once: a forgotten node is banned for 60 s only, and gossip from a node that still
  // knows it would bring it back.
  await Promise.all(
    staying.flatMap((n) =>
      leaving.map((gone) =>
        admin.call(n.addr, 'CLUSTER', 'FORGET', gone.id).catch((err) => {
          if (!/unknown node/i.test(err.message)) throw new Error(`${n.addr} cannot forget ${gone.addr}: ${err.message}`);
        }),
      ),
    ),
  );
  detail.shutDown = [];
  detail.reset = [];
  for (const gone of leaving) {
    const proc = localProcess(local, gone);
    if (proc) {
      await terminate(proc.pid, { expectName: 'redis-server' });
      detail.shutDown.push({ addr: gone.addr, pid: proc.pid });
    } else {
      await admin.call(gone.addr, 'CLUSTER', 'RESET', 'HARD');
      detail.reset.push(gone.addr);
      admin.drop(gone.addr);
    }
  }
  detail.settleMs = await waitSettled(admin, `every node forgetting ${master.addr}`, {
    signal,
    check: (view, addr) => (view.some((n) => ids.has(n.id)) ? [`${addr} still knows a removed node`] : []),
  });
  detail.tookMs = Date.now() - t0;
}
