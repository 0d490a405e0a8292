/**
 * The summary of merged runs, built by the same code that wrote each run's summary.json and
 * summary.md (its kind's merge and summaryMd, runs/<kind>/), so one run reported alone reads
 * like its own summary and N runs read like one.
 */
import path from 'node:path';
import { grouped, mdTable } from '../record/format.js';
import { readKind } from '../runs/kinds.js';
import { noiseLine } from '../runs/common/noise-md.js';

/** @typedef {import('../runs/common/merging.js').MergedRuns} MergedRuns */
/** @typedef {import('../runs/common/merging.js').RunDir} RunDir */

/**
 * @param {MergedRuns} m
 * @returns {Record<string, any>} summary.json's shape, plus `merged` (runs, run id, notes)
 */
export function summarizeMerged(m) {
  const { runs } = m;
  const { workers } = readKind(m.kind);
  const summary = readKind(m.kind).merge(m);
  summary.merged = {
    runId: runs[0].manifest.runId ?? null,
    sharedT0: m.sharedT0,
    runs: runs.map((r) => ({
      dir: r.dir,
      host: r.manifest.host?.hostname ?? null,
      t0: r.manifest.t0,
      [workers.key]: workers.of(r),
      stopped: r.stopped ?? null,
    })),
    // runs killed before their end (read/stopped-run.js): who, where, and the second they stopped in
    stopped: runs.filter((r) => r.stopped).map((r) => ({ dir: r.dir, ...r.stopped })),
    notes: m.notes,
  };
  return summary;
}

/**
 * summary.md for merged runs: the run's own layout, then (for more than one) the runs merged.
 * @param {MergedRuns} m
 * @param {Record<string, any>} summary from summarizeMerged()
 */
export function renderMergedMd(m, summary) {
  const kind = readKind(m.kind);
  const one = m.runs.length === 1;
  const first = m.runs[0].manifest;
  const description = one
    ? first.description
    : `${m.runs.length} run directories merged${summary.merged.runId ? ` (run id ${summary.merged.runId})` : ''}${m.sharedT0 ? `, on one schedule from ${first.startedAt}` : ''}: histograms added, counts summed per second${kind.serverCpu ? ", each node's CPU averaged over the runs that sampled it" : ''}. First run: ${first.description}`;
  const run = { name: summary.name, description, interrupted: summary.interrupted };
  // summarizeMerged() built the summary with the kind's own merge
  const out = [kind.summaryMd(run, summary)];
  if (summary.progressNote) out.push(`Note: ${summary.progressNote}.`, '');
  out.push(...stoppedMd(m.runs, summary));
  if (!one) {
    out.push(
      'Runs merged:',
      '',
      mdTable(
        ['Run directory', 'Host', kind.workers.header, 'Started'],
        summary.merged.runs.map((r) => [
          r.dir,
          r.host ?? '-',
          [r[kind.workers.key]].flat().join(', ') || '-',
          new Date(r.t0).toISOString(),
        ]),
      ),
      '',
    );
  }
  for (const note of m.notes) out.push(`Note: ${note}.`, '');
  // each run's host noise, as its own summary.md ends (one run reads exactly like it)
  const noisy = m.runs.filter((r) => r.summary?.noise);
  if (!noisy.length) return out.join('\n');
  const lines = one
    ? [noiseLine(m.runs[0].summary.noise)]
    : ['Host noise, run by run:', '', ...noisy.map((r) => `- ${path.basename(r.dir)}: ${noiseLine(r.summary.noise)}`)];
  return `${out.join('\n').trimEnd()}\n\n${lines.join('\n')}\n`;
}

/**
 * The merged summary's lines about runs that stopped before their end, and a read-back that did
 * not cover every run.
 * @param {RunDir[]} runs
 * @param {Record<string, any>} summary from summarizeMerged()
 * @returns {string[]} markdown lines
 */
function stoppedMd(runs, summary) {
  const out = [];
  for (const r of runs) if (r.stopped) out.push(`**Stopped:** ${r.dir}: ${readKind(r.kind).stopped?.words(r.stopped)}.`, '');
  const notRun = summary.verify?.notRun ?? [];
  if (notRun.length)
    out.push(
      `**Verify coverage:** covers ${grouped(summary.verify.ofRuns - notRun.length)} of the ${grouped(summary.verify.ofRuns)} runs that asked for it; not read back: ${notRun.join(', ')}.`,
      '',
    );
  return out;
}
