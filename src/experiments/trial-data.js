/**
 * The trial data a verdict rests on, kept in the repository: `experiments/<name>/data/<stamp>/`
 * mirrors the `runs/<stamp>/` that RESULTS.md was written from — every step's trials with their
 * summaries, manifests, step.json, histograms (.hlog) and timelines — so that a clone, which has
 * no runs/ (it is ignored: bulk and every re-run), regenerates RESULTS.md from it with
 * `rqbench experiment report`. Left out: summary.md (written again from summary.json), trials set
 * aside as interrupted or noisy (the verdict does not rest on them), and older runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runsDir } from './layout.js';

export const DATA_DIR = 'data';
const STAMP = /^\d{8}-\d{6}$/;
/** A trial directory the report reads; `trial-3.noisy-1` (set aside) is not one. */
const TRIAL = /^trial-\d+$/;
const LEFT_OUT = new Set(['summary.md']);

/** @param {string} expDir */
export const dataDir = (expDir) => path.join(expDir, DATA_DIR);

/**
 * The newest run that RESULTS.md can be written from: `runs/<stamp>` or `data/<stamp>`, whichever
 * is newer (runs/ on a tie: it is the whole of it).
 * @param {string} expDir
 * @returns {string|null}
 */
export function newestResultsRun(expDir) {
  const found = [runsDir(expDir), dataDir(expDir)].flatMap((parent) => stamps(parent).map((s) => ({ s, dir: path.join(parent, s) })));
  if (!found.length) return null;
  found.sort((a, b) => (a.s === b.s ? 0 : a.s < b.s ? 1 : -1));
  return found[0].dir;
}

/**
 * Mirrors a runs/<stamp> into data/<stamp> (replacing any other data/<stamp>); a run already
 * under data/ is left as it is.
 * @param {string} expDir
 * @param {string} runDir
 * @returns {{ dir: string, bytes: number }} where it is kept and its size
 */
export function keepTrialData(expDir, runDir) {
  const into = path.join(dataDir(expDir), path.basename(runDir));
  if (path.resolve(runDir) === path.resolve(into)) return { dir: into, bytes: sizeOf(into) };
  const tmp = `${into}.partial`;
  fs.rmSync(tmp, { recursive: true, force: true });
  copyRun(runDir, tmp);
  for (const s of stamps(dataDir(expDir))) fs.rmSync(path.join(dataDir(expDir), s), { recursive: true, force: true });
  fs.renameSync(tmp, into);
  return { dir: into, bytes: sizeOf(into) };
}

/** The run's manifest, then each step's trial directories, whole but for what LEFT_OUT names. */
function copyRun(runDir, to) {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(runDir, { withFileTypes: true })) {
    const from = path.join(runDir, e.name);
    if (e.isFile()) fs.copyFileSync(from, path.join(to, e.name));
    else if (e.isDirectory()) copyStep(from, path.join(to, e.name));
  }
}

function copyStep(stepDir, to) {
  const entries = fs.readdirSync(stepDir, { withFileTypes: true });
  // a run made before trials holds its step's files directly
  const trials = entries.filter((e) => e.isDirectory() && TRIAL.test(e.name));
  if (!trials.length) return copyTree(stepDir, to);
  fs.mkdirSync(to, { recursive: true });
  for (const e of entries) {
    if (e.isFile() && !LEFT_OUT.has(e.name)) fs.copyFileSync(path.join(stepDir, e.name), path.join(to, e.name));
  }
  for (const t of trials) copyTree(path.join(stepDir, t.name), path.join(to, t.name));
}

function copyTree(from, to) {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory()) copyTree(path.join(from, e.name), path.join(to, e.name));
    else if (e.isFile() && !LEFT_OUT.has(e.name)) fs.copyFileSync(path.join(from, e.name), path.join(to, e.name));
  }
}

/** @param {string} parent @returns {string[]} */
function stamps(parent) {
  try {
    return fs.readdirSync(parent, { withFileTypes: true }).filter((d) => d.isDirectory() && STAMP.test(d.name)).map((d) => d.name);
  } catch {
    return [];
  }
}

/** @param {string} dir @returns {number} bytes */
function sizeOf(dir) {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? sizeOf(p) : fs.statSync(p).size;
  }
  return n;
}
