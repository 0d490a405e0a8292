#!/usr/bin/env node
/**
 * `npm run bench:load`: `rqbench load` against seed 001's targets on this machine, in one run.
 *
 *   1. a delta file of 4,000,000 records x 512 B (generated once into the temp dir, reused when
 *      a file of the right size is there)
 *   2. the noop sink (read + parse + count) over a grid of reader threads: target >= 1,000,000 records/s
 *   3. a fresh local standalone Redis: redis-benchmark SET with the same value size, then
 *      rqbench load over a grid of threads x connections: target >= 80% of redis-benchmark's rate
 *
 * Exits 1 when a target is missed or it could not measure, 0 when every target was met.
 * Flags: --records N (default 4,000,000), --file PATH (where the delta file lives), --json FILE.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startRedis, findExecutable } from '../src/local/local-redis.js';
import { valueLength } from '../src/workloads/bulk-load/delta-file.js';
import { killRunning, runMeasured } from './lib/proc.js';
import { commandLine, redisBenchmark, shellQuote } from './lib/phases.js';
import { helpFromHeader } from './lib/help.js';
import { target, targetsLine } from './lib/targets.js';

helpFromHeader(import.meta.url);

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = 'src/cli.js';
const argv = process.argv.slice(2);
const flag = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const RECORDS = Number(flag('--records', 4_000_000));
const RECORD_SIZE = 512;
const KEY_PATTERN = 'delta:{n}';
const FILE = flag('--file', path.join(os.tmpdir(), `rqbench-delta-${RECORDS}x${RECORD_SIZE}.tsv`));
const JSON_OUT = flag('--json', null);
/** Grids tried: reader threads (noop), threads x connections (redis). */
const NOOP_THREADS = '1,2,3,4,8,16';
const REDIS_THREADS = '1,2';
const REDIS_CONNECTIONS = '2,4,8';
const BENCH = { pipeline: 64, clients: 16 };
const NOOP_TARGET = 1_000_000;
const REDIS_RATIO_TARGET = 0.8;

const log = (s = '') => process.stdout.write(`${s}\n`);
const note = (s) => process.stderr.write(`${s}\n`);

