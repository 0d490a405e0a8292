/**
 * summary.md's section for --count-instructions: instructions per item per node and role, where
 * they went, and the kernel's part (system calls and bytes per item), in tables like the CPU ones.
 */
import { fixed, grouped, mdTable } from '../../record/format.js';
import { CATEGORIES } from '../../local/callgrind-split.js';

/** Column names of the split's categories (commands are shown by their own names). */
const WORDS = { read: 'read+parse', replicas: 'feed replicas', expiry: 'expiry', cron: 'cron', write: 'write', other: 'other' };

/**
 * @param {import('./instructions-summary.js').InstructionsSummary} s
 * @param {string} perWhat 'item acknowledged' or 'item read'
 * @returns {string[]} lines
 */
export function instructionsMd(s, perWhat) {
  const lines = ['## Instructions per item (Valgrind callgrind)', ''];
  lines.push(
    `Redis's own instructions over the window (${fixed(s.windowSeconds ?? NaN, 1)} s wall), per ${perWhat} (${grouped(s.items)}), ` +
      `with each node's idle cost taken out (its cost per cron run, counted over ${fixed(s.idleSeconds ?? NaN, 1)} s of idle before the workload, times the cron's runs in the window) ` +
      `and the commands of rqbench's own sampler (INFO …, the sampler column) left out. Time scale ${s.timeScale}; Redis's seeds: ${s.seeds ?? '-'}.`,
    '',
  );
  const rows = [
    ...Object.entries(s.roles).map(([role, f]) => ({ name: `all ${role}s`, f })),
    ...s.nodes.map((n) => ({ name: `${n.addr} (${n.role}, shard ${n.shard})`, f: n })),
  ];
  if (!rows.length) return [...lines, 'Nothing was counted.', ...errorLines(s), ''];
  lines.push(
    mdTable(
      [
        'node',
        'Ir in window',
        'idle Ir',
        'sampler Ir',
        'Ir/item',
        'read syscalls/item',
        'write syscalls/item',
        'bytes read/item',
        'bytes written/item',
      ],
      rows.map(({ name, f }) => [
        name,
        grouped(f.ir),
        grouped(f.idleIr),
        grouped(f.samplerIr),
        fixed(f.irPerItem ?? NaN, 0),
        fixed(f.syscalls?.readPerItem ?? NaN, 3),
        fixed(f.syscalls?.writePerItem ?? NaN, 3),
        fixed(f.bytes?.readPerItem ?? NaN, 0),
        fixed(f.bytes?.writePerItem ?? NaN, 0),
      ]),
    ),
    '',
  );
  // commands between reading and the rest, largest first (over every row)
  const commands = [...new Set(rows.flatMap(({ f }) => Object.keys(f.split).filter((k) => !CATEGORIES.includes(k))))];
  const weight = (k) => rows.reduce((a, { f }) => a + Math.abs(f.split[k] ?? 0), 0);
  commands.sort((a, b) => weight(b) - weight(a));
  const cols = ['read', ...commands.filter((k) => weight(k) >= 0.5), ...CATEGORIES.slice(1)];
  lines.push(
    'Where they went, instructions per item (each instruction counted once, in the innermost of: reading and parsing, ' +
      'the command call() ran, feeding the replicas, expiry, cron, writing to clients; the rest is other):',
    '',
    mdTable(
      ['node', ...cols.map((c) => WORDS[c] ?? c)],
      rows.map(({ name, f }) => [name, ...cols.map((c) => fixed(f.split[c] ?? NaN, 0))]),
    ),
    '',
    ...errorLines(s),
  );
  return lines;
}

/** @param {import('./instructions-summary.js').InstructionsSummary} s */
function errorLines(s) {
  return s.errors.length ? [`Not counted: ${s.errors.join('; ')}`, ''] : [];
}
