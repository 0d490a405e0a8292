/**
 * Two runs side by side with deltas: throughput, Redis CPU per role (Redis runs: the main thread's,
 * then the whole process's), what happened to
 * the messages (queue runs), the load generator's CPU, the seed's queue metrics (consumers), and
 * p50/p99/p99.9 of one operation's latency.
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

/** @typedef {Array<[string, (s: Record<string, any>) => unknown, number]>} Metrics [label, value of a summary, decimals] */

/** @type {Metrics} the role figures (main thread where reported), then the process's beside */
const REDIS_CPU = [
  ['master CPU avg %', (s) => s.cpu.master, 1], ['replica CPU avg %', (s) => s.cpu.replica, 1],
  ['master process CPU avg %', (s) => s.cpu.process?.master, 1], ['replica process CPU avg %', (s) => s.cpu.process?.replica, 1],
];

/**
 * Each kind's own figures, before the load generator's CPU and the latency.
 * @type {Record<import('./run-kind.js').ReadKind, Metrics>}
 */
const METRICS = {
  produce: [
    ['Target items/s', (s) => s.target.itemsPerSec, 0], ['Achieved items/s', (s) => s.achieved.itemsPerSec, 0], ['Achieved items/s per writer', (s) => s.achieved.itemsPerWriterPerSec, 0],
    ...REDIS_CPU,
  ],
  consume: [
    ['Cycles/s', (s) => s.cycles.perSecond, 1], ['Items per cycle', (s) => s.perCycle.items, 0], ['Cycles overrun', (s) => s.cycles.overruns, 0],
    ...REDIS_CPU,
  ],
  'queue-publish': [
    ['Target messages/s', (s) => s.rate, 1], ['Achieved messages/s', (s) => s.achievedMessagesPerSec, 1], ['Updates/s', (s) => s.updatesPerSec, 0],
    ['Messages failed', (s) => s.messages.failed, 0], ['Messages unanswered', (s) => s.messages.unanswered, 0], ['Messages never sent', (s) => s.messages.notSent, 0],
  ],
  'queue-consume': [
    ['Messages/s', (s) => s.messagesPerSec, 1], ['Rows updated/s', (s) => s.rowsPerSec, 0], ['Messages applied', (s) => s.counts.messages, 0],
    ['Duplicates', (s) => s.counts.duplicates, 0], ['Missing', (s) => s.nothingLost.missing, 0],
    // the seed's table: reading off the queue and server-side processing (E2E is the main operation below)
    ['Reading off the queue p50 ms', (s) => s.latency.read?.p50, 3], ['Reading off the queue p99.9 ms', (s) => s.latency.read?.p999, 3],
    ['Server side processing p50 ms', (s) => s.latency.processing?.p50, 3], ['Server side processing p99.9 ms', (s) => s.latency.processing?.p999, 3],
  ],
};

/**
 * @param {{ summary: Record<string, any>, latency: Record<string, number>|null }} a latency: the
 *   compared histogram's percentiles (ms) over the run's window, null when it has none
 * @param {{ summary: Record<string, any>, latency: Record<string, number>|null }} b
 * @param {import('./run-kind.js').ReadKind} kind
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
 * @param {import('./run-kind.js').ReadKind} kind
 * @param {string} op the compared operation
 * @returns {Array<[string, (side: { summary: Record<string, any>, latency: Record<string, number>|null }) => unknown, number]>}
 */
function metricsOf(kind, op) {
  /** @type {Array<[string, (side: { summary: Record<string, any>, latency: Record<string, number>|null }) => unknown, number]>} */
  const metrics = METRICS[kind].map(([label, f, decimals]) => [label, (side) => f(side.summary), decimals]);
  metrics.push(['load generator CPU %', (side) => side.summary.client?.cpuPct, 1]);
  for (const [q, label] of [['p50', 'p50'], ['p99', 'p99'], ['p999', 'p99.9']]) {
    metrics.push([`${op} ${label} ms`, (side) => side.latency?.[q], 3]);
  }
  return metrics;
}

/**
 * Every figure of one run, as compare shows them.
 * @param {{ summary: Record<string, any>, latency: Record<string, number>|null }} side
 * @param {import('./run-kind.js').ReadKind} kind
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
  out.push('', mdTable(
    ['Metric', 'A', 'B', 'Δ', 'Δ %'],
    rows.map((r) => [r.metric, show(r.a, r.decimals), show(r.b, r.decimals), signed(r.delta, r.decimals), signed(r.deltaPct, 1, '%')]),
  ), '');
  out.push(`${latencyWords(latency)} CPU is % of one core, averaged over the window${cpuBasis(sides)}. Δ is B − A.`, '');
  return out.join('\n');
}

/**
 * @param {{ op: string, tag: string }} latency
 */
export function latencyWords({ op, tag }) {
  const from = tag === 'intended' ? 'from the intended start (corrected for coordinated omission)' : tag === 'sent' ? 'from the actual send (uncorrected)' : `tag ${tag}`;
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
  if (bases.every((b) => b === 'main thread')) return '; master and replica CPU are the main thread\'s (it runs every command), process CPU adds the I/O and background threads';
  if (bases.every((b) => b === 'process')) return '; master and replica CPU are process CPU (the server does not report its main thread\'s)';
  return `; master and replica CPU are the main thread's where the server reports it: ${sides.map((s) => `${s.label} ${s.summary.cpu?.basis ?? '-'}`).join(', ')} — compare the process rows for like with like`;
}

function numberOr(v) {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
