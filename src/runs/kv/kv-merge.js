/**
 * kv runs merged (or one read back): the summary is made by the same summarizeKv() that wrote each
 * run's, from the merged seconds and histograms. What timeline.csv has no column for, each node's
 * share of the operations (`ops@<addr>`), comes from the summaries' window counts, added up; the
 * nodes' bytes and memory from the first run's summary (the runs drove one cluster).
 */
import { summarizeKv } from './kv-summary.js';
import { dropsOf, finishRedisMerge, redisMergeInput, sumOf } from '../common/redis-kinds.js';
import { mergedName, oneOf, sumRecords } from '../common/merging.js';
import { flowsOfSummary } from '../common/cost-summary.js';

/**
 * @param {import('../common/merging.js').MergedRuns} m of kv runs
 * @param {import('../common/timeline-rows.js').TimelineRows} rows the kv timeline's rows
 * @returns {Record<string, any>}
 */
export function mergeKv(m, rows) {
  const { sums, common, interrupted } = redisMergeInput(m, m.rows);
  // the mix's operations in each run's table order, every run's once
  const ops = [...new Set(sums.flatMap((s) => Object.keys(s.operations ?? {})))];
  const summary = summarizeKv({
    ...common,
    clients: sumOf(sums, (s) => s.clients),
    ops,
    windowCounts: sums.every((s) => s.windowCounts) ? sumRecords(sums.map((s) => s.windowCounts)) : undefined,
    drops: dropsOf(sums, 'client'),
    flows: flowsOfSummary(sums[0].cost),
  });
  Object.assign(summary, {
    name: mergedName(m),
    seed: oneOf(sums.map((s) => s.seed)),
    preset: oneOf(sums.map((s) => s.preset)),
    interrupted,
    clientErrors: sums.flatMap((s) => s.clientErrors ?? []),
  });
  return finishRedisMerge(m, summary, { rows });
}
