/**
 * Grouping n keys for multi-key reads: key indexes ordered by slot (a counting sort into typed
 * arrays, no object per key) in runs of one slot each, and the runs grouped by the node that
 * serves them. Standalone there are no slots: runs are batches of keys in their own order.
 */
const SLOTS = 16384;
const STANDALONE_BATCH = 1000;

/**
 * @typedef {{ slot: number, from: number, to: number }} SlotRun  order[from, to) share `slot`
 */

/**
 * @param {number} n keys
 * @param {(i: number) => number} slotOf slot of key i (cluster only)
 * @param {boolean} cluster
 * @returns {{ order: Int32Array, runs: SlotRun[] }}
 */
export function slotRuns(n, slotOf, cluster) {
  const order = new Int32Array(n);
  const runs = [];
  if (!cluster) {
    for (let i = 0; i < n; i++) order[i] = i;
    for (let from = 0; from < n; from += STANDALONE_BATCH) runs.push({ slot: 0, from, to: Math.min(n, from + STANDALONE_BATCH) });
    return { order, runs };
  }
  const slots = new Uint16Array(n);
  const count = new Int32Array(SLOTS + 1);
  for (let i = 0; i < n; i++) count[(slots[i] = slotOf(i)) + 1]++;
  for (let s = 0; s < SLOTS; s++) count[s + 1] += count[s];
  for (let s = 0; s < SLOTS; s++) if (count[s + 1] > count[s]) runs.push({ slot: s, from: count[s], to: count[s + 1] });
  for (let i = 0; i < n; i++) order[count[slots[i]]++] = i;
  return { order, runs };
}

/**
 * @param {{ addrFor: (slot: number) => string }} router
 * @param {SlotRun[]} runs
 * @returns {Map<string, SlotRun[]>} the runs each node serves
 */
export function runsByNode(router, runs) {
  const byNode = new Map();
  for (const run of runs) {
    const addr = router.addrFor(run.slot);
    const list = byNode.get(addr);
    if (list) list.push(run);
    else byNode.set(addr, [run]);
  }
  return byNode;
}
