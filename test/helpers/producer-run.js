// Runs the producer (or any Node entry point of the project) as a child process and collects
// what it printed, its exit code and the run directory it wrote. No mocks: real processes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePorts } from '../../src/local/ports.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PRODUCER = path.join(ROOT, 'src/producer.js');
export const CLI = path.join(ROOT, 'src/cli.js');

/**
 * Runs `node <args…>` in the project root; never rejects on a non-zero exit.
 * @param {string[]} args
 * @param {{ timeoutMs?: number, env?: Record<string, string> }} [opts]
 * @returns {Promise<{ code: number|null, signal: string|null, stdout: string, stderr: string, ms: number, pid: number }>}
 */
export function runNode(args, { timeoutMs = 60_000, env } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      // never inherit a password from the developer's shell
      env: { ...process.env, REDIS_PASSWORD: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // killed by its own PID (and only it) if it overstays
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, pid: child.pid });
    });
  });
}

/** Temp dirs made by this module, removed by removeTempDirs(). */
const temps = new Set();

/** A fresh empty directory under the OS temp dir. */
export function tempDir(prefix = 'rqbench-test-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.add(dir);
  return dir;
}

/**
 * Resolves at epoch ms `at` (at once when it has passed): a fault injected at a second of a run.
 * @param {number} at
 */
export const until = (at) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));

export function removeTempDirs() {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true });
  temps.clear();
}

/** Every entry under `dir` (relative paths), recursively; [] when dir does not exist. */
export function listTree(dir) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    out.push(e.name);
    if (e.isDirectory()) for (const sub of listTree(path.join(dir, e.name))) out.push(path.join(e.name, sub));
  }
  return out;
}

/**
 * @typedef {object} ProduceOptions
 * @property {number} port
 * @property {boolean} [cluster]
 * @property {string} [url]          used instead of --host/--port
 * @property {number} q
 * @property {number} [d]            seconds (default 2)
 * @property {number} [ttl]          seconds (default 30: keys outlive the checks)
 * @property {string[]} [extra]      more flags (must not repeat the ones above: yargs turns repeats into arrays)
 * @property {number} [timeoutMs]
 * @property {(t0: number) => void} [onT0] called once manifest.json appears, with its t0
 */

/**
 * One producer run with --json --quiet --warmup 0 into a fresh --out directory.
 * @param {ProduceOptions} o
 */
export async function produce(o) {
  const out = tempDir('rqbench-produce-');
  const target = o.url ? ['--url', o.url] : ['--host', '127.0.0.1', '--port', String(o.port)];
  const args = [
    PRODUCER,
    ...target,
    ...(o.cluster ? ['--cluster'] : []),
    '-q',
    String(o.q),
    '-d',
    String(o.d ?? 2),
    '--warmup',
    '0',
    '--ttl',
    String(o.ttl ?? 30),
    '--out',
    out,
    '--json',
    '--quiet',
    ...(o.extra ?? []),
  ];
  const started = Date.now();
  const res = await runWatchingT0(args, out, o);
  const finishedAt = Date.now();
  const { summary, dirs, dir } = readRun(out, res.stdout);
  const manifest =
    dir && fs.existsSync(path.join(dir, 'manifest.json')) ? JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) : null;
  return { ...res, args, out, dirs, dir, summary, manifest, t0: manifest?.t0, started, finishedAt };
}

/**
 * Runs a CLI; with onT0, calls it with the run's t0 as soon as its manifest appears under `out`
 * (a test injects a fault at a second of the run from outside).
 * @param {string[]} args
 * @param {string} out
 * @param {{ timeoutMs?: number, onT0?: (t0: number) => void }} o
 */
export async function runWatchingT0(args, out, o) {
  const running = runNode(args, { timeoutMs: o.timeoutMs ?? 60_000 });
  let watcher;
  if (o.onT0) {
    const onT0 = o.onT0;
    watcher = setInterval(() => {
      const m = readManifest(out);
      if (m) {
        clearInterval(watcher);
        onT0(m.t0);
      }
    }, 50);
  }
  return running.finally(() => clearInterval(watcher));
}

/** The manifest.json of the run being written under `out`, or null before it appears. */
export function readManifest(out) {
  try {
    for (const e of fs.readdirSync(out)) {
      const file = path.join(out, e, 'manifest.json');
      if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
    }
  } catch {
    // not written yet (or mid-rename)
  }
  return null;
}

/** Short description of a run for assertion messages. */
export function describeRun(r) {
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ''} after ${r.ms} ms; stderr: ${r.stderr.trim().slice(0, 400) || '(empty)'}; stdout starts: ${r.stdout.slice(0, 200)}`;
}

/** A loopback port nothing listens on (bound, then released). */
export async function freePort() {
  // below the ephemeral range, where no outgoing connection takes it before its server binds it (src/local/ports.js)
  const [port] = await findFreePorts(1);
  return port;
}

/**
 * What a run left: the JSON summary it printed (null if none) and its run directory under `out`.
 * @param {string} out
 * @param {string} stdout
 */
export function readRun(out, stdout) {
  let summary = null;
  try {
    summary = JSON.parse(stdout);
  } catch {
    // left null: the assertions say so
  }
  const dirs = fs.existsSync(out)
    ? fs
        .readdirSync(out, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
    : [];
  return { summary, dirs, dir: dirs.length === 1 ? path.join(out, dirs[0]) : null };
}
