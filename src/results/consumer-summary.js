/** A consumer run's summary.json: per-cycle figures, phases, staleness, CPU per node. */
import { commonSummary, round } from './summary.js';

/**
 * @param {object} p
 * @param {import('./summary.js').SecondRow[]} p.rows
 * @param {Map<string, import('hdr-histogram-js').Histogram>} p.totals
 * @param {number} p.warmupS
 * @param {number} p.durationS
 * @param {number} p.readers
 * @param {number} p.periodMs
 * @param {Record<string, number>} p.totalCounts
 * @param {Record<string, number>} p.errorKinds
 * @param {boolean} p.measuresUniques the model counts uniques (a 0 is then a count, not a gap)
 * @param {Record<string, number>} [p.windowCounts] the counters summed over the window, when the
 *   rows do not carry them all (a report merging runs has each run's sums)
 */
export function summarizeConsumer({ rows, totals, warmupS, durationS, readers, periodMs, totalCounts, errorKinds, measuresUniques, windowCounts }) {
  const common = commonSummary({ rows, totals, warmupS, durationS });
  const w = windowCounts ?? {};
  if (!windowCounts) for (const r of common.windowRows) for (const [k, v] of Object.entries(r.counters)) if (typeof v === 'number') w[k] = (w[k] || 0) + v;
  const cycles = w.cycles || 0;
  const per = (k) => (cycles ? round((w[k] || 0) / cycles) : null);
  const expected = common.window.seconds * readers * (1000 / periodMs);
  const out = {
    window: common.window,
    readers,
    cycles: { count: cycles, expected: round(expected), overruns: w.overruns || 0, perSecond: common.window.seconds ? round(cycles / common.window.seconds) : null },
    perCycle: { cardinality: per('cardinality'), uniques: measuresUniques ? per('uniques') : null, items: per('items'), fetched: per('fetched'), missing: per('missing'), duplicates: per('duplicates'), mismatched: per('mismatched') },
    totals: totalCounts,
    windowCounts: w,
    errorKinds,
    cpu: common.cpu,
    client: common.client,
    latency: common.latency,
  };
  out.verdict = consumerVerdict(out);
  return out;
}

/** @param {ReturnType<typeof summarizeConsumer>} s */
function consumerVerdict(s) {
  if (!s.cycles.count) return 'no cycle completed in the window';
  const notes = [];
  if (s.cycles.overruns) notes.push(`${s.cycles.overruns} of ${s.cycles.count} cycles overran their period`);
  else notes.push('every cycle finished within its period');
  if (s.perCycle.mismatched) notes.push(`${s.perCycle.mismatched} values per cycle did not match their key`);
  if (s.perCycle.missing) notes.push(`${s.perCycle.missing} items per cycle expired between range and fetch`);
  if (s.totals.errors) notes.push(`${s.totals.errors} errors`);
  return notes.join('; ');
}
