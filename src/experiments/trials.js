/**
 * Trials: every step of a spec runs `repeat` times, interleaved — round 1 runs every step once
 * in a shuffled order, round 2 again in another order, … — so drift and a noisy neighbour hit
 * every step alike instead of all the trials of one step. The order comes from a seeded
 * generator whose seed is written to the run's manifest (`runs/<stamp>/manifest.json`), so a
 * run's order can be told and repeated. Each trial keeps its own directory,
 * `runs/<stamp>/<step>/trial-<k>/`; a run made before trials existed has the step's files in
 * `<step>/` itself, read back as its one trial.
 */
import fs from 'node:fs';
import path from 'node:path';

export const MANIFEST_FILE = 'manifest.json';
const TRIAL = /^trial-(\d+)$/;

/**
 * @typedef {{ round: number, step: string, trial: number }} TrialSlot  round and trial count from 1
 * @typedef {{ repeat: number, seed: number, order: TrialSlot[], startedAt: string, noiseThreshold?: number, countedTrials?: number,
 *   regime?: import('./regime.js').Placed, code?: Provenance[] }} TrialManifest  regime: where the steps' load was placed
 *   (regime.js), once probed; code: what each session of the run (the first, each --resume) ran
 * @typedef {{ git: string|null, dirty: boolean|null, at: string }} Provenance  dirty: tracked files changed since
 *   the commit (null: not a git checkout)
 */

/**
 * A small seeded generator (mulberry32): the same seed gives the same order on any machine.
 * @param {number} seed
 * @returns {() => number} uniform in [0, 1)
 */
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fresh seed, 32 bits, for a run that was not given one. */
export function newSeed() {
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

/**
 * Every trial of every step, round by round, each round in its own shuffled order.
 * @param {string[]} steps step names
 * @param {number} repeat trials per step
 * @param {number} seed
 * @param {Record<string, number|null|undefined>} [own] a step's own trials (`repeat:` on the step), at most `repeat`:
 *   it takes part in the first rounds only (the order of the others is as without it)
 * @returns {TrialSlot[]}
 */
export function schedule(steps, repeat, seed, own = {}) {
  const rand = seeded(seed);
  const out = [];
  for (let round = 1; round <= repeat; round++) {
    const order = [...steps];
    // Fisher–Yates; with one step there is nothing to shuffle
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const step of order) if (round <= Math.min(own[step] ?? repeat, repeat)) out.push({ round, step, trial: round });
  }
  return out;
}

/**
 * The slots a resumed run lacks for steps whose own `repeat:` grew since it began (a counted step
 * given more trials to be judged by the rank test): the later rounds of the same seeded schedule,
 * those past each step's trials so far, to run after the run's own.
 * @param {TrialManifest} m
 * @param {Array<{ name: string, repeat?: number|null }>} steps the spec's steps now (each already in the run)
 * @returns {TrialSlot[]}
 */
export function grownSlots(m, steps) {
  const grown = steps.filter((st) => Math.min(st.repeat ?? m.repeat, m.repeat) > trialsPlanned(m, st.name));
  if (!grown.length) return [];
  const had = new Map(grown.map((st) => [st.name, trialsPlanned(m, st.name)]));
  const own = Object.fromEntries(grown.map((st) => [st.name, st.repeat]));
  return schedule(
    grown.map((st) => st.name),
    m.repeat,
    m.seed,
    own,
  ).filter((slot) => slot.trial > /** @type {number} */ (had.get(slot.step)));
}

/**
 * The steps with each counted one's trials at most `cap` (--counted-trials: a count decides on one
 * trial, and `npm run experiments` stays within its time; the committed results confirm on more).
 * @template {{ count?: unknown, repeat?: number|null }} S
 * @param {S[]} steps
 * @param {number|undefined} cap
 * @returns {S[]}
 */
export function capCounted(steps, cap) {
  if (!cap) return steps;
  return steps.map((s) => (s.count ? { ...s, repeat: Math.min(s.repeat ?? cap, cap) } : s));
}

/**
 * The trials a step has in a run: its slots in the manifest's order.
 * @param {TrialManifest} m
 * @param {string} step
 */
export function trialsPlanned(m, step) {
  return m.order.filter((s) => s.step === step).length;
}

/**
 * @param {string} runDir runs/<stamp>
 * @param {string} step
 * @param {number} trial from 1
 */
export function trialDir(runDir, step, trial) {
  return path.join(runDir, step, `trial-${trial}`);
}

/**
 * The trial directories a step directory holds, in trial order (not the ones set aside as
 * interrupted); a step directory of a run made before trials is its own one trial.
 * @param {string} stepDir
 * @returns {Array<{ trial: number, dir: string }>}
 */
export function trialsOf(stepDir) {
  let names;
  try {
    names = fs
      .readdirSync(stepDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && TRIAL.test(d.name))
      .map((d) => d.name);
  } catch {
    return [];
  }
  if (!names.length) return fs.existsSync(path.join(stepDir, 'step.json')) ? [{ trial: 1, dir: stepDir }] : [];
  return names.map((n) => ({ trial: Number(TRIAL.exec(n)?.[1]), dir: path.join(stepDir, n) })).sort((a, b) => a.trial - b.trial);
}

/**
 * The run's manifest, or null (a run made before trials had none).
 * @param {string} runDir
 * @returns {TrialManifest|null}
 */
export function readManifest(runDir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(runDir, MANIFEST_FILE), 'utf8'));
  } catch {
    return null;
  }
}

/**
 * @param {string} runDir
 * @param {TrialManifest} m
 */
export function writeManifest(runDir, m) {
  fs.writeFileSync(path.join(runDir, MANIFEST_FILE), `${JSON.stringify(m, null, 2)}\n`);
}

/**
 * The round each trial of a step ran in, from the manifest (trial k ran in round k).
 * @param {TrialManifest|null} m
 * @param {string} step
 * @param {number} trial
 */
export function roundOf(m, step, trial) {
  return m?.order.find((s) => s.step === step && s.trial === trial)?.round ?? trial;
}
