/**
 * A producer or consumer run whose process was killed (SIGKILL, its host went down, the OOM killer) leaves
 * manifest.json, timeline.csv and its .hlog files as they stood after its last whole second (both
 * are appended every second) and no summary.json: nothing ran its end. `rqbench report` reads such
 * a directory as a run that stopped, so that the writers of one run on several hosts still merge
 * when one host is lost: the stopped run's counts and histograms up to its last second are in, its
 * share after that is missing (and the merged achieved rate shows it), and the report names the
 * writer, the host and the second it stopped in, and exits 1.
 *
 * Told apart from a damaged directory by its manifest: a run that reached its end (cleanly, by
 * Ctrl-C or by failing) adds its `noise` record to manifest.json before it writes summary.json, so
 * a manifest without one was never closed.
 *
 * A run that reached its end but whose summary could not be saved (its disk filled up at the final
 * save) is read the same way, its outcome naming the failed save: it left the placeholder
 * summary.json that says so (`unsaved`), or, when not even that fitted, no summary.json beside a
 * closed manifest (or an unclosed one, when the disk was already too full to close it: then it
 * reads as killed). The placeholder of a run that failed before its end is still refused: that
 * run reported its own end.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../usage-error.js';
import { readTimeline } from '../../record/timeline.js';
import { checkHlogs, checkTimeline, readable } from './run-coverage.js';
import { READABLE_KINDS, readKind } from '../../runs/kinds.js';
import { mergeHistograms, mergeTimelines } from '../merge-runs.js';
import { hlogsOf, readManifest } from './run-dirs.js';
import { idRange } from '../../harness/schedule.js';

/** @typedef {import('../../runs/common/merging.js').Stopped} Stopped */

/** The kinds whose stopped runs are read, in words: their files say enough on their own. */
const STOPPED_READ = READABLE_KINDS.filter((k) => k.stopped)
  .map((k) => `a ${k.words}`)
  .join(' or ');

/** What a run whose summary is missing beside a closed manifest says of it. */
const MISSING = 'no summary.json beside a closed manifest.json: its final save failed, or it was removed';

/**
 * A run directory that a killed run left (no summary.json, a manifest.json the run never closed:
 * no `noise`) or a run whose summary could not be saved (see above), with a timeline.csv. Anything
 * else goes to readRunDir and is read, or refused, as before.
 * @param {string} dir
 */
export function isStoppedRunDir(dir) {
  if (!fs.existsSync(path.join(dir, 'timeline.csv'))) return false;
  if (fs.existsSync(path.join(dir, 'summary.json'))) return unsavedPlaceholder(dir) !== null;
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    return manifest !== null && typeof manifest === 'object';
  } catch {
    // no manifest, or a damaged one: readRunDir says which, in one line
    return false;
  }
}

/**
 * The failure a placeholder summary.json names when the run's final save failed, in words; null
 * for any other summary.json (or one that cannot be read: readRunDir says why).
 * @param {string} dir
 * @returns {string|null}
 */
function unsavedPlaceholder(dir) {
  try {
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    if (s?.incomplete !== true || s.unsaved !== true || typeof s.failed !== 'string') return null;
    return `its final save failed: ${s.failed.replace(/; its summary could not be saved$/, '')}`;
  } catch {
    return null;
  }
}

/**
 * Why a run read as stopped has no summary: the save that failed (the placeholder's words, or
 * MISSING), or null when it was killed before its end.
 * @param {string} dir
 * @param {Record<string, any>} manifest
 * @returns {string|null}
 */
function unsavedWhy(dir, manifest) {
  if (fs.existsSync(path.join(dir, 'summary.json'))) return unsavedPlaceholder(dir);
  return 'noise' in manifest ? MISSING : null;
}

/**
 * Reads a stopped run's directory into what readRunDir gives for a finished one, with a summary
 * made from its files by the same summarize() a finished run's came from.
 * @param {string} dir a directory isStoppedRunDir() accepted
 * @returns {import('./run-dirs.js').RunDir & { stopped: Stopped }}
 */
export function readStoppedRun(dir) {
  const { manifest, kind: name } = readManifest(dir);
  const kind = readKind(name);
  const unsaved = unsavedWhy(dir, manifest);
  // a queue run's summary has fields only its own end can know (every message's fate): only a kind
  // that says how is made from its files alone
  if (!kind.stopped)
    throw new UsageError(
      `${dir}: ${unsaved ? `its summary is missing (${unsaved})` : 'no summary.json (the run did not finish)'}; report reads a stopped run of ${STOPPED_READ} only, not of a ${kind.words}`,
    );
  const timelineFile = path.join(dir, 'timeline.csv');
  const timeline = readable(timelineFile, () => readTimeline(timelineFile));
  const seconds = timeline.rows.map((r) => /** @type {number} */ (r.second));
  if (!seconds.length)
    throw new UsageError(`${dir}: no summary.json, and timeline.csv has no second: the run stopped before its first second ended`);
  const lastSecond = Math.max(...seconds);
  const flags = manifest.flags;
  // a run that reached its end may have seconds past its planned one (the last, cut short): not in its window
  const planned = unsaved && Number.isInteger(flags.duration) && flags.duration > 0 ? flags.duration : Infinity;
  const toSecond = Math.min(lastSecond + 1, planned);
  // the warm-up as the run resolved it (a number in the manifest's flags); a run that stopped
  // inside its warm-up has an empty window
  const fromSecond = Math.min(Number.isInteger(flags.warmup) && flags.warmup >= 0 ? flags.warmup : 0, toSecond);
  const window = { fromSecond, toSecond };
  const hlogs = hlogsOf(dir);
  // every line decodes (a last line cut by the kill is left out): checked before anything is added up
  checkHlogs(dir, hlogs, window, {});
  // its seconds as a merge of one run adds them up, its histograms over the window
  const { rows } = mergeTimelines([{ kind: name, timeline }]);
  const totals = mergeHistograms([{ hlogs }], { fromSec: fromSecond, toSec: toSecond });
  const summary = kind.stopped.summarize({ dir, manifest, rows, totals, fromSecond, toSecond, idRange: checkedIdRange(dir) });
  checkTimeline(timelineFile, timeline, name, window, summary.window.seconds);
  const stopped = {
    second: toSecond,
    lastSecond,
    host: manifest.host?.hostname ?? null,
    // who ran in it: a producer's writers, a consumer's readers
    [kind.workers.key]: manifest[kind.workers.key] ?? [],
    ...(unsaved && { unsaved }),
  };
  summary.stopped = stopped;
  summary.outcome = { exitCode: 1, problems: [kind.stopped.words(stopped)] };
  return { dir, kind: name, manifest, summary, window, recorded: kind.recorded(summary), timeline, hlogs, stopped };
}

/**
 * The producer's split of ids over its writers (harness/schedule.js), for a manifest that may
 * name writers no run could have had: a usage error naming the directory, not a stack trace.
 * @param {string} dir
 */
function checkedIdRange(dir) {
  return (/** @type {number} */ q, /** @type {number} */ t, /** @type {number} */ a) => {
    try {
      return idRange(q, t, a);
    } catch (e) {
      throw new UsageError(`${dir}: manifest.json's flags name no writer the run could have had (${/** @type {Error} */ (e).message})`);
    }
  };
}
