/**
 * Consumer runs merged (readers of one run, on one host or several): the summary is made by the
 * same summarizeConsumer() that wrote each run's, from the merged seconds and histograms, with the
 * readers' periods put together into the one that gives their cycles per second in total.
 */
import { summarizeConsumer } from './consumer-summary.js';
import { dropsOf, finishRedisMerge, redisMergeInput, sumOf } from '../common/redis-kinds.js';
import { mergedName, oneOf, sumRecords } from '../common/merging.js';
import { flowsOfSummary } from '../common/cost-summary.js';

/**
 * @param {import('../common/merging.js').MergedRuns} m of consumer runs
 * @param {import('../common/timeline-rows.js').TimelineRows} rows the consumer's timeline rows
 * @returns {Record<string, any>}
 */
export function mergeConsumers(m, rows) {
  const { runs } = m;
  const { sums, common, interrupted } = redisMergeInput(m, m.rows);
  const readers = sumOf(sums, (s) => s.readers);
  // the period that gives the runs' cycles per second in total
  const cyclesPerSec = sumOf(runs, (r) => r.summary.readers * (1000 / r.manifest.flags.period));
  const windowCounts = sums.every((s) => s.windowCounts) ? sumRecords(sums.map((s) => s.windowCounts)) : undefined;
  const summary = summarizeConsumer({
    ...common,
    readers,
    periodMs: (readers * 1000) / cyclesPerSec,
    windowCounts,
    measuresUniques: sums.some((s) => s.perCycle?.uniques !== null && s.perCycle?.uniques !== undefined),
    drops: dropsOf(sums, 'reader'),
    // the runs read one cluster: one run's bytes are the cluster's (the first's, as its sampler saw them)
    flows: flowsOfSummary(sums[0].cost),
  });
  Object.assign(summary, {
    name: mergedName(m),
    mode: oneOf(sums.map((s) => s.mode)),
    fetch: oneOf(sums.map((s) => s.fetch)),
    readFrom: oneOf(sums.map((s) => s.readFrom)),
    limit: oneOf(sums.map((s) => s.limit)),
    interrupted,
    readerErrors: sums.flatMap((s) => s.readerErrors ?? []),
  });
  return finishRedisMerge(m, summary, { rows });
}
