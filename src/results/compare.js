/**
 * Two runs side by side with deltas: throughput, Redis CPU per role, the load generator's CPU,
 * and p50/p99/p99.9 of one operation's latency.
 */
import { fixed, grouped, mdTable } from './format.js';
import { round } from './summary.js';

/**
 * @typedef {object} CompareRow
 * @property {string} metric label
 * @property {number|null} a
 * @property {number|null} b
 * @property {number|null} delta b − a
 * @property {number|null} deltaPct (b − a) / a in %, null when a is 0 or missing
 * @property {number} decimals shown in markdown
 */

/**
 * @param {{ summary: Record<string, any> }} a
 * @param {{ summary: Record<string, any> }} b
 * @param {'produce'|'consume'} kind
 * @param {{ op: string, tag: string }} latency which histogram's percentiles
 * @returns {CompareRow[]}
 */
export function compareRows(a, b, kind, { op, tag }) {
  /** @type {Array<[string, (s: Record<string, any>) => unknown, number]>} [label, value of a summary, decimals] */
  const metrics = kind === 'produce'
    ? [['Target items/s', (s) => s.target.itemsPerSec, 0], ['Achieved items/s', (s) => s.achieved.itemsPerSec, 0], ['Achieved items/s per writer', (s) => s.achieved.itemsPerWriterPerSec, 0]]
    : [['Cycles/s', (s) => s.cycles.perSecond, 1], ['Items per cycle', (s) => s.perCycle.items, 0], ['Cycles overrun', (s) => s.cycles.overruns, 0]];
  metrics.push(
    ['master CPU avg %', (s) => s.cpu.master, 1],
    ['replica CPU avg %', (s) => s.cpu.replica, 1],
    ['load generator CPU %', (s) => s.client.cpuPct, 1],
  );
  for (const [q, label] of [['p50', 'p50'], ['p99', 'p99'], ['p999', 'p99.9']]) {
    metrics.push([`${op} ${label} ms`, (s) => s.latency?.[op]?.[tag]?.[q], 3]);
  }
  return metrics.map(([metric, f, decimals]) => {
    const va = numberOr(f(a.summary));
    const vb = numberOr(f(b.summary));
    const delta = va === null || vb === null ? null : round(vb - va, decimals);
    const deltaPct = delta === null || va === 0 ? null : round(((vb - va) / va) * 100, 1);
    return { metric, a: va, b: vb, delta, deltaPct, decimals };
  });
}

/**
 * @param {{ label: string, dir: string, summary: Record<string, any> }[]} sides A then B
 * @param {CompareRow[]} rows
 * @param {{ op: string, tag: string }} latency
 */
export function renderCompareMd(sides, rows, { op, tag }) {
  const show = (v, d) => (v === null ? '-' : d ? fixed(v, d) : grouped(v));
  const signed = (v, d, unit = '') => (v === null ? '-' : `${v > 0 ? '+' : ''}${show(v, d)}${unit}`);
  const out = ['# Comparison', ''];
  for (const s of sides) out.push(`- **${s.label}**: ${s.dir} — ${s.summary.name}${s.summary.interrupted ? ' (interrupted)' : ''}`);
  out.push('', mdTable(
    ['Metric', 'A', 'B', 'Δ', 'Δ %'],
    rows.map((r) => [r.metric, show(r.a, r.decimals), show(r.b, r.decimals), signed(r.delta, r.decimals), signed(r.deltaPct, 1, '%')]),
  ), '');
  const from = tag === 'intended' ? 'from the intended start (corrected for coordinated omission)' : tag === 'sent' ? 'from the actual send (uncorrected)' : `tag ${tag}`;
  out.push(`Latency: ${op}, ${from}, after each run's warm-up. CPU is % of one core, averaged over the window. Δ is B − A.`, '');
  return out.join('\n');
}

function numberOr(v) {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
