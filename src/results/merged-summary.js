/**
 * The summary of merged runs, built by the same code that wrote each run's summary.json and
 * summary.md, so one run reported alone reads like its own summary and N runs read like one.
 */
import path from 'node:path';
import { summarize } from './summary.js';
import { renderSummaryMd } from './summary-md.js';
import { summarizeConsumer } from './consumer-summary.js';
import { renderConsumerMd } from './consumer-summary-md.js';
import { mergeHistograms, oneOf, perSecondHistograms, sumRecords } from './merge-runs.js';
import { episodes } from './disturbance.js';
import { ROWS_OF } from './timeline-rows.js';
import { mdTable } from './format.js';
import { isQueue } from './run-kind.js';
import { summarizeQueue } from './queue-summary.js';
import { renderConsumerMd as renderQueueConsumerMd } from './queue-consumer-summary.js';
import { renderPublisherMd } from './queue-publisher-summary.js';
import { noiseLine } from './noise-md.js';
import { mergedVerify, stoppedMd, withOwedSeconds } from './merged-stops.js';

/**
 * @param {import('./merge-runs.js').MergedRuns} m
 * @returns {Record<string, any>} summary.json's shape, plus `merged` (runs, run id, notes)
 */
export function summarizeMerged(m) {
  const { runs } = m;
  // a queue summary has its own shape (messages, not items): one run's, or runs merged into it
  const summary = isQueue(m.kind) ? { ...summarizeQueue(m), name: nameOf(m) } : summarizeRedis(m);
  summary.merged = {
    runId: runs[0].manifest.runId ?? null,
    sharedT0: m.sharedT0,
    runs: runs.map((r) => ({ dir: r.dir, host: r.manifest.host?.hostname ?? null, t0: r.manifest.t0, [workersKey(r)]: workersOf(r), stopped: stoppedOf(r) })),
    // runs killed before their end (stopped-run.js): who, where, and the second they stopped in
    stopped: runs.filter((r) => stoppedOf(r)).map((r) => ({ dir: r.dir, ...stoppedOf(r) })),
    notes: m.notes,
  };
  return summary;
}

/**
 * @param {import('./merge-runs.js').MergedRuns} m of a Redis producer or consumer
 * @returns {Record<string, any>}
 */
