/**
 * A throwaway Google Cloud Pub/Sub emulator on 127.0.0.1. The emulator script (installed by the
 * Debian package google-cloud-cli-pubsub-emulator) is run directly, not through gcloud: it execs
 * java, so the PID we hold is the JVM's and killing it stops the emulator (killing a gcloud
 * wrapper would leave java running). The heap is capped; "ready" is `GET /` answering `Ok`.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { findFreePorts } from './ports.js';
import { isAlive, sleep, terminate } from './process.js';
import { findExecutable } from './local-redis.js';

const HOST = '127.0.0.1';
const SCRIPT = 'cloud-pubsub-emulator';
const SDK_ROOTS = ['/usr/lib/google-cloud-sdk', '/usr/share/google-cloud-sdk', '/opt/google-cloud-sdk', '/google-cloud-sdk'];
const PORT_ATTEMPTS = 4;

export const PUBSUB_INSTALL_HINT =
  'Pub/Sub emulator not found: install it with "apt-get install -y google-cloud-cli-pubsub-emulator" (Google Cloud SDK apt repository), or set PUBSUB_EMULATOR_BIN to its cloud-pubsub-emulator script';

/**
 * @typedef {{ host: string, port: number, endpoint: string, pid: number, dir: string, stop: () => Promise<void> }} LocalPubsub
 * endpoint is host:port, what PUBSUB_EMULATOR_HOST and the client's apiEndpoint take.
 */

/**
 * Path of the emulator's cloud-pubsub-emulator script, or null when it is not installed.
 * PUBSUB_EMULATOR_BIN wins; then the SDK under CLOUDSDK_ROOT_DIR, the usual SDK roots, and the
 * SDK of a gcloud found on PATH.
 * @returns {string|null}
 */
export function findPubsubEmulator() {
  const candidates = [];
  if (process.env.PUBSUB_EMULATOR_BIN) candidates.push(process.env.PUBSUB_EMULATOR_BIN);
  const roots = [process.env.CLOUDSDK_ROOT_DIR, ...SDK_ROOTS].filter(Boolean);
  const gcloud = findExecutable('gcloud');
  if (gcloud) roots.push(path.dirname(path.dirname(fs.realpathSync(gcloud))));
  for (const root of roots) candidates.push(path.join(root, 'platform', 'pubsub-emulator', 'bin', SCRIPT));
  for (const file of candidates) {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Starts the emulator on a free loopback port and waits until it answers.
 * @param {{ heap?: string, readyTimeoutMs?: number, dir?: string }} [opts] heap: -Xmx value (256m)
 * @returns {Promise<LocalPubsub>}
 */
export async function startPubsub({ heap = '256m', readyTimeoutMs = 60_000, dir = os.tmpdir() } = {}) {
  const script = findPubsubEmulator();
  if (!script) throw Object.assign(new Error(PUBSUB_INSTALL_HINT), { code: 'ENOPUBSUB' });
  const base = await fsp.mkdtemp(path.join(dir, 'rqbench-pubsub-'));
  let lastError;
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    const [port] = await findFreePorts(1);
    const logFile = path.join(base, `emulator-${port}.log`);
    const log = fs.openSync(logFile, 'w');
    const child = spawn(script, [`--host=${HOST}`, `--port=${port}`], {
      stdio: ['ignore', log, log],
      env: { ...process.env, JAVA_OPTS: `-Xmx${heap}` },
      detached: false,
    });
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
      await waitReady(port, pid, logFile, readyTimeoutMs);
      return { host: HOST, port, endpoint: `${HOST}:${port}`, pid, dir: base, stop };
    } catch (err) {
      lastError = err;
      const taken = /address already in use|BindException/i.test(await fsp.readFile(logFile, 'utf8').catch(() => ''));
      await terminate(pid, { graceMs: 1000 });
      live.delete(pid);
      if (!taken) {
        await fsp.rm(base, { recursive: true, force: true });
        throw err;
      }
    }
  }
  await fsp.rm(base, { recursive: true, force: true });
  throw lastError;
}

/** Polls `GET /` until it answers `Ok`. */
async function waitReady(port, pid, logFile, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`http://${HOST}:${port}/`, { signal: AbortSignal.timeout(1000) });
      if ((await res.text()).trim() === 'Ok') return;
    } catch {
      // not listening yet
    }
    if (!isAlive(pid)) throw new Error(`Pub/Sub emulator exited: ${lastLines(logFile)}`);
    if (Date.now() >= deadline) throw new Error(`Pub/Sub emulator on port ${port} not ready after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

function lastLines(file) {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return 'no log';
  }
}

/** JVMs not stopped yet: killed by PID if this process exits without stop(). */
const live = new Set();
let hooked = false;
function installExitHook() {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const pid of live) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
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
