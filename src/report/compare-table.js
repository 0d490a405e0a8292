/**
 * Two runs side by side with deltas: the figures their kind declares (throughput, Redis CPU per
 * role, what happened to the messages, the seed's queue metrics: runs/<kind>/), the load
 * generator's CPU, and p50/p99/p99.9 of one operation's latency.
 */
import { fixed, grouped, mdTable } from '../record/format.js';
import { round } from '../record/numbers.js';
import { readKind } from '../runs/kinds.js';

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
 * @param {{ summary: Record<string, any>, latency: Record<string, number>|null }} a latency: the
 *   compared histogram's percentiles (ms) over the run's window, null when it has none
 * @param {{ summary: Record<string, any>, latency: Record<string, number>|null }} b
 * @param {string} kind
 * @param {{ op: string, tag: string }} latency which histogram's percentiles
 * @returns {CompareRow[]}
 */
export function compareRows(a, b, kind, { op }) {
  return metricsOf(kind, op).map(([metric, f, decimals]) => {
    const va = numberOr(f(a));
    const vb = numberOr(f(b));
    const delta = va === null || vb === null ? null : round(vb - va, decimals);
    const deltaPct = delta === null || va === 0 ? null : round(((vb - va) / va) * 100, 1);
    return { metric, a: va, b: vb, delta, deltaPct, decimals };
  });
}

/**
 * The figures compare shows for a kind of run, each read off one run (its summary, and its own
 * latency percentiles).
 * @param {string} kind
 * @param {string} op the compared operation
 * @returns {Array<[string, (side: { summary: Record<string, any>, latency: Record<string, number>|null }) => unknown, number]>}
 */
function metricsOf(kind, op) {
  /** @type {Array<[string, (side: { summary: Record<string, any>, latency: Record<string, number>|null }) => unknown, number]>} */
  // the kind's own figures (runs/<kind>/), then the load generator's CPU and the latency
  const metrics = readKind(kind).compare.map(([label, f, decimals]) => [label, (side) => f(side.summary), decimals]);
  metrics.push(['load generator CPU %', (side) => side.summary.client?.cpuPct, 1]);
  for (const [q, label] of [
    ['p50', 'p50'],
    ['p99', 'p99'],
    ['p999', 'p99.9'],
  ]) {
    metrics.push([`${op} ${label} ms`, (side) => side.latency?.[q], 3]);
  }
  return metrics;
}

/**
 * Every figure of one run, as compare shows them.
 * @param {{ summary: Record<string, any>, latency: Record<string, number>|null }} side
 * @param {string} kind
 * @param {string} op
 * @returns {Array<{ metric: string, value: number|null, decimals: number }>}
 */
export function runFigures(side, kind, op) {
  return metricsOf(kind, op).map(([metric, f, decimals]) => ({ metric, value: numberOr(f(side)), decimals }));
}

/**
 * @param {{ label: string, dir: string, summary: Record<string, any> }[]} sides A then B
 * @param {CompareRow[]} rows
 * @param {{ op: string, tag: string }} latency
 */
export function renderCompareMd(sides, rows, latency) {
  const show = (v, d) => (v === null ? '-' : d ? fixed(v, d) : grouped(v));
  const signed = (v, d, unit = '') => (v === null ? '-' : `${v > 0 ? '+' : ''}${show(v, d)}${unit}`);
  const out = ['# Comparison', ''];
  for (const s of sides) out.push(`- **${s.label}**: ${s.dir} — ${s.summary.name}${s.summary.interrupted ? ' (interrupted)' : ''}`);
  out.push(
    '',
    mdTable(
      ['Metric', 'A', 'B', 'Δ', 'Δ %'],
      rows.map((r) => [r.metric, show(r.a, r.decimals), show(r.b, r.decimals), signed(r.delta, r.decimals), signed(r.deltaPct, 1, '%')]),
    ),
    '',
  );
  out.push(`${latencyWords(latency)} CPU is % of one core, averaged over the window${cpuBasis(sides)}. Δ is B − A.`, '');
  return out.join('\n');
}

/**
 * @param {{ op: string, tag: string }} latency
 */
export function latencyWords({ op, tag }) {
  const from =
    tag === 'intended'
      ? 'from the intended start (corrected for coordinated omission)'
      : tag === 'sent'
        ? 'from the actual send (uncorrected)'
        : `tag ${tag}`;
  return `Latency: ${op}, ${from}, after each run's warm-up.`;
}

/**
 * What the master and replica CPU rows are: the main thread's (process CPU adds the I/O and
 * background threads), and a warning when the two runs' figures are not the same kind.
 * @param {{ label: string, summary: Record<string, any> }[]} sides
 */
export function cpuBasis(sides) {
  const bases = sides.map((s) => s.summary.cpu?.basis).filter((b) => b !== undefined && b !== null);
  if (!bases.length) return '';
  if (bases.every((b) => b === 'main thread'))
    return "; master and replica CPU are the main thread's (it runs every command), process CPU adds the I/O and background threads";
  if (bases.every((b) => b === 'process')) return "; master and replica CPU are process CPU (the server does not report its main thread's)";
  return `; master and replica CPU are the main thread's where the server reports it: ${sides.map((s) => `${s.label} ${s.summary.cpu?.basis ?? '-'}`).join(', ')} — compare the process rows for like with like`;
}

function numberOr(v) {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
