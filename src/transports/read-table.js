/**
 * Where a reader reads each slot of a cluster: the slot's master, or for replica reads one
 * replica of it, picked by `spread` (the reader's number) so that readers share the replicas. A
 * replica the cluster flags failed, or one set aside because it stopped answering this reader
 * (redis-router.js, fallBack), is replaced by a stand-in: another replica of the same master, or
 * the master. Stand-ins are listed: a read sent to one is a fallback, counted as such, since the
 * reader was asked to read replicas. A master with no replica at all reads for itself, as always.
 */

/**
 * @param {object} p
 * @param {string[]} p.masterTable slot → its master's address
 * @param {import('./redis.js').RedisNode[]} p.nodes
 * @param {'master'|'replica'} p.readFrom
 * @param {number} p.spread
 * @param {Map<string, unknown>} p.down replicas set aside, by address
 * @returns {{ table: string[], standIns: Set<string> }} slot → the address reading it
 */
export function readTable({ masterTable, nodes, readFrom, spread, down }) {
  const table = masterTable.slice();
  const standIns = new Set();
  if (readFrom !== 'replica') return { table, standIns };
  const byAddr = new Map(nodes.map((n) => [n.addr, n]));
  const pick = new Map();
  for (let s = 0; s < table.length; s++) {
    const master = byAddr.get(table[s]);
    if (!master) continue;
    if (!pick.has(master.addr)) pick.set(master.addr, readerOf(master));
    table[s] = pick.get(master.addr);
  }
  return { table, standIns };

  function readerOf(master) {
    const usual = replicaOf(nodes, master.id, spread, { failedToo: true });
    if (!usual) return master.addr;
    if (!down.has(usual) && !byAddr.get(usual)?.failed) return usual;
    const standIn = replicaOf(nodes, master.id, spread, { down }) ?? master.addr;
    standIns.add(standIn);
    return standIn;
  }
}

/**
 * One replica of master `id` (by `spread`) neither failed nor in `down` (failedToo: any listed),
 * or undefined when it has none.
 * @param {import('./redis.js').RedisNode[]} nodes
 * @param {string|undefined} id
 * @param {number} spread
 * @param {{ failedToo?: boolean, down?: Map<string, unknown> }} [opts]
 */
export function replicaOf(nodes, id, spread, { failedToo = false, down = new Map() } = {}) {
  const replicas = nodes
    .filter((n) => n.role === 'replica' && n.masterId === id && (failedToo || (!n.failed && !down.has(n.addr))))
    .sort((a, b) => a.addr.localeCompare(b.addr));
  return replicas.length ? replicas[spread % replicas.length].addr : undefined;
}
