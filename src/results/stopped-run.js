/**
 * A producer run whose process was killed (SIGKILL, its host went down, the OOM killer) leaves
 * manifest.json, timeline.csv and its .hlog files as they stood after its last whole second (both
 * are appended every second) and no summary.json: nothing ran its end. `rqbench report` reads such
 * a directory as a run that stopped, so that the writers of one run on several hosts still merge
 * when one host is lost: the stopped run's counts and histograms up to its last second are in, its
 * share after that is missing (and the merged achieved rate shows it), and the report names the
 * writer, the host and the second it stopped in, and exits 1.
 *
 * Told apart from a damaged directory by its manifest: a run that reached its end (cleanly, by
 * Ctrl-C or by failing) adds its `noise` record to manifest.json before it writes summary.json, so
 * a manifest without one was never closed. A directory whose manifest was closed but which has no
 * summary.json lost it (or its disk filled up: the run said so when it ended), and is still
 * refused, as the placeholder summary.json of a run that failed is: that run reported its own end.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../usage-error.js';
import { readTimeline } from './timeline.js';
import { checkHlogs, checkTimeline, readable } from './run-coverage.js';
import { KINDS, recordedOf } from './run-kind.js';
import { mergeHistograms, mergeTimelines } from './merge-runs.js';
import { hlogsOf, readManifest } from './run-dirs.js';
import { summarize } from './summary.js';

/**
 * Where and when a run stopped.
 * @typedef {object} Stopped
 * @property {number} second the second it stopped in: the first one its timeline does not have
 * @property {number} lastSecond its last whole second (timeline.csv's last row)
 * @property {string|null} host manifest.json's host name
 * @property {number[]} writers its writer numbers (-a)
 */

/**
 * A run directory that a killed run left: no summary.json, a manifest.json the run never closed
 * (no `noise`), and a timeline.csv. Anything else goes to readRunDir and is read, or refused, as
 * before.
 * @param {string} dir
 */
export function isStoppedRunDir(dir) {
  const file = (f) => path.join(dir, f);
  if (fs.existsSync(file('summary.json')) || !fs.existsSync(file('timeline.csv'))) return false;
  try {
    const manifest = JSON.parse(fs.readFileSync(file('manifest.json'), 'utf8'));
    return manifest !== null && typeof manifest === 'object' && !('noise' in manifest);
  } catch {
    // no manifest, or a damaged one: readRunDir says which, in one line
    return false;
  }
}

/**
 * Reads a stopped run's directory into what readRunDir gives for a finished one, with a summary
 * made from its files by the same summarize() a finished run's came from.
 * @param {string} dir a directory isStoppedRunDir() accepted
 * @returns {import('./run-dirs.js').RunDir & { stopped: Stopped }}
 */
export function readStoppedRun(dir) {
  const { manifest, kind } = readManifest(dir);
  // a consumer's or a queue run's summary has fields only its own end can know (the read-back of
  // every cycle, every message's fate): only a producer's is made from its files alone
  if (kind !== 'produce') throw new UsageError(`${dir}: no summary.json (the run did not finish); report reads a stopped run of a Redis producer only, not of a ${KINDS[kind].words}`);
  const timelineFile = path.join(dir, 'timeline.csv');
  const timeline = readable(timelineFile, () => readTimeline(timelineFile));
  const seconds = timeline.rows.map((r) => /** @type {number} */ (r.second));
  if (!seconds.length) throw new UsageError(`${dir}: no summary.json, and timeline.csv has no second: the run stopped before its first second ended`);
  const lastSecond = Math.max(...seconds);
  const toSecond = lastSecond + 1;
  const flags = manifest.flags;
  // the warm-up as the run resolved it (a number in the manifest's flags); a run that stopped
  // inside its warm-up has an empty window
  const fromSecond = Math.min(Number.isInteger(flags.warmup) && flags.warmup >= 0 ? flags.warmup : 0, toSecond);
  const window = { fromSecond, toSecond };
  const hlogs = hlogsOf(dir);
  // every line decodes (a last line cut by the kill is left out): checked before anything is added up
  checkHlogs(dir, hlogs, window, {});
  const summary = stoppedSummary(dir, manifest, timeline, hlogs, window);
  checkTimeline(timelineFile, timeline, kind, window, summary.window.seconds);
  const stopped = { second: toSecond, lastSecond, host: manifest.host?.hostname ?? null, writers: manifest.writers ?? [] };
  summary.stopped = stopped;
  summary.outcome = { exitCode: 1, problems: [stoppedWords(stopped)] };
  return { dir, kind, manifest, summary, window, recorded: recordedOf(kind, summary), timeline, hlogs, stopped };
}

