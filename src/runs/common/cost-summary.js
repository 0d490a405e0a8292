/**
 * summary.json's `cost`: what one item cost the server over the window, per node and per role —
 * the figures that carry over to a node of another size, where a CPU % or a byte rate does not.
 *
 * - CPU per item: a node's CPU seconds over the window (its average % of one core × the seconds it
 *   was listed) ÷ the items, in µs; the main thread (engine) and the whole process.
 * - Network bytes per item: INFO stats' client bytes in and out, and replication bytes in and
 *   out, summed over the window's seconds (the sampler's own INFO calls taken off) ÷ the items.
 * - Memory per live item (a producer): used_memory at the window's end less the node's first
 *   reading before the run ÷ the items live at the window's end (the distinct items acknowledged
 *   within the TTL: without --verify every period rewrites the same -q ids);
 *   only from a server that held no key at its first reading (another run's keys expiring or
 *   still being written would be counted in it).
 *
 * A role's figure is its nodes' together ÷ the items: on a cluster whose keys spread evenly it is
 * what one master spends per item it stores; with one replica per shard, what a replica spends per
 * item its master stored. Items are those acknowledged in the window (a producer) or read in it (a
 * consumer). What none of it includes: the host's own work (the OS, the agents that CloudWatch's
 * CPUUtilization counts), the client's, and the kernel's network stack outside Redis's process.
 */
import { nodeColumn } from '../../record/timeline.js';
import { round } from '../../record/numbers.js';

/** The byte counters a node's seconds carry (record/timeline.js NodeSample), summed over the window. */
export const FLOWS = /** @type {const} */ (['netIn', 'netOut', 'replIn', 'replOut']);
/** The CPU seconds a node's seconds carry, unrounded (a timeline read back has only the rounded %). */
const CPU_SECONDS = /** @type {const} */ (['cpuS', 'engineS']);

/**
 * One node's traffic and memory over the window, as the run measured them.
 * @typedef {object} NodeFlows
 * @property {number|null} netIn client bytes read, summed over the window (null: no second had a figure)
 * @property {number|null} netOut client bytes written
 * @property {number|null} replIn replication bytes read
 * @property {number|null} replOut replication bytes written
 * @property {number|null} memoryStart used_memory at the node's first reading, before the run
 * @property {number|null} memoryEnd used_memory at the window's last reading
 * @property {number|null} [cpuS] the process's CPU seconds over the window, unrounded (absent: from its average %)
 * @property {number|null} [engineS] the main thread's
 * @property {boolean} [leftRole] the node left this role in the window: its memory counts in the role it ended in
 */

/**
 * @typedef {object} RoleCost
 * @property {number|null} engineUs main-thread CPU per item, µs (null: no node of the role reported it)
 * @property {number|null} processUs process CPU per item, µs
 * @property {number|null} netIn client bytes read per item
 * @property {number|null} netOut client bytes written per item
 * @property {number|null} replIn replication bytes read per item
 * @property {number|null} replOut replication bytes written per item
 * @property {number|null} memory bytes per live item (a producer); null otherwise
 */

/**
 * @typedef {object} CostSummary
 * @property {'item written'|'item read'|'operation'} per what an item is here
 * @property {number} items the items the figures are divided by
 * @property {number|null} liveItems items live at the window's end (a producer), memory's divisor
 * @property {boolean|null} startedEmpty every node held no key at its first reading (null: not known)
 * @property {string} [partOf] the run is part of one (its writers): no figure per item, the parts merged have them
 * @property {{ master: RoleCost, replica: RoleCost }} roles
 * @property {Array<{ addr: string, role: string, shard: number, totals: NodeFlows } & RoleCost>} nodes
 *   each node's figures per item, and the totals they came from (runs merged divide those by the merged items)
 * @property {import('../../measure/key-memory.js').KeyShape[]} [keys] where the bytes are: MEMORY USAGE by key shape, read after the run
 * @property {string[]} [keysErrors] masters whose keys could not be read
 */

