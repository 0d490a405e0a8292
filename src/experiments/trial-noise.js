/**
 * A trial's noise: what the noise sentinels of its runs saw (each CLI's summary.json `noise`),
 * the worst of them — a step's producer and consumer, a search's every step. A trial is noisy
 * when any of its runs was: something outside the run took enough CPU to move its figures.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readJson } from './layout.js';

/** How deep a trial's run directories go: trial/<run>/summary.json, trial/<search>/<step>/<run>/summary.json. */
const DEPTH = 3;

/** @typedef {import('../report/capacity/capacity-result.js').TrialNoise} TrialNoise */

/**
 * @param {string} trialDir
 * @returns {TrialNoise|null} null when no run in it recorded noise (made before the sentinels)
 */
export function trialNoise(trialDir) {
  const records = noiseRecords(trialDir);
  if (!records.length) return null;
  const worst = records.reduce((a, b) => (b.outsidePct > a.outsidePct ? b : a));
  const noisyRuns = records.filter((n) => n.noisy).length;
  return { noisy: noisyRuns > 0, outsidePct: worst.outsidePct, thresholdPct: worst.thresholdPct, runs: records.length, noisyRuns };
}

/**
 * Every noise record the runs under a directory wrote (their summary.json `noise`), down to DEPTH.
 * @param {string} dir a trial's directory, or a capacity search's
 * @returns {Array<Record<string, any>>}
 */
export function noiseRecords(dir) {
  return summaries(dir, DEPTH)
    .map((f) => readJson(f)?.noise)
    .filter((n) => n?.available);
}

/**
 * Every summary.json under a directory, down to `depth` levels.
 * @param {string} dir @param {number} depth @returns {string[]}
 */
export function summaries(dir, depth) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const here = entries.some((e) => e.isFile() && e.name === 'summary.json') ? [path.join(dir, 'summary.json')] : [];
  if (depth === 0) return here;
  return [...here, ...entries.filter((e) => e.isDirectory()).flatMap((e) => summaries(path.join(dir, e.name), depth - 1))];
}

/**
 * The Finding's lines on noisy trials: each one, what the sentinel saw. Only the figures the check
 * reads are in the table above, so "marked * above" is said only of those.
 * @param {Array<{ step: { name: string }, trials: Array<{ trial: number, noise?: TrialNoise|null }> }>} steps
 * @param {Set<string>|null} [inTable] the steps whose figures the table above shows (null: every step)
 * @returns {string[]}
 */
export function noisyLines(steps, inTable = null) {
  const noisy = steps.flatMap((s) =>
    s.trials.filter((t) => t.noise?.noisy).map((t) => ({ step: s.step.name, trial: t.trial, n: /** @type {TrialNoise} */ (t.noise) })),
  );
  if (!noisy.length) return [];
  const marked = noisy.filter((x) => !inTable || inTable.has(x.step)).length;
  const where =
    marked === noisy.length
      ? 'marked * above; kept and counted'
      : marked
        ? "those of the steps the check reads are marked * above; every one kept and counted in its step's figures"
        : "all of steps the check does not read; kept and counted in their steps' figures";
  return [
    `Noisy trials (${where} — \`rqbench experiment run --retry-noisy N\` re-runs them):`,
    '',
    ...noisy.map(
      (x) =>
        `- ${x.step} trial ${x.trial}: other processes on the host took ${x.n.outsidePct}% of a core during it (noisy at ${x.n.thresholdPct}%)`,
    ),
    '',
  ];
}
