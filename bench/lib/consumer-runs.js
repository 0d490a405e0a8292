/**
 * The consumer bench's measurements, each one child process run to completion:
 *  - fill: rqbench's producer writes the live items once (long TTL);
 *  - consumer: rqbench's consumer CLI (src/consumer.js) with one --fetch strategy; its run
 *    directory gives summary.json and, in cycle/card/range/values.hlog, every cycle's times;
 *  - lean: bench/lib/lean-mget.js, a reference client with no per-item JS objects.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { childrenCpuSeconds, running, runMeasured } from './proc.js';
import { commandLine, shellQuote } from './phases.js';
import { readHlog } from '../../src/record/hlog.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PRODUCER = path.join('src', 'producer.js');
const CONSUMER = path.join('src', 'consumer.js');
const LEAN = path.join('bench', 'lib', 'lean-mget.js');

const lastLines = (s, n = 3) => s.trim().split('\n').slice(-n).join(' | ');
/** How long an rqbench CLI may stay alive after printing its summary before it is stopped. */
const EXIT_GRACE_MS = 5000;

/**
 * Runs an rqbench CLI with --json to completion, like proc.js's runMeasured, except that once
 * its summary (one JSON document on stdout) is complete it gets EXIT_GRACE_MS to exit, and is
 * then stopped (SIGKILL, by its PID) and reported as `hung`. (src/workloads/items/run-workers.js can keep a
 * finished run's process alive: see the consumer section of bench/RESULTS.md.)
 * @param {string[]} args
 * @param {number} timeoutMs
 */
function runCli(args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const cpu0 = childrenCpuSeconds();
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stdout = '';
    let stderr = '';
    let hung = false;
    let timedOut = false;
    let grace = null;
    let summaryAt = null;
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    child.stdout.on('data', (d) => {
      stdout += d;
      if (grace) return;
      try {
        JSON.parse(stdout);
      } catch {
        return;
      }
      summaryAt = performance.now();
      grace = setTimeout(() => {
        hung = true;
        kill();
      }, EXIT_GRACE_MS);
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      clearTimeout(grace);
      running.delete(child);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(grace);
      running.delete(child);
      resolve({
        code,
        signal,
        stdout,
        stderr,
        hung,
        timedOut,
        wallS: ((summaryAt ?? performance.now()) - t0) / 1000,
        cpuS: childrenCpuSeconds() - cpu0,
      });
    });
  });
}

/**
 * Writes item:1..q (SETEX, 128 B) and latest-ids with the producer, -d 2 at q items/s.
 * @param {{ host: string, port: number, q: number, ttlS: number, outDir: string }} o
 */
export async function fillItems({ host, port, q, ttlS, outDir }) {
  const args = [
    PRODUCER,
    '--host',
    host,
    '--port',
    String(port),
    '--cluster',
    '-q',
    String(q),
    '-c',
    '30',
    '-d',
    '2',
    '--ttl',
    String(ttlS),
    '--warmup',
    '0',
    '--out',
    outDir,
    '--json',
    '--quiet',
  ];
  const r = await runCli(args, 120_000);
  let s;
  try {
    s = JSON.parse(r.stdout);
  } catch {
    throw new Error(`producer exited with ${r.code ?? r.signal} without a summary: ${lastLines(r.stderr)}`);
  }
  return {
    command: commandLine('node', args).replace(shellQuote(outDir), '<tmpdir>'),
    sent: s.totals?.sent ?? null,
    acked: s.totals?.acked ?? null,
    failed: s.totals?.failed ?? null,
    itemsPerSec: s.achieved?.itemsPerSec ?? null,
    wallS: r.wallS,
    exitCode: r.code,
    hung: r.hung,
    processCpuS: r.cpuS,
  };
}

/**
 * One consumer run: `cycles` cycles after a first (cold) one, `periodMs` apart, so
 * -d = periodMs x (cycles + 1). The warm-up is the first period. With `probe`, one cycle only
 * and no warm-up (-d = one period): it says how long a cycle of this strategy takes.
 * @param {{ host: string, port: number, fetch: string, periodMs: number, cycles: number, ttlS: number, outDir: string, probe?: boolean }} o
 */
