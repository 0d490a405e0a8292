/**
 * `rqbench report --html`: one run, or the run directories of one run merged exactly (as
 * `rqbench report` merges them), as one HTML page — the summary the markdown report prints, the
 * per-second timeline (the merged timeline.csv, so a hovered second shows the file's values) in
 * panels with cluster actions marked, Redis CPU per node and role, the load generator's own
 * cost, and the main operation's percentile spectrum from the intended start (CO-corrected) and
 * from the send (uncorrected).
 */
import path from 'node:path';
import { readRunDirs } from '../read/run-dirs.js';
import { histogramName, mergeHistograms, mergeRuns } from '../merge-runs.js';
import { renderMergedMd, summarizeMerged } from '../merged-summary.js';
import { mergedTimelineCsv } from '../merged-csv.js';
import { parseTimeline } from '../../record/timeline.js';
import { readKind } from '../../runs/kinds.js';
import { percentilePoints } from '../charts/distribution.js';
import { spectrumSpec, timelineSpec } from './html-charts.js';
import { htmlPage } from './html-page.js';
import { markdownHtml } from './html-markdown.js';

/** The load generator's columns, a panel of their own. */
const CLIENT_PANEL = /** @type {[string, string, string[]]} */ ([
  'Load generator: its CPU (all workers, busiest one) and event-loop delay',
  '% of one core, ms',
  ['client_cpu_pct', 'client_cpu_max_pct', 'loop_delay_p99_ms'],
]);

const TAG_WORDS = { intended: 'from the intended start (corrected for coordinated omission)', sent: 'from the actual send (uncorrected)' };

/**
 * @param {string[]} dirs run directories of one run (one, or several to merge)
 * @returns {string} the page
 * @throws {import('../../usage-error.js').UsageError} as `rqbench report` does on a directory it cannot read
 */
export function runReportHtml(dirs) {
  const runs = readRunDirs(dirs);
  const merged = mergeRuns(runs);
  const summary = summarizeMerged(merged);
  const timeline = parseTimeline(mergedTimelineCsv(merged), 'the merged timeline');
  const window = { from: merged.warmupS, to: merged.durationS };
  const subtitle = `${dirs.length === 1 ? path.resolve(dirs[0]) : `${dirs.length} run directories merged`}`;
  const kind = readKind(merged.kind);
  // the kind's panels (runs/<kind>/): every column of its timeline is in one of them
  const panels = [...kind.panels, CLIENT_PANEL].map(([title, yTitle, columns], i) => ({
    id: `timeline-${i + 1}`,
    title,
    spec: timelineSpec({
      title,
      yTitle,
      rows: timeline.rows,
      window,
      series: columns.filter((c) => timeline.columns.includes(c)).map((c) => ({ column: c, label: c })),
    }),
  }));
  const cpu = { id: 'cpu', title: 'Redis CPU per node and role', spec: cpuSpec(timeline, window) };
  const spectrum = { id: 'spectrum', title: 'Latency by percentile', spec: spectrumOf(runs, merged) };
  const { html } = markdownHtml(renderMergedMd(merged, summary));
  return htmlPage({
    title: `rqbench: ${summary.name ?? path.basename(path.resolve(dirs[0]))}`,
    subtitle,
    sections: [
      { heading: 'Summary', html },
      {
        heading: 'Timeline, second by second',
        html: "<p>From the run's timeline.csv (merged second by second when several directories were given). Shaded: seconds the summary leaves out (warm-up, after the window). Red: cluster actions and faults.</p>",
        charts: withSpecs(panels),
      },
      {
        heading: 'Redis CPU per node and role',
        html: "<p>% of one core each second: a node's main thread (CloudWatch's EngineCPUUtilization) and its whole process; masters solid, replicas dashed. A promoted replica has a line for each role.</p>",
        charts: withSpecs([cpu]),
      },
      {
        heading: 'Latency by percentile',
        html: `<p>The ${kind.mainOp} operation over the summary's window (seconds ${window.from} to ${window.to}), HdrHistogram's percentile axis.</p>`,
        charts: withSpecs([spectrum]),
      },
    ],
  });
}

/** The charts that have data. */
function withSpecs(charts) {
  return /** @type {import('./html-page.js').Chart[]} */ (charts.filter((c) => c.spec));
}

/**
 * A line per node and figure: the main thread where the node reports it, and the process.
 * @param {import('../../record/timeline.js').TimelineFile} timeline
 * @param {{ from: number, to: number }} window
 */
function cpuSpec(timeline, window) {
  const nodes = [...timeline.nodes].sort(
    (a, b) => a.shard - b.shard || (a.role === b.role ? a.addr.localeCompare(b.addr) : a.role === 'master' ? -1 : 1),
  );
  const series = nodes.flatMap((n) => [
    ...(n.engineColumn ? [{ column: n.engineColumn, label: `s${n.shard} ${n.role} ${n.addr} main thread`, group: n.role }] : []),
    { column: n.column, label: `s${n.shard} ${n.role} ${n.addr} process`, group: n.role },
  ]);
  if (!series.length) return null;
  return timelineSpec({ title: 'Redis CPU per node and role', yTitle: '% of one core', rows: timeline.rows, series, window });
}

/**
 * The main operation's spectrum, one curve per tag it recorded in the window.
 * @param {import('../read/run-dirs.js').RunDir[]} runs
 * @param {import('../../runs/common/merging.js').MergedRuns} merged
 */
function spectrumOf(runs, merged) {
  const op = readKind(merged.kind).mainOp;
  const hists = mergeHistograms(runs, { fromSec: merged.warmupS, toSec: merged.durationS, ops: [op] });
  const points = [];
  for (const tag of ['intended', 'sent']) {
    const h = hists.get(histogramName(op, tag));
    if (!h?.totalCount) continue;
    const series = `${op} ${TAG_WORDS[tag]}, n=${h.totalCount}`;
    for (const p of percentilePoints(h)) points.push({ ...p, series });
  }
  return spectrumSpec({ title: `${op} latency by percentile`, subtitle: 'log scales; hover a point for its percentile and value' }, points);
}
