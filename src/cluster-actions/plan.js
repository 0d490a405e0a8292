/**
 * Which slots go where: pure functions over a CLUSTER NODES view (targets/redis.js RedisNode[]).
 * Slots always leave a master from its highest end, so what stays (and what arrives) keeps
 * in few contiguous ranges.
 */

/** @typedef {import('../transports/redis.js').RedisNode} RedisNode */
/** @typedef {{ from: RedisNode, to: RedisNode, slots: number[] }} SlotMove */

/**
 * Live masters: those serving slots in shard order (lowest slot first), then empty ones by address.
 * @param {RedisNode[]} nodes
 * @returns {RedisNode[]}
 */
export function mastersInOrder(nodes) {
  const live = nodes.filter((n) => n.role === 'master' && !n.failed);
  const serving = live.filter((n) => n.slots.length > 0).sort((a, b) => a.slots[0][0] - b.slots[0][0]);
  const empty = live.filter((n) => n.slots.length === 0).sort((a, b) => a.addr.localeCompare(b.addr));
  return [...serving, ...empty];
}

/**
 * @param {RedisNode} node
 * @returns {number[]} its slots, ascending
 */
export function slotsOf(node) {
  const out = [];
  for (const [a, b] of [...node.slots].sort((x, y) => x[0] - y[0])) for (let s = a; s <= b; s++) out.push(s);
  return out;
}

/**
 * Live replicas of a master.
 * @param {RedisNode[]} nodes
 * @param {RedisNode} master
 */
export function replicasOf(nodes, master) {
  return nodes.filter((n) => n.role === 'replica' && n.masterId === master.id && !n.failed);
}

/**
 * The master an action names, or its default: the first or the last master serving slots.
 * @param {RedisNode[]} nodes
 * @param {import('./parse.js').MasterRef|undefined} ref
 * @param {'first'|'last'} fallback
 * @returns {RedisNode}
 */
export function pickMaster(nodes, ref, fallback) {
  const serving = mastersInOrder(nodes).filter((n) => n.slots.length > 0);
  if (serving.length === 0) throw new Error('no master serves any slot');
  if (!ref) return fallback === 'last' ? serving[serving.length - 1] : serving[0];
  if ('index' in ref) {
    if (ref.index > serving.length) throw new Error(`there is no master ${ref.index}: ${serving.length} masters serve slots`);
    return serving[ref.index - 1];
  }
  const node = nodes.find((n) => n.addr === ref.addr);
  if (!node) throw new Error(`${ref.addr} is not a node of this cluster (name it as CLUSTER NODES does)`);
  if (node.role !== 'master' || node.failed) throw new Error(`${ref.addr} is not a live master`);
  return node;
}

/**
 * `count` slots from the master with the most slots to the one with the fewest.
 * @param {RedisNode[]} nodes
 * @param {number} count
 * @returns {SlotMove[]}
 */
export function planReshard(nodes, count) {
  const masters = mastersInOrder(nodes);
  if (masters.length < 2) throw new Error('resharding needs at least 2 masters');
  const bySlots = [...masters].sort((a, b) => slotCount(b) - slotCount(a)); // stable: shard order among ties
  const from = bySlots[0];
  const to = bySlots[bySlots.length - 1];
  const slots = slotsOf(from);
  if (count > slots.length)
    throw new Error(`cannot move ${count} slots: the master with the most slots (${from.addr}) has ${slots.length}`);
  return [{ from, to, slots: slots.slice(slots.length - count) }];
}

/**
 * Every slot of `leaving` to the other masters, evening out their slot counts.
 * @param {RedisNode[]} nodes
 * @param {RedisNode} leaving
 * @returns {SlotMove[]}
 */
export function planDrain(nodes, leaving) {
  const receivers = mastersInOrder(nodes).filter((m) => m.id !== leaving.id);
  if (receivers.length === 0) throw new Error(`${leaving.addr} is the only master: there is nowhere to move its slots`);
  const slots = slotsOf(leaving);
  const amounts = evenOut(receivers.map(slotCount), slots.length, +1);
  const moves = [];
  let next = 0;
  receivers.forEach((to, i) => {
    if (amounts[i] > 0) moves.push({ from: leaving, to, slots: slots.slice(next, (next += amounts[i])) });
  });
  return moves;
}

/**
 * Slots for a new (or light) master from the heaviest ones, until it holds its even share.
 * @param {RedisNode[]} nodes
 * @param {RedisNode} newcomer
 * @returns {SlotMove[]}
 */
export function planFill(nodes, newcomer) {
  const donors = mastersInOrder(nodes).filter((m) => m.id !== newcomer.id && m.slots.length > 0);
  const total = donors.reduce((sum, d) => sum + slotCount(d), slotCount(newcomer));
  const want = Math.floor(total / (donors.length + 1)) - slotCount(newcomer);
  if (want <= 0) return [];
  const amounts = evenOut(donors.map(slotCount), want, -1);
  return donors.flatMap((from, i) => {
    if (amounts[i] === 0) return [];
    const slots = slotsOf(from);
    return [{ from, to: newcomer, slots: slots.slice(slots.length - amounts[i]) }];
  });
}

/** @param {RedisNode} n */
export function slotCount(n) {
  return n.slots.reduce((sum, [a, b]) => sum + b - a + 1, 0);
}

/**
 * Hands out (dir +1) or takes away (dir -1) `n` units one at a time where it evens the counts
 * most (ties: the first). Returns how many each index got or gave.
 * @param {number[]} counts
 * @param {number} n
 * @param {1|-1} dir
 */
function evenOut(counts, n, dir) {
  const now = [...counts];
  const amounts = counts.map(() => 0);
  for (let k = 0; k < n; k++) {
    let best = 0;
    for (let i = 1; i < now.length; i++) if (dir > 0 ? now[i] < now[best] : now[i] > now[best]) best = i;
    now[best] += dir;
    amounts[best]++;
  }
  return amounts;
}
