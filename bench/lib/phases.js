/**
 * The three things the producer bench measures against one local Redis, each as one function
 * that returns plain numbers: redis-benchmark, the seed's naive ioredis loop, rqbench's producer.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMeasured } from './proc.js';
import { redisCpuSample, cpuPctBetween } from './redis-cpu.js';
import { payload } from '../../src/workloads/items/stores/payload.js';
import { commandLine, shellQuote } from '../../src/experiments/children.js';

export { commandLine, shellQuote };

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NAIVE = fileURLToPath(new URL('./naive-loop.js', import.meta.url));
const PRODUCER = path.join(ROOT, 'src', 'producer.js');

/** Shell-quotes an argument for display only (the bench never goes through a shell). */
/**
 * One redis-benchmark run of one command. Redis CPU from INFO cpu before and after, over the
 * wall time between those two replies; redis-benchmark's own CPU from this process's cutime/cstime.
 * @param {{ meter: import('ioredis').Redis, host: string, port: number, requests: number, idSpace: number, pipeline: number, command: string[] }} o
 */
export async function redisBenchmark({ meter, host, port, requests, idSpace, pipeline, command }) {
  const args = ['-h', host, '-p', String(port), '-P', String(pipeline), '-n', String(requests), '-r', String(idSpace), '--csv', ...command];
  const before = await redisCpuSample(meter);
  const r = await runMeasured('redis-benchmark', args, { timeoutMs: 90_000 });
  const after = await redisCpuSample(meter);
  if (r.code !== 0) throw new Error(`redis-benchmark exited with ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').pop()}`);
  const cells = csvCells(r.stdout);
  const rps = Number(cells[1]);
  return {
    command: commandLine('redis-benchmark', args),
    requestsPerSec: rps,
    p50Ms: Number(cells[4]),
    p99Ms: Number(cells[6]),
    wallS: r.wallS,
    redisCpuPct: cpuPctBetween(before, after),
    clientCpuPct: (r.cpuS / r.wallS) * 100,
  };
}

/**
 * The last row of redis-benchmark's --csv output: a header line, then "<test>","<rps>","<avg ms>",…
 * @param {string} stdout
 * @returns {string[]} its cells; cells[1] (requests/s) checked to be a number
 */
export function csvCells(stdout) {
  const rows = stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('"') && !l.startsWith('"test"'));
  const cells =
    rows
      .at(-1)
      ?.match(/"([^"]*)"/g)
      ?.map((c) => c.slice(1, -1)) ?? [];
  if (!Number.isFinite(Number(cells[1]))) throw new Error(`cannot read requests/s from redis-benchmark's output: ${stdout.slice(0, 200)}`);
  return cells;
}

/** The 128-byte value redis-benchmark writes: the same bytes as rqbench's payload of item 1. */
export function benchValue(size) {
  return payload(1, size).toString('latin1');
}

/**
 * The seed's auto-pipelined ioredis loop, in a child process (bench/lib/naive-loop.js).
 * @param {{ host: string, port: number, idSpace: number, batch: number, warmupS: number, windowS: number }} o
 */
export async function naiveLoop({ host, port, idSpace, batch, warmupS, windowS }) {
  const args = [NAIVE, host, String(port), String(idSpace), String(batch), String(warmupS), String(windowS)];
  const r = await runMeasured(process.execPath, args, { cwd: ROOT, timeoutMs: (warmupS + windowS) * 1000 + 60_000 });
  if (r.code !== 0) throw new Error(`naive loop exited with ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  return {
    ...out,
    command: commandLine('node', [path.relative(ROOT, NAIVE), ...args.slice(1)]),
    processCpuS: r.cpuS,
    processWallS: r.wallS,
  };
}

/**
 * rqbench's producer CLI (one writer child process; the CLI process only aggregates).
 * Target items/s = q * 1000 / periodMs; ids 1..q, so the id space stays q whatever the rate.
 * @param {{ host: string, port: number, q: number, periodMs: number, chunks: number, durationS: number, warmupS: number, outDir: string }} o
 */
export async function rqbenchProducer({ host, port, q, periodMs, chunks, durationS, warmupS, outDir }) {
  const args = [
    path.relative(ROOT, PRODUCER),
    '--host',
    host,
    '--port',
    String(port),
    '-q',
    String(q),
    '-p',
    String(periodMs),
    '-c',
    String(chunks),
    '-d',
    String(durationS),
    '--warmup',
    String(warmupS),
    '--out',
    outDir,
    '--json',
    '--quiet',
  ];
  const r = await runMeasured(process.execPath, args, { cwd: ROOT, timeoutMs: durationS * 1000 + 90_000 });
  let s;
  try {
    s = JSON.parse(r.stdout);
  } catch {
    throw new Error(
      `rqbench producer exited with ${r.code ?? r.signal} without a summary: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`,
    );
  }
  return {
    command: commandLine('node', args).replace(shellQuote(outDir), '<tmpdir>'),
    target: s.target.itemsPerSec,
    itemsPerSec: s.achieved.itemsPerSec,
    ratio: s.achieved.ratio,
    redisCpuPct: s.cpu.master,
    redisCpuMaxPct: s.cpu.nodes?.[0]?.max ?? null,
    clientCpuPct: s.client.cpuPct,
    clientCpuMaxPct: s.client.cpuPctMaxWriter,
    loopP99MsMax: s.client.loopP99MsMax,
    batchP99Ms: s.latency?.batch?.intended?.p99 ?? null,
    lagP99Ms: s.latency?.lag?.lag?.p99 ?? null,
    failed: s.totals?.failed ?? 0,
    verdict: s.verdict,
    processCpuS: r.cpuS,
    processWallS: r.wallS,
    exitCode: r.code,
  };
}
