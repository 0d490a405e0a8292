/**
 * Run directories read back for reports: manifest.json, summary.json, timeline.csv and the
 * .hlog files, each checked whole before any report is computed from them, so that a damaged or
 * foreign directory ends in one line naming the file (and line) and what is wrong, and nothing
 * is printed or drawn half-way. Anything that is not a finished rqbench run directory of a kind
 * the reports read (runs/kinds.js) is a usage error naming it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../usage-error.js';
import { readTimeline } from '../../record/timeline.js';
import { checkKindFields, checkManifest, checkSummary } from './run-shape.js';
import { checkHlogs, checkTimeline, readable } from './run-coverage.js';
import { kindOf, readKind, windowOf } from '../../runs/kinds.js';

/** @typedef {import('../../runs/common/merging.js').RunDir} RunDir a run directory read back and checked */

/**
 * Reads one run directory and checks every file of it.
 * @param {string} dir
 * @returns {RunDir}
 */
export function readRunDir(dir) {
  let st;
  try {
    st = fs.statSync(dir);
  } catch {
    throw new UsageError(`${dir}: no such directory`);
  }
  if (!st.isDirectory()) throw new UsageError(`${dir}: not a directory`);
  const { manifest, kind } = readManifest(dir);
  const summary = readJson(dir, 'summary.json', 'the run did not finish');
  checkSummary(summary, kind, path.join(dir, 'summary.json'));
  const window = windowOf(summary);
  const recorded = readKind(kind).recorded(summary);
  const timelineFile = path.join(dir, 'timeline.csv');
  if (!fs.existsSync(timelineFile)) throw new UsageError(`${dir}: no timeline.csv`);
  const timeline = readable(timelineFile, () => readTimeline(timelineFile));
  checkTimeline(timelineFile, timeline, kind, window, summary.window.seconds);
  const hlogs = hlogsOf(dir);
  checkHlogs(dir, hlogs, window, recorded);
  return { dir, kind, manifest, summary, window, recorded, timeline, hlogs };
}

/**
 * A run directory's manifest.json, checked, and the kind of run it names.
 * @param {string} dir
 * @returns {{ manifest: Record<string, any>, kind: string }}
 */
export function readManifest(dir) {
  const file = path.join(dir, 'manifest.json');
  const manifest = readJson(dir, 'manifest.json', 'not an rqbench run directory');
  const kind = kindOf(dir, checkKindFields(manifest, file));
  checkManifest(manifest, kind, file);
  return { manifest, kind };
}

/**
 * A run directory's .hlog files: operation → file, in name order.
 * @param {string} dir
 * @returns {Map<string, string>}
 */
export function hlogsOf(dir) {
  const hlogs = new Map();
  for (const f of fs.readdirSync(dir).sort()) if (f.endsWith('.hlog')) hlogs.set(f.slice(0, -'.hlog'.length), path.join(dir, f));
  return hlogs;
}

/**
 * Reads run directories that are to be merged or compared: all of one kind, none twice.
 * @template {RunDir} [R=RunDir]
 * @param {string[]} dirs
 * @param {(dir: string) => R} [read] how one directory is read (report's also reads a stopped run)
 * @returns {R[]}
 */
export function readRunDirs(dirs, read = /** @type {(dir: string) => R} */ (readRunDir)) {
  if (!dirs.length) throw new UsageError('a run directory is needed');
  const seen = new Map();
  for (const d of dirs) {
    const real = realpathOr(d);
    if (seen.has(real)) throw new UsageError(`${d}: given twice (as ${seen.get(real)} too); each run directory counts once`);
    seen.set(real, d);
  }
  return checkOneKind(dirs.map((d) => read(d)));
}

/**
 * @template {RunDir} R
 * @param {R[]} runs
 * @returns {R[]} the same runs, once they are known to be of one kind
 */
export function checkOneKind(runs) {
  const other = runs.find((r) => r.kind !== runs[0].kind);
  if (other) {
    throw new UsageError(
      `cannot mix kinds of run: ${runs[0].dir} is a ${readKind(runs[0].kind).words} run, ${other.dir} a ${readKind(other.kind).words} run`,
    );
  }
  return runs;
}

function readJson(dir, name, missing) {
  const file = path.join(dir, name);
  if (!fs.existsSync(file)) throw new UsageError(`${dir}: no ${name} (${missing})`);
  const text = readable(file, () => fs.readFileSync(file, 'utf8'));
  if (text.trim() === '') throw new UsageError(`${file}: empty`);
  try {
    return JSON.parse(text);
  } catch (e) {
    // V8 says where: "… in JSON at position 12"; a line number is what an editor goes to
    const at = /at position (\d+)/.exec(String(/** @type {Error} */ (e).message));
    const line = at ? `:${text.slice(0, Number(at[1])).split('\n').length}` : '';
    throw new UsageError(`${file}${line}: not valid JSON`);
  }
}

function realpathOr(p) {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