function summarizeRedis(m) {
  const { runs, warmupS, durationS } = m;
  // a stopped run's schedule after its last second is still intended: its missing share shows
  const rows = m.kind === 'produce' ? withOwedSeconds(m) : m.rows;
  const sums = runs.map((r) => r.summary);
  // the rows' window: histograms of a second past it (a Ctrl-C, the drain) are left out as the rows are
  const totals = mergeHistograms(runs, { fromSec: warmupS, toSec: durationS });
  const common = { rows, totals, warmupS, durationS, totalCounts: sumRecords(sums.map((s) => s.totals)), errorKinds: sumRecords(sums.map((s) => s.errorKinds)) };
  const interrupted = sums.some((s) => s.interrupted);
  let summary;
  if (m.kind === 'produce') {
    const targetRate = sumOf(sums, (s) => s.target.itemsPerSec);
    const writers = sumOf(sums, (s) => s.writers);
    // each run's acknowledged items due in its window (older runs: its rate x its seconds)
    const ackedInWindow = sumOf(sums, (s) => s.achieved.items ?? Math.round(s.achieved.itemsPerSec * s.window.seconds));
    summary = summarize({
      ...common, ackedInWindow, targetRate, writers,
      drops: dropsOf(sums, 'writer'),
    });
    Object.assign(summary, { name: nameOf(m), mode: oneOf(sums.map((s) => s.mode)), sentBy: oneOf(sums.map(sentByOf)), interrupted, writerErrors: sums.flatMap((s) => s.writerErrors ?? []), itemsPerWriterPerSecTarget: targetRate / writers });
  } else {
    const readers = sumOf(sums, (s) => s.readers);
    // the period that gives the runs' cycles per second in total
    const cyclesPerSec = sumOf(runs, (r) => r.summary.readers * (1000 / r.manifest.flags.period));
    const windowCounts = sums.every((s) => s.windowCounts) ? sumRecords(sums.map((s) => s.windowCounts)) : undefined;
    summary = summarizeConsumer({
      ...common, readers, periodMs: (readers * 1000) / cyclesPerSec, windowCounts,
      measuresUniques: sums.some((s) => s.perCycle?.uniques !== null && s.perCycle?.uniques !== undefined),
      drops: dropsOf(sums, 'reader'),
    });
    Object.assign(summary, {
      name: nameOf(m), mode: oneOf(sums.map((s) => s.mode)), fetch: oneOf(sums.map((s) => s.fetch)), readFrom: oneOf(sums.map((s) => s.readFrom)),
      limit: oneOf(sums.map((s) => s.limit)), interrupted, readerErrors: sums.flatMap((s) => s.readerErrors ?? []),
    });
  }
  if (runs.length === 1) {
    // one run read back: what only the run itself could know (acknowledgements by the second they
    // were due in, the read-back, how it ended) comes from its own summary
    for (const k of ['disturbances', 'actions', 'disturbance', 'verify', 'outcome', 'unreachable', 'warnings', 'missingWhy', 'noise', 'stopped']) {
      if (sums[0][k] !== undefined) summary[k] = sums[0][k];
    }
    if (m.kind === 'produce') summary.verdict = sums[0].verdict;
    // a stopped run has no episodes of its own: made from its seconds, as for merged runs
    if (stoppedOf(runs[0])) summary.disturbances = mergedEpisodes(m);
  } else {
    summary.disturbances = mergedEpisodes(m);
    const problems = sums.flatMap((s, i) => (s.outcome?.problems ?? []).map((p) => `${runs[i].dir}: ${p}`));
    const codes = sums.map((s) => s.outcome?.exitCode ?? 0);
    summary.outcome = { exitCode: codes.find((c) => c > 1) ?? Math.max(...codes), problems };
    // each host's noise is its own: kept run by run, and noisy when any of them was
    const noise = runs.filter((r) => r.summary.noise).map((r) => ({ dir: r.dir, ...r.summary.noise }));
    if (noise.length) summary.noise = { noisy: noise.some((n) => n.noisy), runs: noise };
    const verify = m.kind === 'produce' ? mergedVerify(runs) : undefined;
    if (verify) summary.verify = verify;
  }
  return summary;
}

/**
 * summary.md for merged runs: the run's own layout, then (for more than one) the runs merged.
 * @param {import('./merge-runs.js').MergedRuns} m
 * @param {Record<string, any>} summary from summarizeMerged()
 */
export function renderMergedMd(m, summary) {
  const one = m.runs.length === 1;
  const first = m.runs[0].manifest;
  const description = one
    ? first.description
    : `${m.runs.length} run directories merged${summary.merged.runId ? ` (run id ${summary.merged.runId})` : ''}${m.sharedT0 ? `, on one schedule from ${first.startedAt}` : ''}: histograms added, counts summed per second${isQueue(m.kind) ? '' : ", each node's CPU averaged over the runs that sampled it"}. First run: ${first.description}`;
  const run = { name: summary.name, description, interrupted: summary.interrupted };
  // summarizeMerged() built the summary with the kind's own summarize function
  const out = [renderOfKind(m.kind, run, summary)];
  if (summary.progressNote) out.push(`Note: ${summary.progressNote}.`, '');
  out.push(...stoppedMd(m.runs, summary));
  if (!one) {
    const key = workersKey(m.runs[0]);
    out.push('Runs merged:', '', mdTable(
      ['Run directory', 'Host', WORKERS_HEADER[key], 'Started'],
      summary.merged.runs.map((r) => [r.dir, r.host ?? '-', [r[key]].flat().join(', ') || '-', new Date(r.t0).toISOString()]),
    ), '');
  }
  for (const note of m.notes) out.push(`Note: ${note}.`, '');
  // each run's host noise, as its own summary.md ends (one run reads exactly like it)
  const noisy = m.runs.filter((r) => r.summary?.noise);
  if (!noisy.length) return out.join('\n');
  const lines = one ? [noiseLine(m.runs[0].summary.noise)] : ['Host noise, run by run:', '', ...noisy.map((r) => `- ${path.basename(r.dir)}: ${noiseLine(r.summary.noise)}`)];
  return `${out.join('\n').trimEnd()}\n\n${lines.join('\n')}\n`;
}

