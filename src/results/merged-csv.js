/**
 * `rqbench report --format csv`: the merged timeline, one row per second with the columns of a
 * run's own timeline.csv (as k6's and memtier's CSV outputs are time series), so whatever reads
 * one run's timeline reads a merged one. Per-second percentiles come from the runs' histograms
 * of that second added up, not from their percentiles.
 */
import { ROWS_OF } from './timeline-rows.js';
import { clientColumns, timelineLayout } from './timeline.js';
import { perSecondHistograms } from './merge-runs.js';

/**
 * @param {import('./merge-runs.js').MergedRuns} m
 * @returns {string} CSV text, header first
 */
export function mergedTimelineCsv(m) {
  const spec = ROWS_OF[m.kind];
  const layout = timelineLayout(spec.columns, m.nodeColumns);
  const histogramsAt = perSecondHistograms(m.runs, spec.histograms);
  const lines = [layout.columns.join(',')];
  for (const r of m.rows) {
    const row = { second: r.index, time: r.time, ...spec.rowOf({ intended: r.intended, counters: r.counters, hist: histogramsAt(r.index) }), ...clientColumns(r.client), events: r.events };
    lines.push(layout.line(row, r.cpu));
  }
  return `${lines.join('\n')}\n`;
}
