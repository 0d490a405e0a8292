/**
 * summary.json's `cpu`: Redis CPU per node and per role over the window, with each node's
 * coverage.
 *
 * Two figures per node: the whole process and its main thread. The main thread runs every
 * command, so it is what saturates first and what a user sizes for (CloudWatch's
 * EngineCPUUtilization); with I/O threads the process shows far more. The role figures (the
 * seed's "master CPU" and "replica CPU") and the saturation verdict therefore use the main
 * thread, and fall back to the process, saying so in `basis`, for a server that does not report
 * it (before Redis 7, other engines, older run directories).
 */
import { avg, max, round } from '../../record/numbers.js';
import { nodeColumn } from '../../record/timeline.js';

/** A CPU figure from fewer of its seconds than this share is marked as partial. */
export const MIN_COVERAGE = 0.9;

/**
 * One node in one role over the window. `avg` and `max` are the whole process, as they always
 * were (older summary.json files mean the same); `engineAvg` and `engineMax` the main thread.
 * @typedef {object} NodeCpuSummary
 * @property {string} addr
 * @property {string} role
 * @property {number} shard
 * @property {number|null} avg process CPU, % of one core, averaged over the seconds sampled
 * @property {number|null} max process CPU, the busiest second
 * @property {number|null} engineAvg main-thread CPU, % of one core; null when not reported
 * @property {number|null} engineMax main-thread CPU, the busiest second; null when not reported
 * @property {number} samples seconds with a (process) figure
 * @property {number} gaps seconds listed without one
 * @property {number} coverage samples / seconds listed (0..1)
 */

/**
 * @typedef {object} CpuSummary
 * @property {number|null} master the masters' average: main thread where reported (see basis)
 * @property {number|null} replica the replicas' average, likewise
 * @property {'main thread'|'process'|'mixed'|null} basis what master and replica are: every
 *   sampled node's main thread; the process, as no node reported its main thread; or each node's
 *   main thread where it reported one, its process otherwise. null: no node sampled
 * @property {{ master: number|null, replica: number|null }} process the same averages of process CPU
 * @property {NodeCpuSummary[]} nodes masters first, by shard
 * @property {{ master: string[], replica: string[] }} partial nodes behind a role's figure with
 *   coverage under MIN_COVERAGE
 * @property {number} gaps seconds without a figure, over every node
 */

/**
 * A node's figure for the role averages and the verdict: its main thread, or its process when
 * it does not report one.
 * @param {Pick<NodeCpuSummary, 'avg'|'engineAvg'>} n
 * @returns {number|null}
 */
export const engineOrProcess = (n) => n.engineAvg ?? n.avg;

/**
 * @param {Array<{ cpu?: import('../../record/timeline.js').NodeSample[] }>} rows the window's seconds
 * @returns {CpuSummary}
 */
export function cpuSummary(rows) {
  const nodes = nodeCpu(rows);
  const sampled = nodes.filter((n) => n.samples > 0);
  const roleAvg = (role, f) => round(avg(sampled.filter((n) => n.role === role).map(f)));
  // a role's figure built from a node sampled in less than MIN_COVERAGE of its seconds is marked
  const partial = (role) => nodes.filter((n) => n.role === role && n.coverage < MIN_COVERAGE).map((n) => n.addr);
  const engines = sampled.filter((n) => n.engineAvg !== null).length;
  const basis = !sampled.length ? null : engines === sampled.length ? 'main thread' : engines ? 'mixed' : 'process';
  return {
    master: roleAvg('master', engineOrProcess),
    replica: roleAvg('replica', engineOrProcess),
    basis,
    process: { master: roleAvg('master', (n) => n.avg), replica: roleAvg('replica', (n) => n.avg) },
    nodes,
    partial: { master: partial('master'), replica: partial('replica') },
    gaps: nodes.reduce((n, x) => n + x.gaps, 0),
  };
}

/**
 * Average and max CPU per node and role over the window (a promoted replica is in both), masters
 * first, by shard; and each node's coverage: the seconds it was listed in that have a sample (a
 * second without one is a gap: the node did not answer, or its connection was being reopened).
 * @param {Array<{ cpu?: import('../../record/timeline.js').NodeSample[] }>} rows
 * @returns {NodeCpuSummary[]}
 */
function nodeCpu(rows) {
  const by = new Map();
  for (const r of rows) {
    for (const c of r.cpu || []) {
      // by node and role, as the timeline's columns are
      const key = nodeColumn(c);
      let n = by.get(key);
      if (!n) by.set(key, (n = { addr: c.addr, role: c.role, shard: c.shard, values: [], engine: [], seconds: 0 }));
      n.seconds++;
      if (typeof c.cpuPct === 'number') n.values.push(c.cpuPct);
      if (typeof c.enginePct === 'number') n.engine.push(c.enginePct);
    }
  }
  return [...by.values()]
    .map((n) => ({
      addr: n.addr,
      role: n.role,
      shard: n.shard,
      avg: round(avg(n.values)),
      max: round(max(n.values)),
      engineAvg: round(avg(n.engine)),
      engineMax: round(max(n.engine)),
      samples: n.values.length,
      gaps: n.seconds - n.values.length,
      coverage: n.seconds ? round(n.values.length / n.seconds, 3) : 0,
    }))
    .sort((a, b) => (a.role === b.role ? a.shard - b.shard || a.addr.localeCompare(b.addr) : a.role === 'master' ? -1 : 1));
}