/**
 * Each node's bytes over the window's seconds and its memory at the start and the end, by node column.
 * @param {Array<{ cpu?: import('../../record/timeline.js').NodeSample[] }>} windowRows
 * @param {Map<string, { usedMemory: number }>|Record<string, { usedMemory: number }>} [starts] each node's first reading, by address
 * @returns {Map<string, NodeFlows>}
 */
export function flowsOf(windowRows, starts = new Map()) {
  const startOf = (addr) => (starts instanceof Map ? starts.get(addr) : starts[addr]);
  /** @type {Map<string, NodeFlows>} */
  const out = new Map();
  /** @type {Map<string, string>} each node's column in the last second it was listed */
  const last = new Map();
  for (const r of windowRows) {
    for (const c of r.cpu ?? []) {
      last.set(c.addr, nodeColumn(c));
      const key = nodeColumn(c);
      let f = out.get(key);
      if (!f) {
        f = { netIn: null, netOut: null, replIn: null, replOut: null, memoryStart: startOf(c.addr)?.usedMemory ?? null, memoryEnd: null };
        out.set(key, f);
      }
      for (const k of [...FLOWS, ...CPU_SECONDS]) if (typeof c[k] === 'number') f[k] = (f[k] ?? 0) + c[k];
      if (typeof c.usedMemory === 'number') f.memoryEnd = c.usedMemory;
    }
  }
  // a node's memory counts once, in the role it ended in: a master promoted in a failover is not
  // counted again as the replica it was
  for (const [addr, column] of last)
    for (const [key, f] of out) if (key !== column && key.endsWith(`_${addr}`)) Object.assign(f, { memoryEnd: null, leftRole: true });
  return out;
}

/**
 * A saved summary's flows, for runs merged: their Redis nodes are the same nodes (writers of one run
 * on several hosts sample one cluster), so one run's bytes are the cluster's, not a share to add up.
 * @param {CostSummary|undefined} cost
 * @returns {Map<string, NodeFlows>}
 */
export function flowsOfSummary(cost) {
  /** @param {Partial<NodeFlows>} t */
  const pick = (t) => {
    const v = (x) => (typeof x === 'number' ? x : null);
    const out = {
      ...(t.leftRole && { leftRole: true }),
      netIn: v(t.netIn),
      netOut: v(t.netOut),
      replIn: v(t.replIn),
      replOut: v(t.replOut),
      memoryStart: v(t.memoryStart),
      memoryEnd: v(t.memoryEnd),
    };
    // the CPU seconds the run counted, unrounded, where it kept them
    return { ...out, ...(v(t.cpuS) !== null && { cpuS: v(t.cpuS) }), ...(v(t.engineS) !== null && { engineS: v(t.engineS) }) };
  };
  // a saved node's figures per item are not flows: only its totals are taken
  return new Map((cost?.nodes ?? []).map((n) => [nodeColumn(n), pick(n.totals ?? {})]));
}

/**
 * @param {object} p
 * @param {import('./cpu-summary.js').CpuSummary} p.cpu the window's CPU per node
 * @param {Map<string, NodeFlows>} p.flows each node's bytes and memory (flowsOf, flowsOfSummary)
 * @param {number} p.items items acknowledged (or read) in the window
 * @param {'item written'|'item read'|'operation'} p.per
 * @param {number|null} [p.liveItems] items live at the window's end (a producer)
 * @param {boolean|null} [p.startedEmpty]
 * @param {string|null} [p.partOf] this run is part of one (`-a 1` of `-t 2`): the server's work is every
 *   part's, its items only this one's, so no figure per item is made (the parts merged have them)
 * @returns {CostSummary}
 */
