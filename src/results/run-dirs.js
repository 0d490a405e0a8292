/**
 * Run directories read back for reports: manifest.json, summary.json, timeline.csv and the
 * .hlog files, each checked whole before any report is computed from them, so that a damaged or
 * foreign directory ends in one line naming the file (and line) and what is wrong, and nothing
 * is printed or drawn half-way. Anything that is not a finished rqbench run directory of a Redis
 * producer or consumer is a usage error naming it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, shown } from '../options/usage-error.js';
import { readTimeline } from './timeline.js';
import { checkManifest, checkSummary, commandOf } from './run-shape.js';
import { checkHlogs, checkTimeline, readable } from './run-coverage.js';

/** What each command writes, in the words of error messages. */
const KINDS = { produce: 'producer', consume: 'consumer' };
/** Queue runs (--target) in the words of error messages. */
const QUEUES = { sqs: 'an SQS', sns: 'an SNS', pubsub: 'a Pub/Sub' };

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
  const manifest = readJson(dir, 'manifest.json', 'not an rqbench run directory');
  const kind = kindOf(dir, manifest);
  checkManifest(manifest, kind, path.join(dir, 'manifest.json'));
  const summary = readJson(dir, 'summary.json', 'the run did not finish');
  checkSummary(summary, kind, path.join(dir, 'summary.json'));
  const timelineFile = path.join(dir, 'timeline.csv');
  if (!fs.existsSync(timelineFile)) throw new UsageError(`${dir}: no timeline.csv`);
  const timeline = readable(timelineFile, () => readTimeline(timelineFile));
  checkTimeline(timelineFile, timeline, kind, summary);
  const hlogs = new Map();
  for (const f of fs.readdirSync(dir).sort()) if (f.endsWith('.hlog')) hlogs.set(f.slice(0, -'.hlog'.length), path.join(dir, f));
  checkHlogs(dir, hlogs, summary);
  return { dir, kind, manifest, summary, timeline, hlogs };
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

/**
 * The command that wrote the directory, if reports read its runs.
 * @param {string} dir
 * @param {unknown} manifest
 * @returns {'produce'|'consume'}
 */
function kindOf(dir, manifest) {
  const command = commandOf(manifest, path.join(dir, 'manifest.json'));
  if (!Object.hasOwn(KINDS, command)) throw new UsageError(`${dir}: manifest.json names command ${shown(command)}; reports read produce and consume runs`);
  // a queue run has its own summary (messages, not items): until reports read them, a clear no
  const flags = /** @type {Record<string, any>} */ (manifest).flags;
  const target = flags !== null && typeof flags === 'object' ? flags.target : undefined;
  if (target !== undefined && target !== 'redis') {
    const what = Object.hasOwn(QUEUES, target) ? QUEUES[target] : `a ${shown(String(target))}`;
    throw new UsageError(`${dir}: ${what} ${command === 'produce' ? 'publisher' : 'consumer'} run; reports read Redis producer and consumer runs`);
  }
  return /** @type {'produce'|'consume'} */ (command);
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
