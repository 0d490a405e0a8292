/** Where results go and how much is printed; the output path is checked before anything connects. */
import fs from 'node:fs';
import path from 'node:path';
import { settings } from '../settings.js';
import { FS_WHY, UsageError, shown } from '../usage-error.js';
import { runDirBase } from '../record/run-dir.js';

/** @param {import('yargs').Argv} y */
export function outputOptions(y) {
  const g = 'Output:';
  return y
    .option('out', {
      alias: 'o',
      type: 'string',
      requiresArg: true,
      default: settings.outDir,
      group: g,
      describe: 'directory that receives the run directory (created if missing)',
    })
    .option('name', {
      alias: 'n',
      type: 'string',
      requiresArg: true,
      group: g,
      describe: 'run name (part of the run directory name)',
      defaultDescription: 'from the flags',
    })
    .option('quiet', { type: 'boolean', default: false, group: g, describe: 'no live status line and no summary on stdout' })
    .option('json', { type: 'boolean', default: false, group: g, describe: 'print summary.json on stdout' });
}

/** The longest file name most file systems take (ext4, xfs, tmpfs: 255 bytes). */
const NAME_MAX = 255;
/** What createRunDir adds to a name: `yyyymmdd-hhmmss-` in front, `-<n>` behind when the name is taken. */
const STAMP_BYTES = 16 + 4;

/**
 * --out and --name, checked before any connection is made or file written: a run that could not
 * write its directory would otherwise measure for nothing (or hang with the sampler running).
 * Nothing is created here: the nearest existing ancestor of --out must be a writable directory.
 * @param {{ out?: string, name?: string }} a
 */
export function checkOutput(a) {
  const out = a.out ?? settings.outDir;
  if (typeof out !== 'string' || out === '') throw new UsageError('--out must be a directory path');
  if (hasControl(out)) throw new UsageError(`--out must be a path without control characters (got ${shown(out)})`);
  if (a.name !== undefined) {
    if (typeof a.name !== 'string' || hasControl(a.name))
      throw new UsageError(`--name must be text without control characters (got ${shown(String(a.name))})`);
    const bytes = Buffer.byteLength(runDirBase(a.name));
    if (bytes + STAMP_BYTES > NAME_MAX)
      throw new UsageError(`--name must be at most ${NAME_MAX - STAMP_BYTES} bytes once unsafe characters become '-' (got ${bytes})`);
  }
  let dir = path.resolve(out);
  for (;;) {
    let st;
    try {
      st = fs.statSync(dir);
    } catch (e) {
      const err = /** @type {NodeJS.ErrnoException} */ (e);
      // not there yet (or a path through a file): the nearest existing ancestor decides
      if ((err.code === 'ENOENT' || err.code === 'ENOTDIR') && path.dirname(dir) !== dir) {
        dir = path.dirname(dir);
        continue;
      }
      throw new UsageError(`--out ${shown(out)} cannot be used: ${err.code ?? err.message} at ${shown(dir)}`);
    }
    if (!st.isDirectory()) throw new UsageError(`--out must be a directory rqbench can write (${shown(dir)} is not a directory)`);
    try {
      fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
    } catch (e) {
      const err = /** @type {NodeJS.ErrnoException} */ (e);
      const why = FS_WHY[err.code ?? ''] ?? err.code;
      throw new UsageError(`--out must be a directory rqbench can write (${shown(dir)}: ${why})`);
    }
    return;
  }
}

function hasControl(s) {
  // C0, DEL and C1: a terminal would act on them
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: they are refused
  return /[\u0000-\u001f\u007f-\u009f]/.test(s);
}

/**
 * --html FILE: a page written whole into a directory that exists and can be written, never over
 * a directory or a device. Checked before anything is read, so bad input writes nothing.
 * @param {string} file as given, or the default made from the run directories
 * @returns {string} the same path
 */
export function checkHtmlFile(file) {
  if (hasControl(file)) throw new UsageError(`--html must be a path without control characters (got ${shown(file)})`);
  if (!/\.html?$/i.test(file)) throw new UsageError(`--html must name an .html file (got ${shown(file)})`);
  let st = null;
  try {
    st = fs.statSync(file);
  } catch {
    // not there yet: its directory decides
  }
  if (st && !st.isFile()) throw new UsageError(`--html ${shown(file)} exists and is not a regular file`);
  const dir = path.dirname(path.resolve(file));
  try {
    if (!fs.statSync(dir).isDirectory()) throw new Error('ENOTDIR');
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (e) {
    const err = /** @type {NodeJS.ErrnoException} */ (e);
    throw new UsageError(`--html ${shown(file)}: its directory ${shown(dir)} cannot be written (${err.code ?? err.message})`);
  }
  return file;
}