/** Runs `node src/cli.js load …` and returns its summary.json and the command line. */
async function rqLoad(args) {
  const full = [CLI, 'load', ...args, '--json', '--quiet'];
  const r = await runMeasured(process.execPath, full, { cwd: ROOT, timeoutMs: 30 * 60_000 });
  let summary;
  try {
    summary = JSON.parse(r.stdout);
  } catch {
    throw new Error(`rqbench load exited with ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
  }
  return { summary, command: commandLine('node', full), cpuS: r.cpuS, wallS: r.wallS };
}

function best(summary) {
  return summary.cells.reduce((b, c) => (c.recordsPerSec > b.recordsPerSec ? c : b));
}

function gridTable(summary) {
  const rows = summary.cells.map((c) => `| ${c.threads} | ${c.connections} | ${c.loadS.toFixed(2)} sec | ${Math.round(c.recordsPerSec / 1000).toLocaleString('en-US')} k/s | ${c.check.ok ? 'ok' : 'FAILED'} |`);
  return ['| reader threads | connections | data loading time | num records per sec | exactly once |', '| --- | ---: | ---: | ---: | :---: |', ...rows].join('\n');
}

async function main() {
  if (!findExecutable('redis-benchmark')) throw new Error('redis-benchmark not found on PATH');
  const size = fs.existsSync(FILE) ? fs.statSync(FILE).size : 0;
  const out = {};
  if (size !== RECORDS * RECORD_SIZE) {
    note(`generating ${FILE}…`);
    const g = await runMeasured(process.execPath, [CLI, 'load', '--generate', FILE, '--records', String(RECORDS), '--record-size', String(RECORD_SIZE), '--key-pattern', KEY_PATTERN, '--json', '--quiet'], { cwd: ROOT, timeoutMs: 10 * 60_000 });
    if (g.code !== 0) throw new Error(`--generate failed: ${g.stderr.trim()}`);
    out.generate = JSON.parse(g.stdout);
  }
  const runs = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-bench-load-'));

  note('noop sink…');
  const noop = await rqLoad([FILE, '--sink', 'noop', '--reader-threads', NOOP_THREADS, '--connections', '1', '--out', runs]);
  out.noop = { command: noop.command.replace(shellQuote(runs), '<tmpdir>'), best: best(noop.summary), cells: noop.summary.cells.map(({ perThread, ...c }) => c) };

  note('starting a local standalone Redis…');
  const redis = await startRedis();
  const meter = new Redis({ host: redis.host, port: redis.port, maxRetriesPerRequest: 1 });
  try {
    // the file's values are 512 - len("delta:<n>") - 2 bytes: 497 for most of 4M records
    const vsize = valueLength(KEY_PATTERN, RECORDS - 1, RECORD_SIZE);
    note(`redis-benchmark SET -d ${vsize}…`);
    const rb = await redisBenchmark({
      meter, host: redis.host, port: redis.port, requests: RECORDS, idSpace: RECORDS, pipeline: BENCH.pipeline,
      command: ['-c', String(BENCH.clients), '-d', String(vsize), '-t', 'set', '-q'],
    });
    await meter.flushall();
    note('rqbench load into Redis…');
    const load = await rqLoad([FILE, '--port', String(redis.port), '--reader-threads', REDIS_THREADS, '--connections', REDIS_CONNECTIONS, '--out', runs]);
    const top = best(load.summary);
    out.redisBenchmark = rb;
    out.redis = { command: load.command.replace(shellQuote(runs), '<tmpdir>').replace(String(redis.port), '<port>'), best: top, ratio: top.recordsPerSec / rb.requestsPerSec, cells: load.summary.cells.map(({ perThread, ...c }) => c) };

    log('## rqbench load (seed 001)');
    log();
    log(`${os.cpus().length} CPUs (${os.cpus()[0]?.model}), Node ${process.version}; ${RECORDS.toLocaleString('en-US')} records x ${RECORD_SIZE} B in ${FILE}.`);
    log();
    log(`noop sink: \`${out.noop.command}\``);
    log();
    log(gridTable(noop.summary));
    log();
    log(`best ${Math.round(out.noop.best.recordsPerSec).toLocaleString('en-US')} records/s with ${out.noop.best.threads} threads: target ${NOOP_TARGET.toLocaleString('en-US')} — ${target(out.noop.best.recordsPerSec >= NOOP_TARGET)}`);
    log();
    log(`redis-benchmark: \`${rb.command.replace(String(redis.port), '<port>')}\` → ${Math.round(rb.requestsPerSec).toLocaleString('en-US')} SET/s (Redis CPU ${rb.redisCpuPct.toFixed(0)}%)`);
    log();
    log(`redis sink: \`${out.redis.command}\``);
    log();
    log(gridTable(load.summary));
    log();
    log(`best ${Math.round(top.recordsPerSec).toLocaleString('en-US')} records/s (${top.threads} threads x ${top.connections} connections) = ${(out.redis.ratio * 100).toFixed(0)}% of redis-benchmark: target ${REDIS_RATIO_TARGET * 100}% — ${target(out.redis.ratio >= REDIS_RATIO_TARGET)}`);
    log();
    log(targetsLine());
  } finally {
    meter.disconnect();
    await redis.stop();
    fs.rmSync(runs, { recursive: true, force: true });
  }
  if (JSON_OUT) fs.writeFileSync(JSON_OUT, `${JSON.stringify(out, null, 2)}\n`);
}

process.once('SIGINT', () => { killRunning(); process.exit(130); });
main().catch((e) => {
  killRunning();
  note(`bench:load: ${e.message}`);
  process.exitCode = 1;
});
