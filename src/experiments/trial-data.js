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
/**
 * Left out of the copy: a trial set aside (`trial-3.noisy-1`, layout.js setAside), summary.md, and a
 * capacity search's report.html (nearly 1 MB each, drawn again from its runs by `rqbench report`).
 */
const SET_ASIDE = /^trial-\d+\.(interrupted|noisy)-\d+$/;
const LEFT_OUT = new Set(['summary.md', 'report.html']);

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
 * @returns {string} where it is kept
 */
export function keepTrialData(expDir, runDir) {
  const into = path.join(dataDir(expDir), path.basename(runDir));
  if (path.resolve(runDir) === path.resolve(into)) return into;
  const tmp = `${into}.partial`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.cpSync(runDir, tmp, { recursive: true, filter: (from) => !LEFT_OUT.has(path.basename(from)) && !SET_ASIDE.test(path.basename(from)) });
  for (const s of stamps(dataDir(expDir))) fs.rmSync(path.join(dataDir(expDir), s), { recursive: true, force: true });
  fs.renameSync(tmp, into);
  return into;
}

/** @param {string} parent @returns {string[]} */
function stamps(parent) {
  try {
    return fs
      .readdirSync(parent, { withFileTypes: true })
      .filter((d) => d.isDirectory() && STAMP.test(d.name))
      .map((d) => d.name);
  } catch {
    return [];
  }
}
