/**
 * `rqbench report --format csv`: the merged timeline, one row per second with the columns of a
 * run's own timeline.csv (as k6's and memtier's CSV outputs are time series), so whatever reads
 * one run's timeline reads a merged one. Per-second percentiles come from the runs' histograms
 * of that second added up, not from their percentiles.
 */
import { readKind } from '../runs/kinds.js';
import { clientColumns, timelineLayout } from '../record/timeline.js';

/**
 * @param {import('../runs/common/merging.js').MergedRuns} m
 * @returns {string} CSV text, header first
 */
export function mergedTimelineCsv(m) {
  const spec = readKind(m.kind).rows;
  const layout = timelineLayout(spec.columns, m.nodeColumns);
  const histogramsAt = m.perSecond(spec.histograms);
  const lines = [layout.columns.join(',')];
  for (const r of m.rows) {
    const row = {
      second: r.index,
      time: r.time,
      ...spec.rowOf({ intended: r.intended, counters: r.counters, hist: histogramsAt(r.index) }),
      ...clientColumns(r.client),
      events: r.events,
    };
    lines.push(layout.line(row, r.cpu));
  }
  return `${lines.join('\n')}\n`;
}
