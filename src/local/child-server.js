/**
 * A throwaway server run as a child process on a free loopback port: started, waited for until
 * it answers, and stopped by its PID (SIGTERM, then SIGKILL). A port taken between choosing it
 * and binding it is retried on another. What the server printed goes to a log in a temporary
 * folder of its own, removed when it stops; a server never stopped is killed when this process exits.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { findFreePorts } from './ports.js';
import { isAlive, sleep, terminate } from './process.js';

export const HOST = '127.0.0.1';
const PORT_ATTEMPTS = 4;

/**
 * @typedef {object} ChildServerSpec
 * @property {string} label as error lines name it ('Pub/Sub emulator')
 * @property {string} command
 * @property {(port: number) => string[]} args
 * @property {Record<string, string>} [env] added to this process's environment
 * @property {(port: number) => Promise<boolean>} answers true once the server on `port` is ready
 * @property {RegExp} taken the log says the port was taken
 * @property {number} [readyTimeoutMs]
 * @property {string} [dir] where its temporary folder goes
 */

/**
 * @typedef {{ host: string, port: number, pid: number, dir: string, stop: () => Promise<void> }} ChildServer
 */

/**
 * @param {ChildServerSpec} spec
 * @returns {Promise<ChildServer>}
 */
export async function startChildServer({ label, command, args, env = {}, answers, taken, readyTimeoutMs = 60_000, dir = os.tmpdir() }) {
  const base = await fsp.mkdtemp(path.join(dir, `rqbench-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-`));
  let lastError;
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    const [port] = await findFreePorts(1);
    const logFile = path.join(base, `server-${port}.log`);
    const log = fs.openSync(logFile, 'w');
    const child = spawn(command, args(port), { stdio: ['ignore', log, log], env: { ...process.env, ...env }, detached: false });
    fs.closeSync(log);
    const pid = /** @type {number} */ (child.pid);
    live.add(pid);
    installExitHook();
    child.once('exit', () => live.delete(pid));
    const stop = once(async () => {
      await terminate(pid, { graceMs: 3000 });
      live.delete(pid);
      await fsp.rm(base, { recursive: true, force: true });
    });
    try {
      await waitReady({ label, port, pid, logFile, answers, timeoutMs: readyTimeoutMs });
      return { host: HOST, port, pid, dir: base, stop };
    } catch (err) {
      lastError = err;
      const wasTaken = taken.test(await fsp.readFile(logFile, 'utf8').catch(() => ''));
      await terminate(pid, { graceMs: 1000 });
      live.delete(pid);
      if (!wasTaken) {
        await fsp.rm(base, { recursive: true, force: true });
        throw err;
      }
    }
  }
  await fsp.rm(base, { recursive: true, force: true });
  throw lastError;
}

/** Polls until the server answers, it exits (its log's last lines say why), or time runs out. */
async function waitReady({ label, port, pid, logFile, answers, timeoutMs }) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await answers(port).catch(() => false)) return;
    if (!isAlive(pid)) throw new Error(`${label} exited: ${lastLines(logFile)}`);
    if (Date.now() >= deadline) throw new Error(`${label} on port ${port} not ready after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

/** @param {string} file */
function lastLines(file) {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return 'no log';
  }
}

/** Servers not stopped yet: killed by PID if this process exits without stop(). */
const live = new Set();
let hooked = false;
function installExitHook() {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const pid of live)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
  });
}

/**
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {() => Promise<T>}
 */
function once(fn) {
  let p;
  return () => (p ??= fn());
}
