/**
 * Producer runs merged (writers of one run, on one host or several): the summary is made by the
 * same summarize() that wrote each run's, from the merged seconds and histograms. Besides counts
 * and histograms it adds up each run's --verify read-back, and runs that stopped before their end
 * (report/read/stopped-run.js): the schedule they no longer ran still counts as intended, so the
 * merged achieved rate shows the share a lost host did not write.
 */
import { summarize } from './produce-summary.js';
import { dropsOf, finishRedisMerge, redisMergeInput, sumOf } from '../common/redis-kinds.js';
import { mergedName, oneOf } from '../common/merging.js';
import { flowsOfSummary } from '../common/cost-summary.js';

/** @typedef {import('../common/merging.js').MergedRuns} MergedRuns */
/** @typedef {import('../common/merging.js').RunDir} RunDir */

/**
 * @param {MergedRuns} m of producer runs
 * @param {import('../common/timeline-rows.js').TimelineRows} rows the producer's timeline rows
 * @returns {Record<string, any>}
 */
export function mergeProducers(m, rows) {
  // a stopped run's schedule after its last second is still intended: its missing share shows
  const { sums, common, interrupted } = redisMergeInput(m, withOwedSeconds(m));
  const targetRate = sumOf(sums, (s) => s.target.itemsPerSec);
  const writers = sumOf(sums, (s) => s.writers);
  // each run's acknowledged items due in its window (older runs: its rate x its seconds)
  const ackedInWindow = sumOf(sums, (s) => s.achieved.items ?? Math.round(s.achieved.itemsPerSec * s.window.seconds));
  // the runs wrote one cluster: one run's bytes and memory are the cluster's (the first's, as its
  // sampler saw them); the items live at the end are every run's
  const lives = sums.map((s) => s.cost?.liveItems);
  const cost = {
    flows: flowsOfSummary(sums[0].cost),
    liveItems: lives.every((x) => typeof x === 'number') ? sumOf(lives, (x) => x) : null,
    startedEmpty: sums[0].cost?.startedEmpty ?? null,
  };
  const summary = summarize({ ...common, ackedInWindow, targetRate, writers, drops: dropsOf(sums, 'writer'), cost });
  Object.assign(summary, {
    name: mergedName(m),
    mode: oneOf(sums.map((s) => s.mode)),
    sentBy: oneOf(sums.map(sentByOf)),
    interrupted,
    writerErrors: sums.flatMap((s) => s.writerErrors ?? []),
    itemsPerWriterPerSecTarget: targetRate / writers,
  });
  // MEMORY USAGE by key shape was read once, by each run, of the same keys: the first run's
  if (sums[0].cost?.keys)
    Object.assign(summary.cost, { keys: sums[0].cost.keys, ...(sums[0].cost.keysErrors && { keysErrors: sums[0].cost.keysErrors }) });
  return finishRedisMerge(m, summary, { rows, own: ['verdict'], verify: mergedVerify });
}

/**
 * The merged seconds with each stopped run's intended items added after its last second, up to the
 * window's end: what its schedule still held (its target rate each second: exact for a 1 s period,
 * the period's average otherwise).
 * @param {MergedRuns} m
 * @returns {import('../common/merging.js').MergedSecond[]}
 */
function withOwedSeconds(m) {
  const stopped = m.runs.filter((r) => r.stopped);
  if (!stopped.length) return m.rows;
  return m.rows.map((row) => {
    const owed = stopped
      .filter((r) => row.index > /** @type {any} */ (r.stopped).lastSecond && row.index < m.durationS)
      .reduce((n, r) => n + Math.round(r.summary.target.itemsPerSec), 0);
    return owed ? { ...row, intended: row.intended + owed } : row;
  });
}

/**
 * The runs' --verify results added up: acknowledged, present, lost and mismatched items summed,
 * lost ones by second summed, the read-back time the longest (they ran side by side). Runs that
 * asked for --verify and have no result (a stopped run never read back) are listed in `notRun`
 * (`ofRuns`: how many asked).
 * @param {RunDir[]} runs of a producer
 * @returns {Record<string, any>|undefined} undefined when no run asked for --verify
 */
function mergedVerify(runs) {
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
 * Who sent a run's commands: rqbench or ioredis (`produce --client`). Summaries written between
 * 2026-11-26 07:25 and the fix kept it in `client` as a string, over the load generator's figures.
 * @param {Record<string, any>} s summary.json
 */
function sentByOf(s) {
  return s.sentBy ?? (typeof s.client === 'string' ? s.client : 'rqbench');
}
