/**
 * `rqbench compare <A> <B>`: two runs side by side with absolute and relative deltas
 * (throughput, Redis CPU per role, latency percentiles of one operation).
 */
import { bad } from '../usage-error.js';
import { checkOneKind, readRunDir } from '../results/run-dirs.js';
import { histogramName, mergeHistograms, mergeRuns } from '../results/merge-runs.js';
import { stats } from '../measure/histogram.js';
import { summarizeMerged } from '../results/merged-summary.js';
import { pickHistogram } from '../results/main-op.js';
import { compareRows, renderCompareMd } from '../results/compare-table.js';
import { printOutput } from './report-run.js';

const PROG = 'rqbench compare';
const FORMATS = ['md', 'json'];

export const command = 'compare <a> <b>';
export const describe = 'two runs side by side: throughput, CPU per role, latency p50/p99/p99.9, with deltas';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return y
    .positional('a', { type: 'string', describe: 'run directory A (the baseline)' })
    .positional('b', { type: 'string', describe: 'run directory B' })
    .option('format', { alias: 'f', type: 'string', requiresArg: true, describe: 'md or json', defaultDescription: 'md' })
    .option('op', { type: 'string', requiresArg: true, describe: 'the operation whose latency is compared', defaultDescription: 'batch (producer), cycle (consumer), publish (queue publisher), e2e (queue consumer)' })
    .option('tag', { type: 'string', requiresArg: true, describe: 'intended (from the intended start, corrected) or sent (from the actual send, uncorrected)', defaultDescription: 'intended' })
    .example('$0 compare runs/<zset-run> runs/<list-run>', 'sorted set vs list at the same rate')
    .example('$0 compare <A> <B> --op setex --tag sent --format json', 'SETEX latency, uncorrected, as JSON');
}

/**
 * @param {Record<string, any>} a parsed flags
 */
export async function handler(a) {
  printOutput(PROG, () => compare(a));
}

/**
 * @param {Record<string, any>} a
 * @returns {string} what goes to stdout
 */
function compare(a) {
  const format = a.format ?? 'md';
  if (!FORMATS.includes(format)) throw bad('--format', FORMATS.join(' or '), format);
  const runs = checkOneKind([readRunDir(a.a), readRunDir(a.b)]);
  const latency = pickHistogram(runs, { op: a.op, tag: a.tag, opFlag: '--op' });
  // each side through the report's merge, so compare and report agree on every number; the
  // compared histogram over the side's window, as `report --spectrum` reads it, for every kind
  const sides = runs.map((run, i) => {
    const merged = mergeRuns([run]);
    const h = mergeHistograms([run], { fromSec: merged.warmupS, toSec: merged.durationS, ops: [latency.op] }).get(histogramName(latency.op, latency.tag));
    return { label: 'AB'[i], dir: run.dir, summary: summarizeMerged(merged), latency: h?.totalCount ? stats(h) : null };
  });
  const rows = compareRows(sides[0], sides[1], runs[0].kind, latency);
  if (format === 'json') {
    const side = (s) => ({ dir: s.dir, name: s.summary.name, runId: s.summary.merged.runId, interrupted: s.summary.interrupted });
    return `${JSON.stringify({ kind: runs[0].kind, a: side(sides[0]), b: side(sides[1]), latency: { op: latency.op, tag: latency.tag }, metrics: rows.map(({ decimals, ...r }) => r) }, null, 2)}\n`;
  }
  return `${renderCompareMd(sides, rows, latency)}\n`;
}
