/**
 * PID helpers for daemonized servers. Everything here works on one PID we were given:
 * nothing looks processes up by name.
 */
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/** Clock ticks per second of /proc's CPU times (100 on Linux). */
export const CLK_TCK = 100;

/**
 * A process's /proc/<pid>/stat, the fields rqbench reads: its name, state letter, parent, and CPU
 * ticks (user and system, its own and its waited-for children's). Null when /proc has no such
 * process (it ended, or this is not Linux).
 * @param {number|string} pid a PID, or 'self'
 * @returns {{ comm: string, state: string, ppid: number, utime: number, stime: number, cutime: number, cstime: number }|null}
 */
export function readProcStat(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) S ppid …": comm may contain spaces and parentheses, so read after the last ')'
  const close = stat.lastIndexOf(')');
  const f = stat.slice(close + 2).split(' ');
  // stat(5) fields counted from state (3): ppid 4, utime 14, stime 15, cutime 16, cstime 17
  return {
    comm: stat.slice(stat.indexOf('(') + 1, close),
    state: f[0],
    ppid: Number(f[1]),
    utime: Number(f[11]),
    stime: Number(f[12]),
    cutime: Number(f[13]),
    cstime: Number(f[14]),
  };
}

/**
 * Linux process state letter from /proc, or null when /proc has no such process
 * (or this is not Linux).
 * @param {number} pid
 * @returns {string|null}
 */
function procState(pid) {
  return readProcStat(pid)?.state ?? null;
}

/**
 * True while the process runs. A zombie counts as dead: a daemonized server is reparented
 * to PID 1, and an init that never reaps (as in some containers/VMs) leaves it as a zombie
 * that `kill(pid, 0)` still reports.
 * @param {number} pid
 * @returns {boolean}
 */
export function isAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but is not ours to signal.
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
  const state = procState(pid);
  return state !== 'Z' && state !== 'X';
}

/**
 * Executable name of a process (Linux /proc), or null when unknown.
 * @param {number} pid
 * @returns {string|null}
 */
export function processName(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Polls until the process is gone.
 * @param {number} pid
 * @param {number} timeoutMs
 * @returns {Promise<boolean>} true when it exited in time
 */
export async function waitForExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(25);
  }
  return true;
}

/**
 * SIGTERM, wait up to `graceMs`, then SIGKILL. With `expectName`, a live PID whose
 * executable name differs is left alone: the PID was reused by someone else's process.
 * @param {number} pid
 * @param {{ graceMs?: number, expectName?: string }} [opts]
 * @returns {Promise<void>}
 */
export async function terminate(pid, { graceMs = 3000, expectName } = {}) {
  if (!isAlive(pid)) return;
  const name = processName(pid);
  if (expectName && name !== null && name !== expectName) return;
  if (!signal(pid, 'SIGTERM')) return;
  if (await waitForExit(pid, graceMs)) return;
  signal(pid, 'SIGKILL');
  await waitForExit(pid, 2000);
}

/**
 * @param {number} pid
 * @param {NodeJS.Signals} sig
 * @returns {boolean} false when the process was already gone
 */
function signal(pid, sig) {
  try {
    process.kill(pid, sig);
    return true;
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ESRCH') return false;
    throw err;
  }
}

/**
 * Reads a PID file once it exists and holds a number.
 * @param {string} file
 * @returns {number|null}
 */
export function readPidFile(file) {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * An AbortSignal that aborts on SIGINT or SIGTERM, for servers kept until Ctrl-C. Listen before
 * starting anything: a Ctrl-C during a start must not leave servers behind.
 * @returns {{ signal: AbortSignal, dispose: () => void }} dispose removes the listeners
 */
export function stopSignals() {
  const ac = new AbortController();
  const onSignal = () => ac.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: ac.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * Resolves when `signal` aborts. Signal listeners alone do not keep Node running, so an
 * idle timer holds the event loop open meanwhile.
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
export function untilAborted(signal) {
  if (signal.aborted) return Promise.resolve();
  const keepAlive = setInterval(() => {}, 60_000);
  return new Promise((resolve) => {
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(keepAlive);
        resolve();
      },
      { once: true },
    );
  });
}
