/**
 * Moves slots between masters with the standard protocol, safe under live writes:
 * target IMPORTING, source MIGRATING; then GETKEYSINSLOT + MIGRATE in batches until the source
 * holds no key of the slot (meanwhile the source answers ASK for keys it no longer has, so new
 * keys land on the target); then SETSLOT NODE on the target first, the source, and the other
 * masters.
 *
 * Slots go in groups, each step sent for the whole group at once: every SETSLOT makes the node
 * rewrite and fsync nodes.conf, and a group shares one rewrite per step instead of one per slot.
 * A group once started is always finished; stopping (signal, error) only keeps the next from starting.
 */

import { parseClusterNodes } from '../transports/redis.js';
import { slotsOf } from './plan.js';

/** @typedef {import('./plan.js').SlotMove} SlotMove */
/** @typedef {import('../transports/redis.js').RedisNode} RedisNode */
/**
 * @typedef {object} MigrateTally  filled in as slots move, so a failure still reports progress
 * @property {number} slotsMoved
 * @property {number} keysMigrated  keys in MIGRATE batches that succeeded (keys expiring meanwhile included)
 */

const SLOTS_PER_GROUP = 64;
const KEYS_PER_MIGRATE = 100;
/** MIGRATE's own I/O timeout on the source → target connection, ms. */
const MIGRATE_TIMEOUT_MS = 10_000;
const PROGRESS_MS = 1000;

/**
 * @param {import('./admin.js').ClusterAdmin} admin
 * @param {SlotMove[]} moves
 * @param {{ masters: RedisNode[], tally: MigrateTally, label: string,
 *   log?: (line: string) => void, signal?: AbortSignal }} opts
 *   masters: every live master, told each slot's new owner
 * @returns {Promise<void>}
 */
export async function migrateSlots(admin, moves, { masters, tally, label, log = () => {}, signal }) {
  const total = moves.reduce((sum, m) => sum + m.slots.length, 0);
  const auth = migrateAuth(admin.conn);
  let lastLog = Date.now();
  for (const move of moves) {
    for (let i = 0; i < move.slots.length; i += SLOTS_PER_GROUP) {
      if (signal?.aborted) throw new Error(`stopped after ${tally.slotsMoved} of ${total} slots`);
      const slots = move.slots.slice(i, i + SLOTS_PER_GROUP);
      try {
        const keys = await moveGroup(admin, slots, move, masters, auth);
        tally.keysMigrated += keys;
        tally.slotsMoved += slots.length;
      } catch (err) {
        const left = await abandon(admin, slots, move);
        const where = `slots ${slots[0]}-${slots[slots.length - 1]} (${move.from.addr} -> ${move.to.addr})`;
        throw new Error(
          `${where}: ${err.message}${left.length ? `; slots left migrating: ${ranges(left)} (redis-cli --cluster fix repairs them)` : ''}`,
          { cause: err },
        );
      }
      if (Date.now() - lastLog >= PROGRESS_MS) {
        lastLog = Date.now();
        log(`${label}: ${tally.slotsMoved}/${total} slots, ${tally.keysMigrated} keys`);
      }
    }
  }
  log(`${label}: ${tally.slotsMoved} slots, ${tally.keysMigrated} keys moved`);
}

/**
 * @returns {Promise<number>} keys migrated
 */
async function moveGroup(admin, slots, { from, to }, masters, auth) {
  await setslot(admin, to, slots, 'IMPORTING', from.id);
  await setslot(admin, from, slots, 'MIGRATING', to.id);
  let keys = await drain(admin, slots, from, to, auth);
  // The target first: once the source lets go, its clients are sent to the target, which must
  // already own the slot or it would send them back.
  await setslot(admin, to, slots, 'NODE', to.id);
  for (let attempt = 0, pending = slots; pending.length > 0; attempt++) {
    const errors = await setslot(admin, from, pending, 'NODE', to.id, true);
    // Gossip from the target may have taken the source's last slots first, and an emptied
    // master turns itself into a replica of the node that took them: nothing left to tell it.
    const failed = pending.filter((_, i) => errors[i] && !/only with masters/i.test(errors[i].message));
    if (failed.length === 0) break;
    const err = errors[pending.indexOf(failed[0])];
    // a key written between the last GETKEYSINSLOT and now: move it too
    if (attempt >= 3 || !/still hold keys/i.test(err.message)) throw err;
    keys += await drain(admin, failed, from, to, auth);
    pending = failed;
  }
  // Others learn it by gossip anyway; telling them now shortens the time they redirect wrongly.
  await Promise.all(
    masters.filter((m) => m.id !== from.id && m.id !== to.id).map((m) => setslot(admin, m, slots, 'NODE', to.id, true).catch(() => {})),
  );
  return keys;
}

