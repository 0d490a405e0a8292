/**
 * The parts of summary.md that producer and consumer share: Redis CPU per node with each node's
 * sample coverage (a figure from too few of its seconds is marked, never passed off as whole),
 * and the run's outcome.
 */
import { fixed, mdTable } from './format.js';
import { MIN_COVERAGE } from './summary.js';

const MARK = '†';

/**
 * A role's CPU in the seed's table, marked when a node behind it was sampled too rarely.
 * @param {{ master: number|null, replica: number|null, partial?: { master: string[], replica: string[] } }} cpu
 * @param {'master'|'replica'} role
 */
export function cpuCell(cpu, role) {
  return `${fixed(cpu[role])}${cpu.partial?.[role]?.length ? MARK : ''}`;
}

/** The note under the seed's table that explains the mark. */
export function coverageNote(cpu) {
  const nodes = [...(cpu.partial?.master ?? []).map((a) => `${a} (master)`), ...(cpu.partial?.replica ?? []).map((a) => `${a} (replica)`)];
  if (!nodes.length) return [];
  return [`${MARK} built from less than ${MIN_COVERAGE * 100}% of the window's seconds for ${nodes.join(', ')} (the node did not answer, or was being reconnected: see the coverage per node below).`, ''];
}

/** Redis CPU per node, with coverage. */
export function nodeCpuMd(cpu) {
  if (!cpu.nodes.length) return [];
  const rows = cpu.nodes.map((n) => [n.addr, n.role, n.shard, fixed(n.avg), fixed(n.max), coverage(n)]);
  return [
    'Redis CPU per node (% of one core, sampled every second from INFO cpu; coverage: seconds with a sample of the seconds the node was listed):', '',
    mdTable(['Node', 'Role', 'Shard', 'CPU avg', 'CPU max', 'Coverage'], rows), '',
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
 * Master CPU per shard, e.g. `s1 45% s2 12%` (the live status line's CPU part).
 * @param {Array<{ role: string, shard: number, cpuPct: number|null }>} cpu
 * @param {'master'|'replica'} role
 */
export function cpuByShard(cpu, role) {
  return cpu.filter((n) => n.role === role).sort((x, y) => x.shard - y.shard)
    .map((n) => `s${n.shard} ${n.cpuPct === null ? '-' : Math.round(n.cpuPct)}%`).join(' ') || '-';
}
