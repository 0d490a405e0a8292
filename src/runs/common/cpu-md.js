/**
 * The parts of summary.md that producer and consumer share: Redis CPU per node with each node's
 * sample coverage (a figure from too few of its seconds is marked, never passed off as whole),
 * and the run's outcome. The role figures are the main thread's where the nodes report it
 * (runs/common/cpu-summary.js), with the process's beside; a fallback to process CPU is said.
 */
import { fixed, mdTable } from '../../record/format.js';
import { MIN_COVERAGE } from './cpu-summary.js';

const MARK = '†';

/**
 * A role's CPU in the seed's table, marked when a node behind it was sampled too rarely.
 * @param {{ master: number|null, replica: number|null, partial?: { master: string[], replica: string[] } }} cpu
 * @param {'master'|'replica'} role
 */
export function cpuCell(cpu, role) {
  return marked(cpu, role, cpu[role]);
}

/** A role's figure, marked when a node behind it was sampled too rarely. */
function marked(cpu, role, value) {
  return `${fixed(value)}${cpu.partial?.[role]?.length ? MARK : ''}`;
}

/**
 * The seed's role columns (master CPU, replica CPU) and, when they are the main thread's, the
 * process's beside them.
 * @param {import('./cpu-summary.js').CpuSummary} cpu
 * @returns {{ header: string[], cells: string[] }}
 */
export function roleCpuColumns(cpu) {
  const header = ['master CPU', 'replica CPU'];
  const cells = [cpuCell(cpu, 'master'), cpuCell(cpu, 'replica')];
  if (!hasEngine(cpu)) return { header, cells };
  return {
    header: [...header, ...PROCESS_HEADER],
    cells: [...cells, marked(cpu, 'master', cpu.process.master), marked(cpu, 'replica', cpu.process.replica)],
  };
}

/** The process columns beside the seed's role columns. */
export const PROCESS_HEADER = ['master process CPU', 'replica process CPU'];

/**
 * The role figures are (at least partly) the main thread's: process CPU is shown beside them.
 * @param {{ basis?: string|null }} cpu
 */
export function hasEngine(cpu) {
  return cpu.basis === 'main thread' || cpu.basis === 'mixed';
}

/**
 * What the role figures are, when they are not every node's main thread: one line.
 * @param {import('./cpu-summary.js').CpuSummary} cpu
 */
export function basisNote(cpu) {
  if (cpu.basis === 'process') return ["Note: this server does not report its main thread's CPU: process CPU shown.", ''];
  if (cpu.basis !== 'mixed') return [];
  const without = [...new Set(cpu.nodes.filter((n) => n.samples > 0 && n.engineAvg === null).map((n) => n.addr))];
  return [
    `Note: ${without.join(', ')} ${without.length === 1 ? 'does' : 'do'} not report the main thread's CPU: master and replica CPU count ${without.length === 1 ? 'its' : 'their'} process CPU instead.`,
    '',
  ];
}

/** The note under the seed's table that explains the mark. */
export function coverageNote(cpu) {
  const nodes = [...(cpu.partial?.master ?? []).map((a) => `${a} (master)`), ...(cpu.partial?.replica ?? []).map((a) => `${a} (replica)`)];
  if (!nodes.length) return [];
  return [
    `${MARK} built from less than ${MIN_COVERAGE * 100}% of the window's seconds for ${nodes.join(', ')} (the node did not answer, or was being reconnected: see the coverage per node below).`,
    '',
  ];
}

/**
 * Redis CPU per node, with coverage: the main thread (engine) and the process, or the process
 * alone when no node reports its main thread.
 * @param {import('./cpu-summary.js').CpuSummary} cpu
 */
export function nodeCpuMd(cpu) {
  if (!cpu.nodes.length) return [];
  const coverageWords = 'coverage: seconds with a sample of the seconds the node was listed';
  if (!cpu.nodes.some((n) => n.engineAvg !== null && n.engineAvg !== undefined)) {
    const rows = cpu.nodes.map((n) => [n.addr, n.role, n.shard, fixed(n.avg), fixed(n.max), coverage(n)]);
    return [
      `Redis CPU per node (% of one core, sampled every second from INFO cpu; ${coverageWords}):`,
      '',
      mdTable(['Node', 'Role', 'Shard', 'CPU avg', 'CPU max', 'Coverage'], rows),
      '',
    ];
  }
  const rows = cpu.nodes.map((n) => [
    n.addr,
    n.role,
    n.shard,
    fixed(n.engineAvg),
    fixed(n.engineMax),
    fixed(n.avg),
    fixed(n.max),
    coverage(n),
  ]);
  return [
    `Redis CPU per node (% of one core, sampled every second from INFO cpu; engine: the main thread, which runs every command; process: the main thread, I/O threads and background threads; ${coverageWords}):`,
    '',
    mdTable(['Node', 'Role', 'Shard', 'Engine CPU avg', 'Engine CPU max', 'Process CPU avg', 'Process CPU max', 'Coverage'], rows),
    '',
  ];
}

function coverage(n) {
  if (n.coverage === undefined) return '-';
  const pct = `${Math.round(n.coverage * 100)}%`;
  return `${pct}${n.gaps ? ` (${n.gaps} gap${n.gaps === 1 ? '' : 's'})` : ''}${n.coverage < MIN_COVERAGE ? ` ${MARK}` : ''}`;
}

/**
 * Why the run exits as it does, when it is not 0.
 * @param {{ exitCode: number, problems: string[] }|undefined} o
 */
export function outcomeMd(o) {
  if (!o || (o.exitCode === 0 && !o.problems.length)) return [];
  return [`**Outcome:** exit ${o.exitCode}${o.problems.length ? ` — ${o.problems.join('; ')}` : ''}.`, ''];
}

/**
 * A role's CPU per shard, e.g. `s1 45% s2 12%` (the live status line's CPU part): each node's
 * main thread, or its process when it does not report one.
 * @param {Array<{ role: string, shard: number, cpuPct: number|null, enginePct?: number|null }>} cpu
 * @param {'master'|'replica'} role
 */
export function cpuByShard(cpu, role) {
  return (
    cpu
      .filter((n) => n.role === role)
      .sort((x, y) => x.shard - y.shard)
      .map((n) => {
        const pct = n.enginePct === undefined ? n.cpuPct : n.enginePct;
        return `s${n.shard} ${pct === null ? '-' : Math.round(pct)}%`;
      })
      .join(' ') || '-'
  );
}