export function costSummary({ cpu, flows, items, per, liveItems = null, startedEmpty = null, partOf = null }) {
  const perItem = (x, d) => (x === null || !items || partOf ? null : round(x / items, d));
  const nodes = cpu.nodes.map((n) => {
    const f = flows.get(nodeColumn(n)) ?? { netIn: null, netOut: null, replIn: null, replOut: null, memoryStart: null, memoryEnd: null };
    const seconds = n.samples + n.gaps;
    // the CPU seconds counted, where the run has them; else the average % over the seconds listed
    const cpuSeconds = (counted, pct) => (typeof counted === 'number' ? counted : pct === null ? null : (pct / 100) * seconds);
    const engineS = cpuSeconds(f.engineS, n.engineAvg);
    const processS = cpuSeconds(f.cpuS, n.avg);
    const us = (x) => (x === null ? null : x * 1e6);
    // memory per item needs the server's growth from empty: one that held keys has other keys' coming and going in it
    const grown = f.memoryEnd !== null && f.memoryStart !== null && startedEmpty !== false ? f.memoryEnd - f.memoryStart : null;
    return {
      addr: n.addr,
      role: n.role,
      shard: n.shard,
      engineUs: perItem(us(engineS), 3),
      processUs: perItem(us(processS), 3),
      netIn: perItem(f.netIn, 1),
      netOut: perItem(f.netOut, 1),
      replIn: perItem(f.replIn, 1),
      replOut: perItem(f.replOut, 1),
      memory: grown === null || !liveItems || partOf ? null : round(grown / liveItems, 1),
      totals: {
        ...(f.leftRole && { leftRole: true }),
        netIn: f.netIn,
        netOut: f.netOut,
        replIn: f.replIn,
        replOut: f.replOut,
        memoryStart: f.memoryStart,
        memoryEnd: f.memoryEnd,
        engineS: round(engineS ?? NaN, 6),
        cpuS: round(processS ?? NaN, 6),
      },
    };
  });
  /** @param {string} role @returns {RoleCost} */
  const roleCost = (role) => {
    const of = nodes.filter((n) => n.role === role);
    // a role's figure adds its nodes' per-item figures; a node without one leaves the role without one
    /** @param {typeof nodes} these */
    const sum = (these, k, d) =>
      these.length && these.every((n) => n[k] !== null)
        ? round(
            these.reduce((s, n) => s + n[k], 0),
            d,
          )
        : null;
    const add = (k, d) => sum(of, k, d);
    return {
      engineUs: add('engineUs', 3),
      processUs: add('processUs', 3),
      netIn: add('netIn', 1),
      netOut: add('netOut', 1),
      replIn: add('replIn', 1),
      replOut: add('replOut', 1),
      // a node counts in the role it ended in
      memory: sum(
        of.filter((n) => !n.totals.leftRole),
        'memory',
        1,
      ),
    };
  };
  return {
    per,
    items,
    liveItems,
    startedEmpty,
    ...(partOf && { partOf }),
    roles: { master: roleCost('master'), replica: roleCost('replica') },
    nodes,
  };
}

/**
 * Items live at the window's end: the distinct items acknowledged in the TTL before it (their keys
 * and index entries are there; older ones expired or were purged). Without --verify every period
 * writes the same ids again, so no more than those are ever live (the seed's "300k live items" is
 * `-q 300000`).
 * @param {Map<number, number>} ackedDue acknowledged items by the second they were due in
 * @param {number} windowEnd the window's end, s
 * @param {number} ttlS
 * @param {number|null} [distinctIds] the ids written every period; null: fresh ids each period
 */
export function liveAt(ackedDue, windowEnd, ttlS, distinctIds = null) {
  let n = 0;
  for (const [sec, k] of ackedDue) if (sec < windowEnd && sec >= windowEnd - ttlS) n += k;
  return distinctIds === null ? n : Math.min(n, distinctIds);
}

/**
 * Whether every node held no key at its first reading.
 * @param {Map<string, { keys: number }>} starts
 * @returns {boolean|null}
 */
export function startedEmpty(starts) {
  return starts.size ? [...starts.values()].every((s) => s.keys === 0) : null;
}
