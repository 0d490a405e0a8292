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
  const rows = counted.map(({ step, r }) => {
    const ins = r?.complete ? r.producer?.instructions : null;
    if (!ins) return [step.label, `x${step.count.timeScale}`, 'not run yet', ...Array(7).fill('')];
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
