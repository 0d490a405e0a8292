/**
 * One directory per run, never overwritten: `<out>/<yyyymmdd-hhmmss>-<name>[-n]/`.
 */
import { mkdirSync, readdirSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { redact } from './redact.js';
import { FS_WHY } from '../usage-error.js';

/**
 * Creates a fresh run directory.
 * @param {string} outDir
 * @param {string} name
 * @param {Date} [when]
 * @returns {string} its path
 */
export function createRunDir(outDir, name, when = new Date()) {
  const stamp = when.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const safe = runDirBase(name);
  mkdirSync(outDir, { recursive: true });
  for (let n = 0; ; n++) {
    const dir = path.join(outDir, `${stamp}-${safe}${n ? `-${n}` : ''}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
  }
}

/**
 * The part of a run directory's name that comes from the run name: anything but letters,
 * digits, '.', '_' and '-' becomes '-'.
 * @param {string} name
 */
export function runDirBase(name) {
  return (
    String(name)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'run'
  );
}

/**
 * Writes JSON atomically (temp file + rename), secrets removed.
 * @param {string} file
 * @param {unknown} data
 */
export function writeJson(file, data) {
  writeText(file, `${JSON.stringify(redact(data), null, 2)}\n`);
}

/**
 * Writes text atomically.
 * @param {string} file
 * @param {string} text
 */
export function writeText(file, text) {
  const tmp = `${file}.tmp`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (e) {
    // a full disk leaves a cut-off temp file: gone, so the directory holds only whole files
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** File-system failures that mean the run directory cannot be written any more. */
const WHY = { ...FS_WHY, EISDIR: 'it is a directory', ENOENT: 'it was removed' };

/**
 * The one line a run ends with when its directory could not be written (exit 1).
 * @param {NodeJS.ErrnoException} e
 * @param {string} dir
 * @returns {Error & { exitCode: number, code?: string }}
 */
export function outputError(e, dir) {
  return Object.assign(new Error(`cannot write the run directory ${dir}: ${fsReason(e)}`), { exitCode: 1, code: e.code });
}

/**
 * A file-system failure in words, its code after: "no space left on device (ENOSPC)".
 * @param {NodeJS.ErrnoException} e
 */
export function fsReason(e) {
  return `${WHY[e.code ?? ''] ?? e.message}${e.code ? ` (${e.code})` : ''}`;
}

/** @param {unknown} e @returns {boolean} a file-system error (it has an errno code), not a bug */
export function isFsError(e) {
  return (
    !!e &&
    typeof e === 'object' &&
    typeof (/** @type {any} */ (e).code) === 'string' &&
    typeof (/** @type {any} */ (e).syscall) === 'string'
  );
}

/**
 * summary.json and summary.md at the end of a run. A directory that can no longer be written
 * (full disk) does not lose the summary: it is still printed, and the failure is one line. Nor
 * does it keep one that claims more than happened: summary.md is written first and summary.json,
 * which reports read, last; when either fails, summary.md goes and summary.json becomes a
 * placeholder saying the run failed and that its summary was not saved (`unsaved`: `rqbench report`
 * reads such a run from its timeline and .hlog files), or, when not even that fits, is removed
 * rather than left saying what an earlier save said.
 * @param {string} dir
 * @param {Record<string, any>} summary
 * @param {string} md
 * @param {NodeJS.ErrnoException|null} [earlier] a write that already failed during the run
 * @returns {{ md: string, failure?: string, unsaved?: string }} unsaved: the save failed, as a problem of the run's outcome
 */
export function saveSummary(dir, summary, md, earlier = null) {
  const mdFile = path.join(dir, 'summary.md');
  try {
    writeText(mdFile, md);
    writeJson(path.join(dir, 'summary.json'), summary);
  } catch (e) {
    if (!isFsError(e)) throw e;
    const why = outputError(earlier ?? /** @type {NodeJS.ErrnoException} */ (e), dir).message;
    // this run's own directory: a summary.md from this save or an earlier one must not outlive the failure
    removeQuietly(mdFile);
    if (
      !placeholderSummary(dir, {
        interrupted: summary.interrupted ?? false,
        failed: `${why}; its summary could not be saved`,
        unsaved: true,
      })
    )
      removeQuietly(path.join(dir, 'summary.json'));
    return {
      md,
      failure: `${why}; ${earlier ? 'the run stopped there, and ' : ''}its summary (printed above) could not be saved: timeline.csv and the .hlog files hold what was written before`,
      unsaved: `its summary could not be saved: ${why}`,
    };
  }
  return earlier
    ? { md, failure: `${outputError(earlier, dir).message}; the run stopped there (summary.json says what was measured until then)` }
    : { md };
}

/** @param {string} file removed if it can be: a directory that cannot be written is reported already */
function removeQuietly(file) {
  try {
    rmSync(file, { force: true });
  } catch {
    // read-only, or gone with its directory
  }
}

/**
 * summary.json and summary.md for a run that could not be summarized (it failed, or a second
 * Ctrl-C cut it short), so no run directory is left without one. Never throws: when the
 * directory cannot be written either, the run's error line says what happened.
 * @param {string} dir
 * @param {{ interrupted: string|boolean, failed?: string, note?: string, unsaved?: boolean }} why unsaved: the run
 *   reached its end and only its summary could not be saved
 * @returns {boolean} summary.json was written
 */
export function placeholderSummary(dir, why) {
  try {
    writeJson(path.join(dir, 'summary.json'), { incomplete: true, ...why });
  } catch {
    return false;
  }
  try {
    writeText(
      path.join(dir, 'summary.md'),
      `# Incomplete run\n\n${why.failed ? `The run failed: ${why.failed}.` : (why.note ?? why.interrupted)} ${measuredWords(dir)}\n`,
    );
  } catch {
    // summary.json, which reports read, says it already
  }
  return true;
}

/**
 * Where an incomplete run's measurements are: only the files that are there (a run cut short
 * before its first second, or on a full disk, may have none).
 * @param {string} dir
 */
function measuredWords(dir) {
  let held = [];
  try {
    held = readdirSync(dir)
      .filter((f) => f === 'timeline.csv' || f.endsWith('.hlog'))
      .sort((a, b) => (a === 'timeline.csv' ? -1 : b === 'timeline.csv' ? 1 : a.localeCompare(b)));
  } catch {
    // unreadable: nothing can be named
  }
  if (!held.length) return 'No file of what it measured was saved.';
  const names = held.length === 1 ? held[0] : `${held.slice(0, -1).join(', ')} and ${held.at(-1)}`;
  return `${names} hold${held.length === 1 ? 's' : ''} what it measured.`;
}
