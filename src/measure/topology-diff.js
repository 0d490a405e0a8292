/**
 * What changed between two views of the target's nodes, in words for the timeline's events and
 * the summary's disturbances: a replica promoted, a master demoted, a node failed or gone.
 */

/**
 * @typedef {{ addr: string, role: string, shard: number, failed?: boolean }} NodeView
 */

/**
 * @param {NodeView[]} before
 * @param {NodeView[]} after
 * @returns {string[]}
 */
export function diffTopology(before, after) {
  const was = new Map(before.map((n) => [n.addr, n]));
  const now = new Map(after.map((n) => [n.addr, n]));
  const out = [];
  for (const n of after) {
    const b = was.get(n.addr);
    if (!b) {
      out.push(`${n.addr} joined as ${n.role} of shard ${n.shard}`);
      continue;
    }
    if (b.role !== n.role)
      out.push(
        n.role === 'master'
          ? `${n.addr} promoted: replica → master of shard ${n.shard}`
          : `${n.addr} demoted: master → replica of shard ${n.shard}`,
      );
    if (!b.failed && n.failed) out.push(`${n.addr} (${n.role}, shard ${n.shard}) marked failed by the cluster`);
    if (b.failed && !n.failed) out.push(`${n.addr} no longer marked failed`);
  }
  for (const b of before) if (!now.has(b.addr)) out.push(`${b.addr} (${b.role}, shard ${b.shard}) no longer listed`);
  return out;
}
