/**
 * The Results section's counted steps (`count:`, produce-count.js): Redis's instructions per item
 * written, per role, where the master's went, and the system calls and bytes per item the count
 * leaves to the kernel — the summary's `instructions` (runs/common/instructions-summary.js), one
 * row per step. A counted step's CPU and latencies are Valgrind's, so it has no row in the tables
 * of timed steps.
 */
import { fixed, grouped, mdTable } from '../../record/format.js';

/** The split's parts that are not commands (local/callgrind-split.js): reading and parsing, feeding the replicas, … */
const PARTS = ['read', 'replicas', 'expiry', 'cron', 'write', 'other'];

/**
 * @param {import('./kind-contract.js').StepRun[]} steps every step (the counted ones are picked here)
 * @returns {string[]} lines; none when the spec has no counted step
 */
export function countsTable(steps) {
  const counted = steps.filter(({ step }) => step.count);
  if (!counted.length) return [];
  const insOf = (r) => (r?.complete ? r.producer?.instructions : null);
  // on a cluster, where each item's cost lands: every master's share, the busiest's in the check
  const sharded = counted.some(({ r }) => mastersOf(insOf(r)).length > 1);
  const rows = counted.map(({ step, r }) => {
    const ins = insOf(r);
    if (!ins) return [step.label, `x${step.count.timeScale}`, 'not run yet', ...Array(sharded ? 8 : 7).fill('')];
    const m = ins.roles.master;
    const split = m?.split ?? {};
    const commands = Object.entries(split)
      .filter(([k, v]) => !PARTS.includes(k) && typeof v === 'number' && v >= 0.5)
      .sort((a, b) => b[1] - a[1]);
    const sys = m?.syscalls;
    return [
      step.label,
      `x${ins.timeScale}`,
      grouped(ins.items),
      fixed(m?.irPerItem ?? NaN, 0),
      fixed(ins.roles.replica?.irPerItem ?? NaN, 0),
      ...(sharded ? [perMaster(mastersOf(ins))] : []),
      fixed(split.read ?? NaN, 0),
      commands.map(([k, v]) => `${k} ${fixed(v, 0)}`).join(', ') || '-',
      fixed(split.replicas ?? NaN, 0),
      sys ? fixed(sys.readPerItem + sys.writePerItem, 3) : '-',
      m?.bytes ? fixed(m.bytes.readPerItem + m.bytes.writePerItem, 0) : '-',
    ];
  });
  const header = [
    'Step',
    'Time scale',
    'Items counted',
    'master instructions/item',
    'replica instructions/item',
    ...(sharded ? ['each master (shard order), share of the masters'] : []),
    'master read+parse',
    "master's commands",
    'master feeding replicas',
    'master syscalls/item',
    'master bytes read+written/item',
  ];
  return [
    '### Instructions per item (counted steps)',
    '',
    mdTable(header, rows),
    '',
    "Redis's own instructions over each counted step's window, counted under Valgrind's callgrind on nodes the step's producer started (the spec's shape, uncapped), per item acknowledged, every node of a role together, with each node's idle cost (its cron, counted for 5 s before the workload) and rqbench's own sampler commands taken out. The run was dilated by its time scale (rate ÷ K, every time constant × K), so its commands, batches and structure sizes are those of the undilated step. The master's split is per item too: reading and parsing, each command's execution, feeding the replicas; the rest (expiry, cron, writing replies, other) is in each trial's summary.md. System calls and bytes are what the count leaves to the kernel (/proc/<pid>/io).",
    '',
  ];
}

/**
 * @param {any} ins a summary's instructions
 * @returns {Array<{ shard: number, irPerItem: number }>} its masters in shard order
 */
function mastersOf(ins) {
  return (ins?.nodes ?? []).filter((n) => n.role === 'master' && typeof n.irPerItem === 'number').sort((a, b) => a.shard - b.shard);
}

/** "4000 (25%) / 9000 (56%) / 3000 (19%)" */
function perMaster(masters) {
  const all = masters.reduce((s, n) => s + n.irPerItem, 0);
  return masters.map((n) => `${fixed(n.irPerItem, 0)} (${all > 0 ? Math.round((n.irPerItem / all) * 100) : 0}%)`).join(' / ');
}
