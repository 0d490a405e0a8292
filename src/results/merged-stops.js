/**
 * What a merged producer summary adds up besides counts and histograms: each run's --verify
 * read-back, and runs that stopped before their end (stopped-run.js): the schedule they no longer
 * ran still counts as intended, so the merged achieved rate shows the share a lost host did not
 * write, and the summary says who stopped and when.
 */
import { grouped } from './format.js';
import { stoppedWords } from './stopped-run.js';

/** @typedef {import('./report-dirs.js').ReportRun} ReportRun */

/**
 * The merged seconds with each stopped run's intended items added after its last second, up to the
 * window's end: what its schedule still held (its target rate each second: exact for a 1 s period,
 * the period's average otherwise).
 * @param {{ runs: ReportRun[], rows: import('./merge-runs.js').MergedSecond[], durationS: number }} m
 * @returns {import('./merge-runs.js').MergedSecond[]}
 */
export function withOwedSeconds(m) {
  const stopped = m.runs.filter((r) => r.stopped);
  if (!stopped.length) return m.rows;
  return m.rows.map((row) => {
    const owed = stopped.filter((r) => row.index > /** @type {any} */ (r.stopped).lastSecond && row.index < m.durationS)
      .reduce((n, r) => n + Math.round(r.summary.target.itemsPerSec), 0);
    return owed ? { ...row, intended: row.intended + owed } : row;
  });
}

/**
 * The runs' --verify results added up: acknowledged, present, lost and mismatched items summed,
 * lost ones by second summed, the read-back time the longest (they ran side by side). Runs that
 * asked for --verify and have no result (a stopped run never read back) are listed in `notRun`
 * (`ofRuns`: how many asked).
 * @param {ReportRun[]} runs of a producer
 * @returns {Record<string, any>|undefined} undefined when no run asked for --verify
 */
export function mergedVerify(runs) {
  const asked = runs.filter((r) => r.manifest.flags?.verify || r.summary.verify);
  if (!asked.length) return undefined;
  /** @type {Record<string, any>} */
  const v = { acked: 0, present: 0, lost: 0, mismatched: 0, lostSample: [], lostBySecond: {}, ms: 0 };
  for (const r of asked) {
    const own = r.summary.verify;
    if (!own) continue;
    if (own.skipped && !v.skipped) v.skipped = `${r.dir}: ${own.skipped}`;
    if (own.error && !v.error) v.error = `${r.dir}: ${own.error}`;
    for (const k of ['acked', 'present', 'lost', 'mismatched']) v[k] += Number(own[k]) || 0;
    v.ms = Math.max(v.ms, Number(own.ms) || 0);
    v.lostSample = [...v.lostSample, ...(own.lostSample ?? [])].slice(0, 10);
    for (const [sec, n] of Object.entries(own.lostBySecond ?? {})) v.lostBySecond[sec] = (v.lostBySecond[sec] ?? 0) + Number(n);
  }
  const notRun = asked.filter((r) => !r.summary.verify).map((r) => r.dir);
  if (notRun.length) Object.assign(v, { notRun, ofRuns: asked.length });
  return v;
}

/**
 * The merged summary's lines about stopped runs and a read-back that did not cover every run.
 * @param {ReportRun[]} runs
 * @param {Record<string, any>} summary from summarizeMerged()
 * @returns {string[]} markdown lines
 */
export function stoppedMd(runs, summary) {
  const out = [];
  for (const r of runs) if (r.stopped) out.push(`**Stopped:** ${r.dir}: ${stoppedWords(r.stopped)}.`, '');
  const notRun = summary.verify?.notRun ?? [];
  if (notRun.length) out.push(`**Verify coverage:** covers ${grouped(summary.verify.ofRuns - notRun.length)} of the ${grouped(summary.verify.ofRuns)} runs that asked for it; not read back: ${notRun.join(', ')}.`, '');
  return out;
}
