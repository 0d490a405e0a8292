/**
 * Child processes for the producer bench: run one to completion and measure the CPU it used.
 *
 * A child's CPU is read the kernel's way: when a process reaps a child, the child's user + system
 * time (and that of every descendant the child reaped in turn) is added to the parent's cutime /
 * cstime (/proc/self/stat fields 16 and 17). The bench runs one child at a time, so the change in
 * those two fields across a child's life is that child's CPU (10 ms resolution on Linux).
 */
import fs from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
export const CLK_TCK = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const n = Number(String(r.stdout).trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

/** CPU seconds of this process's reaped children so far (cutime + cstime). */
export function childrenCpuSeconds() {
  const s = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / CLK_TCK;
}

/**
 * CPU seconds (user + system) a live process has used so far, from /proc/<pid>/stat.
 * @param {number} pid
 * @returns {number|null} null when it cannot be read (gone, or not Linux)
 */
export function processCpuSeconds(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

/** Children still running, so a Ctrl-C or a crash can stop them by PID. */
export const running = new Set();

/**
 * Runs a program to completion; kills it (by its PID) after timeoutMs.
 * @param {string} file
 * @param {string[]} args
 * @param {{ cwd?: string, timeoutMs?: number, env?: object }} [opts]
 * @returns {Promise<{ code: number|null, signal: string|null, stdout: string, stderr: string, wallS: number, cpuS: number, timedOut: boolean }>}
 */
export function runMeasured(file, args, opts = {}) {
  const { cwd, timeoutMs = 120_000, env } = opts;
  return new Promise((resolve, reject) => {
    const cpu0 = childrenCpuSeconds();
    const t0 = performance.now();
    const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      running.delete(child);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({
        code,
        signal,
        stdout,
        stderr,
        timedOut,
        wallS: (performance.now() - t0) / 1000,
        cpuS: childrenCpuSeconds() - cpu0,
      });
    });
  });
}

/** Stops every child still running (by PID), e.g. on Ctrl-C. */
export function killRunning() {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