/**
 * CLUSTER SETSLOT <slot> <state> [id] for every slot, in one write to the node.
 * @param {boolean} [tolerate] return the errors (per slot, undefined where it worked) instead of throwing the first
 * @returns {Promise<Array<Error|undefined>>}
 */
async function setslot(admin, node, slots, state, id, tolerate = false) {
  const replies = await admin.pipeline(
    node.addr,
    slots.map((s) => ['CLUSTER', 'SETSLOT', s, state, id]),
  );
  const errors = replies.map((r) => r.err);
  const first = errors.find(Boolean);
  if (first && !tolerate) throw first;
  return errors;
}

/**
 * MIGRATEs the slots' keys (one MIGRATE per slot and batch: it takes keys of one slot only)
 * until the source lists none.
 * @returns {Promise<number>} keys migrated
 */
async function drain(admin, slots, from, to, auth) {
  let moved = 0;
  let pending = slots;
  while (pending.length > 0) {
    const listed = await admin.pipeline(
      from.addr,
      pending.map((s) => ['CLUSTER', 'GETKEYSINSLOT', s, KEYS_PER_MIGRATE]),
      { buffers: true },
    );
    const failed = listed.find((r) => r.err);
    if (failed) throw failed.err;
    const batches = listed.map((r) => r.value).filter((keys) => keys.length > 0);
    pending = pending.filter((_, i) => listed[i].value.length > 0);
    const replies = await Promise.all(batches.map((keys) => migrate(admin, from, to, auth, keys)));
    // NOKEY: every key listed had expired; MIGRATE deleted them, so they are not listed again
    replies.forEach((reply, i) => {
      if (String(reply) !== 'NOKEY') moved += batches[i].length;
    });
  }
  return moved;
}

/**
 * One MIGRATE, retried after an I/O error. A retry uses REPLACE: the target may have stored
 * the keys before the reply was lost, and the source still holds the only writable copy.
 */
async function migrate(admin, from, to, auth, keys) {
  for (let attempt = 0; ; attempt++) {
    const replace = attempt > 0 ? ['REPLACE'] : [];
    try {
      return await admin.call(from.addr, 'MIGRATE', to.host, to.port, '', 0, MIGRATE_TIMEOUT_MS, ...replace, ...auth, 'KEYS', ...keys);
    } catch (err) {
      // eslint-disable-next-line preserve-caught-error -- the caught error is left behind on purpose: its command holds the password
      if (attempt >= 2 || !/^IOERR/.test(err.message)) throw new Error(err.message); // never the command: it holds the password
    }
  }
}

/**
 * After a failure, puts back the group's slots that the target does not own yet and holds no
 * key of (SETSLOT STABLE on both: the source still owns them); the rest stay as they are.
 * @returns {Promise<number[]>} slots left migrating
 */
async function abandon(admin, slots, { from, to }) {
  let owned;
  try {
    const self = parseClusterNodes(await admin.call(to.addr, 'CLUSTER', 'NODES')).find((n) => n.myself);
    owned = new Set(self ? slotsOf(self) : []);
  } catch {
    return slots; // the target does not answer: nothing to decide with
  }
  const left = [];
  for (const slot of slots) {
    try {
      if (!owned.has(slot) && Number(await admin.call(to.addr, 'CLUSTER', 'COUNTKEYSINSLOT', slot)) === 0) {
        await admin.call(to.addr, 'CLUSTER', 'SETSLOT', slot, 'STABLE');
        await admin.call(from.addr, 'CLUSTER', 'SETSLOT', slot, 'STABLE');
        continue;
      }
    } catch {
      // a node that does not answer: leave the slot as it is
    }
    left.push(slot);
  }
  return left;
}

/**
 * @param {number[]} slots ascending
 * @returns {string} e.g. "5-9,12"
 */
function ranges(slots) {
  const out = [];
  for (let i = 0; i < slots.length; i++) {
    let j = i;
    while (j + 1 < slots.length && slots[j + 1] === slots[j] + 1) j++;
    out.push(i === j ? `${slots[i]}` : `${slots[i]}-${slots[j]}`);
    i = j;
  }
  return out.join(',');
}

/**
 * MIGRATE's credentials for the target (the run's own).
 * @param {import('../transports/redis.js').RedisConn} conn
 * @returns {string[]}
 */
function migrateAuth(conn) {
  if (!conn.password) return [];
  return conn.username ? ['AUTH2', conn.username, conn.password] : ['AUTH', conn.password];
}
