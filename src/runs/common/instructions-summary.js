/**
 * summary.json's `instructions` (--count-instructions): per node and per role, Redis's
 * instructions per item over the run's window with its idle cost over the same wall time taken
 * out, where they went (the split of local/callgrind-split.js, per item), and the read and
 * write system calls and bytes per item the count leaves to the kernel. Pure arithmetic on what
 * local/callgrind.js counted.
 *
 * Per item means per item of the whole run (acknowledged in the window for a producer, read in it
 * for a consumer), on every node: a node's figure is its share of an item's cost, and a role's is
 * the sum of its nodes'. Under --time-scale K the run held the undilated run's commands and
 * structure sizes at 1/K of its rate, so these figures are those of the undilated run; the idle
 * cost, which grows with wall time and so with K, is what the subtraction takes out. Idle Redis is
 * its cron (serverCron, `hz` times a second): the idle cost per cron run, times the cron's runs in
 * the window, is what is taken out (counting runs, not seconds: a 5-second idle count holds 50 ± 1
 * of them, and a busy event loop runs its cron late); by wall time when a count has no cron run. So are the
 * commands rqbench's own sampler sends every second of wall time (INFO, CLUSTER …: SAMPLER_COMMANDS),
 * which a dilated run would otherwise charge K times over to its items: they are reported apart
 * (samplerIr) and left out of the split and the per-item figures.
 */
import { round } from '../../record/numbers.js';

/** Commands of rqbench's monitoring, not of the workload (names as the split gives them: infoCommand → INFO). */
export const SAMPLER_COMMANDS = ['INFO', 'CLUSTER', 'PING', 'CONFIGGET', 'COMMAND', 'CLIENT', 'MEMORY', 'DBSIZE', 'HELLO', 'SELECT'];

/**
 * @typedef {{ readPerItem: number|null, writePerItem: number|null }} PerItemPair
 * @typedef {{ ir: number, idleIr: number, samplerIr: number, irPerItem: number|null, split: Record<string, number|null>,
 *   syscalls: PerItemPair|null, bytes: PerItemPair|null }} InstructionFigures
 * @typedef {InstructionFigures & { addr: string, role: 'master'|'replica', shard: number }} NodeInstructions
 * @typedef {{ timeScale: number, items: number, seeds: string|null, idleSeconds: number|null, windowSeconds: number|null,
 *   nodes: NodeInstructions[], roles: Partial<Record<'master'|'replica', InstructionFigures>>, errors: string[] }} InstructionsSummary
 */

/**
 * @param {object} p
 * @param {import('../../local/callgrind.js').NodeCount[]} p.nodes
 * @param {number} p.items items of the window (acknowledged, or read)
 * @param {number} [p.timeScale] --time-scale
 * @returns {InstructionsSummary}
 */
export function instructionsSummary({ nodes, items, timeScale = 1 }) {
  const counted = nodes.filter((n) => n.window && n.idle);
  /** @type {NodeInstructions[]} */
  const perNode = counted.map((n) => ({ addr: n.addr, role: n.role, shard: n.shard, ...figures([net(n)], items) }));
  /** @type {InstructionsSummary['roles']} */
  const roles = {};
  for (const role of /** @type {const} */ (['master', 'replica'])) {
    const of = counted.filter((n) => n.role === role);
    if (of.length) roles[role] = figures(of.map(net), items);
  }
  const first = counted[0];
  return {
    timeScale,
    items,
    seeds: nodes[0]?.seeds ?? null,
    idleSeconds: first ? round(/** @type {any} */ (first.idle).wallMs / 1000, 2) : null,
    windowSeconds: first ? round(/** @type {any} */ (first.window).wallMs / 1000, 2) : null,
    nodes: perNode,
    roles,
    errors: nodes.filter((n) => n.error).map((n) => `${n.addr}: ${n.error}`),
  };
}

/**
 * One node's window with its idle cost over the window's wall time taken out (counts, split and I/O alike).
 * @param {import('../../local/callgrind.js').NodeCount} n with idle and window
 */
function net(n) {
  const idle = /** @type {import('../../local/callgrind.js').Counted} */ (n.idle);
  const win = /** @type {import('../../local/callgrind.js').Counted} */ (n.window);
  const scale = idle.cronRuns > 0 && win.cronRuns > 0 ? win.cronRuns / idle.cronRuns : idle.wallMs > 0 ? win.wallMs / idle.wallMs : 0;
  /** @type {Record<string, number>} */
  const split = {};
  let samplerIr = 0;
  for (const k of new Set([...Object.keys(win.split), ...Object.keys(idle.split)])) {
    const v = (win.split[k] ?? 0) - (idle.split[k] ?? 0) * scale;
    if (SAMPLER_COMMANDS.includes(k)) samplerIr += v;
    else split[k] = v;
  }
  const io = win.io && idle.io ? mapIo(win.io, (k) => win.io[k] - idle.io[k] * scale) : null;
  return { ir: win.ir, idleIr: idle.ir * scale, samplerIr, split, io };
}

/**
 * @param {import('../../local/callgrind.js').ProcIo} io
 * @param {(k: keyof import('../../local/callgrind.js').ProcIo) => number} f
 */
function mapIo(io, f) {
  return { syscr: f('syscr'), syscw: f('syscw'), rchar: f('rchar'), wchar: f('wchar') };
}

/**
 * The per-item figures of one node, or a role's nodes added up.
 * @param {ReturnType<typeof net>[]} parts
 * @param {number} items
 * @returns {InstructionFigures}
 */
function figures(parts, items) {
  const per = (x) => (items > 0 ? round(x / items, 1) : null);
  const sum = (f) => parts.reduce((a, p) => a + f(p), 0);
  const ir = sum((p) => p.ir);
  const idleIr = sum((p) => p.idleIr);
  const samplerIr = sum((p) => p.samplerIr);
  /** @type {Record<string, number|null>} */
  const split = {};
  for (const k of new Set(parts.flatMap((p) => Object.keys(p.split)))) split[k] = per(sum((p) => p.split[k] ?? 0));
  const withIo = parts.every((p) => p.io);
  const io = (k) => sum((p) => p.io[k]);
  return {
    ir: Math.round(ir),
    idleIr: Math.round(idleIr),
    samplerIr: Math.round(samplerIr),
    irPerItem: per(ir - idleIr - samplerIr),
    split,
    syscalls: withIo ? { readPerItem: perSmall(io('syscr'), items), writePerItem: perSmall(io('syscw'), items) } : null,
    bytes: withIo ? { readPerItem: per(io('rchar')), writePerItem: per(io('wchar')) } : null,
  };
}

/** System calls per item are often well under one (pipelines): three decimals. */
function perSmall(x, items) {
  return items > 0 ? round(x / items, 3) : null;
}
