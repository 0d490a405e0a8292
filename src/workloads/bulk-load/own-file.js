/**
 * A file to write whole or not at all, without ever removing what rqbench did not create. A new
 * path is created exclusively (O_EXCL) and, if the write fails, removed only while it is still
 * the regular file this process made (same device and inode). An existing regular file is
 * replaced only once the new one is whole: it is written beside under a name of its own and
 * renamed over it, so a failed write leaves the user's file as it was. Anything else that exists
 * (a device such as /dev/null, a FIFO) is written into and never removed.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * @param {string} file
 * @returns {{ fd: number, commit: () => void, abandon: () => void }} commit after the last write
 *   (closes the file, puts it in place); abandon after a failure (closes it, removes what this made)
 */
export function openOwn(file) {
  const before = statOrNull(file);
  if (before && !before.isFile()) {
    // a device or a FIFO: written into as it is; it was there before and stays
    const fd = fs.openSync(file, 'w');
    return { fd, commit: () => fs.closeSync(fd), abandon: () => closeQuietly(fd) };
  }
  // an existing file (or the file a link points to) is replaced by a rename once the new one is whole
  const target = before ? fs.realpathSync(file) : file;
  const made = before ? path.join(path.dirname(target), `.${path.basename(target)}.rqbench-${process.pid}.part`) : target;
  const fd = fs.openSync(made, 'wx');
  const mine = fs.fstatSync(fd);
  const removeMine = () => {
    const now = statOrNull(made, true);
    if (now?.isFile() && now.dev === mine.dev && now.ino === mine.ino) fs.unlinkSync(made);
  };
  try {
    // the file it replaces keeps its permissions
    if (before) fs.fchmodSync(fd, before.mode & 0o7777);
  } catch (e) {
    closeQuietly(fd);
    removeMine();
    throw e;
  }
  return {
    fd,
    commit: () => {
      fs.closeSync(fd);
      if (made !== target) fs.renameSync(made, target);
    },
    abandon: () => {
      closeQuietly(fd);
      removeMine();
    },
  };
}

/** @param {string} file @param {boolean} [noFollow] @returns {fs.Stats|null} */
function statOrNull(file, noFollow = false) {
  try {
    return noFollow ? fs.lstatSync(file) : fs.statSync(file);
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT') return null;
    throw e;
  }
}

/** @param {number} fd */
function closeQuietly(fd) {
  try {
    fs.closeSync(fd);
  } catch {
    // a close that fails after a failed write adds nothing to the error already reported
  }
}