export async function consumerRun({ host, port, fetch, periodMs, cycles, ttlS, outDir, probe = false }) {
  const durationS = probe ? periodMs / 1000 : (periodMs * (cycles + 1)) / 1000;
  const warmupS = probe ? 0 : periodMs / 1000;
  const runOut = fs.mkdtempSync(path.join(outDir, `${fetch}-`));
  const args = [
    CONSUMER,
    '--host',
    host,
    '--port',
    String(port),
    '--cluster',
    '--ttl',
    String(ttlS),
    '-p',
    String(periodMs),
    '-d',
    String(durationS),
    '--warmup',
    String(warmupS),
    '--fetch',
    fetch,
    '--out',
    runOut,
    '--json',
    '--quiet',
  ];
  const r = await runCli(args, durationS * 1000 + 120_000);
  let summary;
  try {
    summary = JSON.parse(r.stdout);
  } catch {
    throw new Error(`consumer --fetch ${fetch} exited with ${r.code ?? r.signal} without a summary: ${lastLines(r.stderr)}`);
  }
  const dirs = fs
    .readdirSync(runOut)
    .map((d) => path.join(runOut, d))
    .filter((d) => fs.statSync(d).isDirectory());
  if (dirs.length !== 1) throw new Error(`consumer --fetch ${fetch}: expected one run directory in ${runOut}, found ${dirs.length}`);
  const dir = dirs[0];
  return {
    fetch,
    periodMs,
    command: commandLine('node', args).replace(shellQuote(runOut), '<tmpdir>'),
    dir,
    summary,
    // every cycle of the run, in the order they ended (the first is the cold one)
    perCycle: {
      cycle: sentValues(path.join(dir, 'cycle.hlog')),
      card: sentValues(path.join(dir, 'card.hlog')),
      range: sentValues(path.join(dir, 'range.hlog')),
      values: sentValues(path.join(dir, 'values.hlog')),
    },
    exitCode: r.code,
    hung: r.hung,
    processCpuS: r.cpuS,
    processWallS: r.wallS,
  };
}

/**
 * The lean reference client (bench/lib/lean-mget.js) in its own process.
 * @param {{ host: string, port: number, cycles: number, gapMs: number, ttlS: number }} o
 */
export async function leanRun({ host, port, cycles, gapMs, ttlS }) {
  const args = [LEAN, host, String(port), String(cycles + 1), String(gapMs), String(ttlS)];
  const r = await runMeasured(process.execPath, args, { cwd: ROOT, timeoutMs: (cycles + 1) * (gapMs + 30_000) + 30_000 });
  let out;
  try {
    out = JSON.parse(r.stdout.trim().split('\n').pop());
  } catch {
    throw new Error(`lean reference exited with ${r.code ?? r.signal}: ${lastLines(r.stderr)}`);
  }
  return { ...out, command: commandLine('node', args), processCpuS: r.cpuS, processWallS: r.wallS, exitCode: r.code };
}

/**
 * Every value recorded under Tag=sent in an .hlog, in ms, interval by interval (within an
 * interval, lowest first). A cycle is recorded in the interval in which it ended, and cycles are
 * periods apart, so with periods of 1 s or more this is one value per cycle in the order they ran.
 * Values are the bucket's highest equivalent value (3 significant digits), as percentiles are.
 * @param {string} file
 * @returns {number[]}
 */
export function sentValues(file) {
  if (!fs.existsSync(file)) return [];
  const out = [];
  for (const iv of readHlog(file).intervals) {
    if (iv.tag !== 'sent') continue;
    const h = /** @type {any} */ (iv.histogram);
    for (let i = 0; i < h.countsArrayLength; i++) {
      const c = h.getCountAtIndex(i);
      for (let k = 0; k < c; k++) out.push(h.highestEquivalentValue(h.valueFromIndex(i)) / 1000);
    }
  }
  return out;
}
