/**
 * `rqbench report --html`: one run, or the run directories of one run merged exactly (as
 * `rqbench report` merges them), as one HTML page — the summary the markdown report prints, the
 * per-second timeline (the merged timeline.csv, so a hovered second shows the file's values) in
 * panels with cluster actions marked, Redis CPU per node and role, the load generator's own
 * cost, and the main operation's percentile spectrum from the intended start (CO-corrected) and
 * from the send (uncorrected).
 */
import path from 'node:path';
import { readRunDirs } from '../run-dirs.js';
import { histogramName, mergeHistograms, mergeRuns } from '../merge-runs.js';
import { renderMergedMd, summarizeMerged } from '../merged-summary.js';
import { mergedTimelineCsv } from '../merged-csv.js';
import { parseTimeline } from '../timeline.js';
import { MAIN_OP } from '../main-op.js';
import { percentilePoints } from '../charts/distribution.js';
import { spectrumSpec, timelineSpec } from './html-charts.js';
import { htmlPage } from './html-page.js';
import { markdownHtml } from './html-markdown.js';

/**
 * Each kind's timeline panels: [title, y axis, columns]. Every column of a kind's timeline is in
 * one of them (test/e2e/html-report.test.js holds them to results/timeline-rows.js).
 * @type {Record<import('../run-kind.js').ReadKind, Array<[string, string, string[]]>>}
 */
export const PANELS = {
  produce: [
    ['Items per second: due by the schedule, sent, acknowledged', 'items per second', ['intended', 'sent', 'acked']],
    ['Failures, redirects and retries per second', 'per second', ['failed', 'moved', 'ask', 'retries', 'tryagain', 'clusterdown', 'conn_retries', 'errors']],
    ['Latency per second: batch p50 and p99 from the intended start, schedule lag', 'ms', ['batch_p50_ms', 'batch_p99_ms', 'lag_p99_ms', 'inflight_wait_ms']],
  ],
  consume: [
    ['Reader cycles per second, and reads sent to another node of a shard whose replica stopped answering', 'per second', ['cycles', 'failed_cycles', 'empty_cycles', 'overruns', 'replica_fallbacks']],
    ['Items per cycle second: live items, fetched, missing', 'per second', ['cardinality_avg', 'items', 'fetched', 'missing', 'duplicates', 'mismatched', 'errors']],
    ['Latency per second: cycle p50 and p99, staleness p99', 'ms', ['cycle_p50_ms', 'cycle_p99_ms', 'staleness_p99_ms']],
  ],
  'queue-publish': [
    ['Messages per second: due, sent, acknowledged', 'messages per second', ['intended', 'sent', 'acked', 'failed', 'unanswered']],
    ['Updates and bytes per second', 'per second', ['updates', 'bytes']],
    ['Latency per second: publish p50 and p99, schedule lag', 'ms', ['publish_p50_ms', 'publish_p99_ms', 'lag_p99_ms']],
  ],
  'queue-consume': [
    ['Messages per second: applied, receives, rows', 'per second', ['messages', 'receives', 'rows', 'duplicates', 'malformed']],
    ['Bytes per second', 'bytes per second', ['bytes']],
    ['E2E latency per second: from the intended send and from the send', 'ms', ['e2e_p50_ms', 'e2e_p99_ms', 'e2e_sent_p50_ms', 'e2e_sent_p99_ms']],
  ],
};

/** The load generator's columns, a panel of their own. */
const CLIENT_PANEL = /** @type {[string, string, string[]]} */ (['Load generator: its CPU (all workers, busiest one) and event-loop delay', '% of one core, ms', ['client_cpu_pct', 'client_cpu_max_pct', 'loop_delay_p99_ms']]);

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
  const panels = [...PANELS[merged.kind], CLIENT_PANEL].map(([title, yTitle, columns], i) => ({
    id: `timeline-${i + 1}`, title,
    spec: timelineSpec({ title, yTitle, rows: timeline.rows, window, series: columns.filter((c) => timeline.columns.includes(c)).map((c) => ({ column: c, label: c })) }),
  }));
  const cpu = { id: 'cpu', title: 'Redis CPU per node and role', spec: cpuSpec(timeline, window) };
  const spectrum = { id: 'spectrum', title: 'Latency by percentile', spec: spectrumOf(runs, merged) };
  const { html } = markdownHtml(renderMergedMd(merged, summary));
  return htmlPage({
    title: `rqbench: ${summary.name ?? path.basename(path.resolve(dirs[0]))}`,
    subtitle,
    sections: [
      { heading: 'Summary', html },
      { heading: 'Timeline, second by second', html: '<p>From the run\'s timeline.csv (merged second by second when several directories were given). Shaded: seconds the summary leaves out (warm-up, after the window). Red: cluster actions and faults.</p>', charts: withSpecs(panels) },
      { heading: 'Redis CPU per node and role', html: '<p>% of one core each second: a node\'s main thread (CloudWatch\'s EngineCPUUtilization) and its whole process; masters solid, replicas dashed. A promoted replica has a line for each role.</p>', charts: withSpecs([cpu]) },
      { heading: 'Latency by percentile', html: `<p>The ${MAIN_OP[merged.kind]} operation over the summary's window (seconds ${window.from} to ${window.to}), HdrHistogram's percentile axis.</p>`, charts: withSpecs([spectrum]) },
    ],
  });
}

/** The charts that have data. */
function withSpecs(charts) {
  return /** @type {import('./html-page.js').Chart[]} */ (charts.filter((c) => c.spec));
}

/**
 * A line per node and figure: the main thread where the node reports it, and the process.
 * @param {import('../timeline.js').TimelineFile} timeline
 * @param {{ from: number, to: number }} window
 */
function cpuSpec(timeline, window) {
  const nodes = [...timeline.nodes].sort((a, b) => a.shard - b.shard || (a.role === b.role ? a.addr.localeCompare(b.addr) : a.role === 'master' ? -1 : 1));
  const series = nodes.flatMap((n) => [
    ...(n.engineColumn ? [{ column: n.engineColumn, label: `s${n.shard} ${n.role} ${n.addr} main thread`, group: n.role }] : []),
    { column: n.column, label: `s${n.shard} ${n.role} ${n.addr} process`, group: n.role },
  ]);
  if (!series.length) return null;
  return timelineSpec({ title: 'Redis CPU per node and role', yTitle: '% of one core', rows: timeline.rows, series, window });
}

/**
 * The main operation's spectrum, one curve per tag it recorded in the window.
 * @param {import('../run-dirs.js').RunDir[]} runs
 * @param {import('../merge-runs.js').MergedRuns} merged
 */
function spectrumOf(runs, merged) {
  const op = MAIN_OP[merged.kind];
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