/**
 * The stopped run's summary.json, as its own end would have written it for the seconds it has.
 * @param {string} dir
 * @param {Record<string, any>} manifest
 * @param {import('./timeline.js').TimelineFile} timeline
 * @param {Map<string, string>} hlogs
 * @param {{ fromSecond: number, toSecond: number }} window
 */
function stoppedSummary(dir, manifest, timeline, hlogs, { fromSecond, toSecond }) {
  const { rows } = mergeTimelines([{ kind: 'produce', timeline }]);
  const runLike = /** @type {import('./run-dirs.js').RunDir} */ (/** @type {unknown} */ ({ hlogs }));
  const totals = mergeHistograms([runLike], { fromSec: fromSecond, toSec: toSecond });
  // the run's counts: its seconds, as mergeTimelines summed them
  /** @type {Record<string, number>} */
  const totalCounts = { intended: 0 };
  for (const row of rows) {
    totalCounts.intended += row.intended;
    for (const [k, v] of Object.entries(row.counters)) totalCounts[k] = (totalCounts[k] ?? 0) + v;
  }
  // sent but neither acknowledged nor failed by its last second: in flight when it was killed
  totalCounts.unacked = Math.max(0, (totalCounts.sent ?? 0) - (totalCounts.acked ?? 0) - (totalCounts.failed ?? 0));
  // acknowledged items by the second they were due in are the run's end's to write: by the second
  // the reply came is the nearest the timeline has (they differ by a reply's latency at the edges)
  const ackedInWindow = rows.filter((r) => r.index >= fromSecond && r.index < toSecond).reduce((n, r) => n + (r.counters.acked ?? 0), 0);
  const flags = manifest.flags;
  const writers = manifest.writers?.length ? manifest.writers : [flags.writer ?? 1];
  const perPeriod = writers.reduce((n, a) => n + shareOf(flags.quantity, flags.writers ?? writers.length, a), 0);
  const targetRate = (perPeriod * 1000) / flags.period;
  const summary = summarize({ rows, totals, ackedInWindow, warmupS: fromSecond, durationS: toSecond, targetRate, writers: writers.length, totalCounts, errorKinds: {} });
  const name = path.basename(path.resolve(dir)).replace(/^\d{8}-\d{6}-/, '');
  return Object.assign(summary, { name, mode: manifest.mode ?? 'zset', sentBy: flags.client ?? 'rqbench', interrupted: false, writerErrors: [], itemsPerWriterPerSecTarget: targetRate / writers.length });
}

/**
 * Items per period of writer `a` of `t` (the producer's id split, workloads/items/schedule.js's
 * idRange, which results/ may not import: each writer trunc(q/t), the last the rest).
 * @param {number} q
 * @param {number} t
 * @param {number} a
 */
export function shareOf(q, t, a) {
  const per = Math.trunc(q / t);
  return a === t ? q - per * (t - 1) : per;
}

/**
 * The stopped run in words, for the outcome and the merged summary.
 * @param {Stopped} s
 */
export function stoppedWords(s) {
  const who = `writer${s.writers.length === 1 ? '' : 's'} ${s.writers.join(', ') || '?'}${s.host ? ` on host ${s.host}` : ''}`;
  return `${who} stopped in second ${s.second} (no summary.json: the process was killed or its host went down); its counts up to second ${s.lastSecond} are included, its share after that is missing`;
}
