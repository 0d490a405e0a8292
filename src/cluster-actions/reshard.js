/** `reshard:<slots>`: moves that many slots from the master with the most slots to the one with the fewest. */
import { migrateSlots } from './migrate.js';
import { nodeRef } from './action-common.js';
import { mastersInOrder, planReshard } from './plan.js';
import { waitSettled } from './settle.js';

/**
 * @param {import('./action-common.js').ActionContext} ctx
 */
export async function reshard({ admin, action, log, signal, detail }) {
  const nodes = await admin.topology();
  const [move] = planReshard(nodes, /** @type {number} */ (action.slots));
  const tally = Object.assign(detail, {
    from: nodeRef(move.from),
    to: nodeRef(move.to),
    slots: move.slots.length,
    slotsMoved: 0,
    keysMigrated: 0,
  });
  const t0 = Date.now();
  await migrateSlots(admin, [move], { masters: mastersInOrder(nodes), tally, label: 'reshard', log, signal });
  detail.migrateMs = Date.now() - t0;
  detail.settleMs = await waitSettled(admin, 'every node agreeing on the new slot owners', { signal });
}
