/**
 * Run directories read back for reports: manifest.json, summary.json, timeline.csv and the
 * .hlog files. Anything that is not a finished rqbench run directory is a usage error naming it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../options/usage-error.js';
import { readTimeline } from './timeline.js';

/** What each command writes, in the words of error messages. */
const KINDS = { produce: 'producer', consume: 'consumer' };

/**
 * @typedef {object} RunDir
 * @property {string} dir as given
 * @property {'produce'|'consume'} kind manifest.json's command
 * @property {Record<string, any>} manifest
 * @property {Record<string, any>} summary
 * @property {import('./timeline.js').TimelineFile} timeline
 * @property {Map<string, string>} hlogs operation → its .hlog file
 */

/**
 * Reads one run directory.
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
  const manifest = readJson(dir, 'manifest.json', 'not an rqbench run directory');
  if (!KINDS[manifest.command]) throw new UsageError(`${dir}: manifest.json names command ${JSON.stringify(manifest.command)}; reports read produce and consume runs`);
  const summary = readJson(dir, 'summary.json', 'the run did not finish');
  const timelineFile = path.join(dir, 'timeline.csv');
  if (!fs.existsSync(timelineFile)) throw new UsageError(`${dir}: no timeline.csv`);
  const hlogs = new Map();
  for (const f of fs.readdirSync(dir).sort()) if (f.endsWith('.hlog')) hlogs.set(f.slice(0, -'.hlog'.length), path.join(dir, f));
  return { dir, kind: manifest.command, manifest, summary, timeline: readTimeline(timelineFile), hlogs };
}

/**
 * Reads run directories that are to be merged or compared: all of one kind, none twice.
 * @param {string[]} dirs
 * @returns {RunDir[]}
 */
export function readRunDirs(dirs) {
  if (!dirs.length) throw new UsageError('a run directory is needed');
  const seen = new Map();
  for (const d of dirs) {
    const real = realpathOr(d);
    if (seen.has(real)) throw new UsageError(`${d}: given twice (as ${seen.get(real)} too); each run directory counts once`);
    seen.set(real, d);
  }
  return checkOneKind(dirs.map(readRunDir));
}

/**
 * @param {RunDir[]} runs
 * @returns {RunDir[]} the same runs, once they are known to be of one kind
 */
export function checkOneKind(runs) {
  const other = runs.find((r) => r.kind !== runs[0].kind);
  if (other) {
    throw new UsageError(`cannot mix producer and consumer runs: ${runs[0].dir} is a ${KINDS[runs[0].kind]} run, ${other.dir} a ${KINDS[other.kind]} run`);
  }
  return runs;
}

function readJson(dir, name, missing) {
  const file = path.join(dir, name);
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`${dir}: no ${name} (${missing})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${file}: not valid JSON`);
  }
}

function realpathOr(p) {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