/**
 * @param {import('./run-kind.js').ReadKind} kind
 * @param {{ name: string, description: string, interrupted: any }} run interrupted: false, true or the signal
 * @param {Record<string, any>} summary from summarizeMerged()
 */
function renderOfKind(kind, run, summary) {
  if (kind === 'queue-publish') return renderPublisherMd(summary, run.description);
  if (kind === 'queue-consume') return renderQueueConsumerMd(/** @type {any} */ (summary), run.description);
  if (kind === 'produce') return renderSummaryMd(run, /** @type {ReturnType<typeof summarize>} */ (summary));
  return renderConsumerMd(run, /** @type {ReturnType<typeof summarizeConsumer>} */ (summary));
}

/** Who ran in each directory: a Redis run's writers or readers; a queue run's publisher id or pollers. */
const WORKERS_OF = { produce: 'writers', consume: 'readers', 'queue-publish': 'publisher', 'queue-consume': 'threads' };
const WORKERS_HEADER = { writers: 'Writers', readers: 'Readers', publisher: 'Publisher', threads: 'Threads' };

/** @param {import('./run-dirs.js').RunDir} run */
function workersKey(run) {
  return WORKERS_OF[run.kind];
}

/** @param {import('./run-dirs.js').RunDir} run */
function workersOf(run) {
  if (run.kind === 'queue-publish') return run.summary.publisherId ?? run.manifest.target?.publisherId ?? null;
  if (run.kind === 'queue-consume') return run.summary.threads ?? null;
  return run.manifest[workersKey(run)] ?? [];
}

/**
 * Where a run read by `report` stopped (a field only report-dirs.js's runs carry), or null.
 * @param {import('./run-dirs.js').RunDir} run
 * @returns {import('./stopped-run.js').Stopped|null}
 */
function stoppedOf(run) {
  return /** @type {import('./report-dirs.js').ReportRun} */ (run).stopped ?? null;
}

/**
 * Every run's dropped connections, by the second of its own t0 (runs merged share a --start-at).
 * @param {Array<Record<string, any>>} sums the runs' summaries
 * @param {'writer'|'reader'} who
 */
function dropsOf(sums, who) {
  return sums.flatMap((s) => (s.connectionDrops ?? []).map((d) => ({ worker: d[who], node: d.node, atS: d.atS, reconnectMs: d.reconnectMs })));
}

function nameOf(m) {
  if (m.runs.length === 1) return m.runs[0].summary.name;
  const id = m.runs[0].manifest.runId;
  return id ? `run ${id} (${m.runs.length} directories merged)` : `${m.runs.length} runs merged`;
}

function sumOf(items, f) {
  return items.reduce((a, x) => a + f(x), 0);
}

/**
 * The disturbed episodes of merged runs, by the same rules as a run's own, from the merged
 * seconds (each second's p99 from the runs' histograms of it added up). Acknowledgements by the
 * second they were due in are each run's own: here a second with nothing acknowledged counts.
 * @param {import('./merge-runs.js').MergedRuns} m
 */
function mergedEpisodes(m) {
  const spec = ROWS_OF[m.kind];
  const histogramsAt = perSecondHistograms(m.runs, spec.histograms);
  const rows = m.rows.map((r) => ({ ...r, row: { ...spec.rowOf({ intended: r.intended, counters: r.counters, hist: histogramsAt(r.index) }), events: r.events } }));
  return episodes({ rows, t0: 0, ...spec.disturbedBy });
}

/**
 * Who sent a run's commands: rqbench or ioredis (`produce --client`). Summaries written between
 * 2026-11-26 07:25 and the fix kept it in `client` as a string, over the load generator's figures.
 * @param {Record<string, any>} s summary.json
 */
function sentByOf(s) {
  return s.sentBy ?? (typeof s.client === 'string' ? s.client : 'rqbench');
}
