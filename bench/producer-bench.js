#!/usr/bin/env node
/**
 * `npm run bench:producer`: items/s of one rqbench writer process against a fresh local
 * standalone Redis, beside two references measured in the same run against the same server:
 *
 *   1. redis-benchmark -P 64 for SETEX item:<rand> 3 <128 B> and ZADD latest-ids <rand> item:<rand>
 *   2. the seed's approach: one ioredis client with enableAutoPipelining in a closed loop
 *      (B SETEX + one ZADD of the B ids, await Promise.all, again)
 *   3. rqbench's producer (src/producer.js): at a target far above what can be held (its
 *      maximum), and on a ramp of targets to find the highest rate held within 5%
 *
 * Same workload everywhere: 128-byte values, TTL 3 s, ids from a fixed space of 300k, the ids
 * also added to one sorted set. FLUSHALL between runs. Redis CPU is INFO cpu deltas (% of one
 * core); client CPU is the load generator's own process (% of one core).
 *
 * Exits 1 when a check fails or it could not measure, 0 when every check passed.
 * Flags: --keep-runs (keep rqbench's run directories and print where), --json FILE (raw figures),
 *        --max-target N (items/s of the "max" run; default 500000, raise it on a faster machine).
 */
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startRedis, findExecutable } from '../src/local/local-redis.js';
import { killRunning } from './lib/proc.js';
import { MachineSampler } from './lib/machine-sampler.js';
import { benchValue, naiveLoop, redisBenchmark, rqbenchProducer } from './lib/phases.js';
import { helpFromHeader } from './lib/help.js';
import { target, targetsLine } from './lib/targets.js';

helpFromHeader(import.meta.url);

const HOST = '127.0.0.1';
const ID_SPACE = 300_000;
const VALUE_SIZE = 128;
/** Items per ZADD: the naive loop's batch and rqbench's chunk (ID_SPACE / CHUNKS). */
const BATCH = 10_000;
const CHUNKS = ID_SPACE / BATCH;
const BENCH = { pipeline: 64, setexRequests: 1_000_000, zaddRequests: 1_000_000 };
const NAIVE = { warmupS: 1, windowS: 8 };
/**
 * rqbench at its maximum: a target well above what one Redis core holds here. The writer sends
 * every scheduled chunk even when late (at most 64 chunks in flight), so the run lasts about
 * target x duration / capacity: 500k for 8 s is ~20 s at ~200k/s (1M would be ~40 s).
 */
const MAX = { target: 500_000, durationS: 8, warmupS: 2 };
const maxTargetFlag = () => {
  const i = process.argv.indexOf('--max-target');
  return i > 0 ? Number(process.argv[i + 1]) : NaN;
};
if (Number.isInteger(maxTargetFlag()) && maxTargetFlag() > 0) MAX.target = maxTargetFlag();
/** Ramp of targets, items/s; each step runs RAMP_S seconds (first second is warm-up). */
const RAMP = [100_000, 150_000, 200_000, 250_000, 300_000, 400_000];
const RAMP_S = 6;
/** The ramp stops after this many targets in a row were not held. */
const RAMP_MISSES = 2;
const HELD = 0.95;
/** Target checks. */
const SPEEDUP_MIN = 2;
const REDIS_BUSY_PCT = 90;

const argv = process.argv.slice(2);
const keepRuns = argv.includes('--keep-runs');
const jsonOut = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : null;

const log = (s = '') => process.stdout.write(`${s}\n`);
const note = (s) => process.stderr.write(`${s}\n`);

/** Period (ms) giving `rate` items/s with q = ID_SPACE ids per period. */
const periodFor = (rate) => Math.round((ID_SPACE * 1000) / rate);
const isHeld = (step) => step.ratio >= HELD && !step.failed;

async function main() {
  if (!findExecutable('redis-benchmark')) note('redis-benchmark not found on PATH: that reference is skipped');
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-bench-'));
  const started = new Date();
  note(`starting a local standalone Redis on ${HOST}…`);
  const redis = await startRedis();
  const meter = new Redis({ host: redis.host, port: redis.port, lazyConnect: true, maxRetriesPerRequest: 1 });
  meter.on('error', () => {});
  let stopping = false;
  let sampler = null;
  const cleanup = async () => {
    if (stopping) return;
    stopping = true;
    sampler?.stop();
    killRunning();
    meter.disconnect();
    await redis.stop();
    if (!keepRuns) fs.rmSync(outDir, { recursive: true, force: true });
  };
  const onSignal = () => {
    cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const results = { started: started.toISOString(), machine: machineFacts(), rb: {}, naive: null, max: null, ramp: [] };
  try {
    await meter.connect();
    const info = await meter.info('server');
    results.machine.redis = /redis_version:(\S+)/.exec(info)?.[1];
    results.machine.redisPid = redis.nodes[0].pid;
    const { host, port } = redis;
    sampler = new MachineSampler({ redisPid: redis.nodes[0].pid, redisPort: port }).start();
    const flush = async () => {
      await meter.flushall();
      await sleep(300);
    };
    /** Runs one measurement with the machine's view of the same wall time attached. */
    const phase = async (fn) => {
      await flush();
      const from = sampler.mark();
      const out = await fn();
      await sleep(250); // one more machine sample after the child has gone
      out.machine = sampler.between(from, sampler.mark());
      return out;
    };

    // 1. redis-benchmark
    if (findExecutable('redis-benchmark')) {
      results.machine.redisBenchmark = runText('redis-benchmark', ['--version']);
      const value = benchValue(VALUE_SIZE);
      for (const [name, requests, command] of /** @type {Array<[string, number, string[]]>} [name, requests, command] */ ([
        ['SETEX', BENCH.setexRequests, ['SETEX', 'item:__rand_int__', '3', value]],
        ['ZADD', BENCH.zaddRequests, ['ZADD', 'latest-ids', '__rand_int__', 'item:__rand_int__']],
      ])) {
        note(`redis-benchmark ${name} (${requests.toLocaleString('en')} requests, -P ${BENCH.pipeline})…`);
        results.rb[name] = await phase(() =>
          redisBenchmark({ meter, host, port, requests, idSpace: ID_SPACE, pipeline: BENCH.pipeline, command }),
        );
      }
    }

    // 2. the seed's naive auto-pipelined loop
    note(`naive ioredis auto-pipelined loop (batch ${BATCH}, ${NAIVE.warmupS} s warm-up + ${NAIVE.windowS} s)…`);
    results.naive = await phase(() => naiveLoop({ host, port, idSpace: ID_SPACE, batch: BATCH, ...NAIVE }));

    // 3a. rqbench at its maximum
    note(`rqbench producer at a ${fmtK(MAX.target)} items/s target (${MAX.durationS} s, runs until its backlog is written)…`);
    results.max = await phase(() =>
      rqbenchProducer({
        host,
        port,
        q: ID_SPACE,
        periodMs: periodFor(MAX.target),
        chunks: CHUNKS,
        durationS: MAX.durationS,
        warmupS: MAX.warmupS,
        outDir,
      }),
    );

    // 3b. ramp, until RAMP_MISSES targets in a row are not held
    let misses = 0;
    for (const rate of RAMP) {
      note(`rqbench producer at ${fmtK(rate)} items/s (${RAMP_S} s)…`);
      const step = await phase(() =>
        rqbenchProducer({
          host,
          port,
          q: ID_SPACE,
          periodMs: periodFor(rate),
          chunks: CHUNKS,
          durationS: RAMP_S,
          warmupS: 1,
          outDir,
        }),
      );
      results.ramp.push(step);
      misses = isHeld(step) ? 0 : misses + 1;
      if (misses >= RAMP_MISSES) break;
    }
    results.finished = new Date().toISOString();
    results.wallS = (Date.now() - started.getTime()) / 1000;
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  report(results);
  if (jsonOut) fs.writeFileSync(jsonOut, `${JSON.stringify(results, null, 2)}\n`);
  if (keepRuns) note(`rqbench run directories kept in ${outDir}`);
}

function report(r) {
  const naiveRate = r.naive.itemsPerSec;
  const bestHeld = r.ramp.filter(isHeld).sort((x, y) => y.target - x.target)[0] ?? null;
  const ratio = (x) => (naiveRate > 0 && Number.isFinite(x) ? `${(x / naiveRate).toFixed(2)}x` : '-');
  const usPerItem = (cpuPct, rate) => (rate > 0 && Number.isFinite(cpuPct) ? (((cpuPct / 100) * 1e6) / rate).toFixed(2) : '-');
  /** CPU of everything else on the machine over the phase: all cores' busy time minus Redis minus our child. */
  const others = (x, childCpuS) =>
    x.machine ? pct(x.machine.machineBusyPct - x.machine.redisProcCpuPct - (childCpuS / x.machine.wallS) * 100) : '-';
  const backlog = (x) => (x.machine && x.machine.backlogPct !== null ? `${x.machine.backlogPct.toFixed(0)}%` : '-');

  const m = r.machine;
  log('');
  log(`# rqbench producer bench — ${r.started}`);
  log('');
  log(
    `Machine: ${m.nproc} CPUs (${m.cpuModel}), ${m.kernel}; Node ${m.node}; Redis ${m.redis}; ${m.redisBenchmark ?? 'no redis-benchmark'}.`,
  );
  log(
    `Workload: 128 B values, SETEX TTL 3 s, ids 1..${ID_SPACE.toLocaleString('en')}, ids also ZADDed to latest-ids; ` +
      `${BATCH.toLocaleString('en')} items per ZADD for the naive loop and rqbench; one fresh local standalone Redis; FLUSHALL between runs.`,
  );
  log('');
  log(
    '| phase | items/s (or req/s) | Redis CPU % | client CPU % | Redis CPU µs/item | ratio to naive loop | Redis input waiting | other processes CPU % |',
  );
  log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [name, b] of Object.entries(r.rb)) {
    log(
      `| redis-benchmark ${name} -P ${BENCH.pipeline} (req/s, 1 ${name === 'ZADD' ? 'member' : 'key'} per command) | ${fmt(b.requestsPerSec)} | ${pct(b.redisCpuPct)} | ${pct(b.clientCpuPct)} | ${usPerItem(b.redisCpuPct, b.requestsPerSec)} | ${ratio(b.requestsPerSec)} | ${backlog(b)} | ${others(b, (b.wallS * b.clientCpuPct) / 100)} |`,
    );
  }
  const n = r.naive;
  log(
    `| naive ioredis auto-pipelined loop (batch ${BATCH.toLocaleString('en')}) | ${fmt(naiveRate)} | ${pct(n.redisCpuPct)} | ${pct(n.clientCpuPct)} | ${usPerItem(n.redisCpuPct, naiveRate)} | 1.00x | ${backlog(n)} | ${others(n, n.processCpuS)} |`,
  );
  const rq = (label, x) =>
    log(
      `| ${label} | ${fmt(x.itemsPerSec)} | ${pct(x.redisCpuPct)} | ${pct(x.clientCpuPct)} (peak ${pct(x.clientCpuMaxPct)}) | ${usPerItem(x.redisCpuPct, x.itemsPerSec)} | ${ratio(x.itemsPerSec)} | ${backlog(x)} | ${others(x, x.processCpuS)} |`,
    );
  rq(`**rqbench max** (target ${fmtK(r.max.target)}/s)`, r.max);
  for (const x of r.ramp) rq(`rqbench target ${fmtK(x.target)}/s — ${isHeld(x) ? 'held' : 'not held'} (${(x.ratio * 100).toFixed(1)}%)`, x);
  log('');
  log(
    '- Client CPU (% of one core): redis-benchmark = its process over its life (cutime+cstime); naive = its process over the ' +
      'measured window (process.cpuUsage); rqbench = the writer child process, average of its seconds after warm-up (peak second in brackets).',
  );
  log('- Redis CPU (% of one core): INFO cpu deltas over the same window (rqbench: its per-second samples, cpu.master).');
  log(
    `- Redis input waiting: share of 200 ms samples (those in which Redis used >= 10% of a core) in which Redis's client sockets held unread bytes ` +
      '(rx_queue in /proc/net/tcp): high = Redis had work queued it had not got to (Redis-bound); low = Redis waited for the client.',
  );
  log(
    `- Other processes CPU: whole machine (/proc/stat, all ${m.nproc} cores) minus Redis minus the measured client process tree, over the phase; ` +
      'anything above ~0 is load that is not part of this bench competing for the same cores.',
  );
  log(
    `- rqbench max: latency from intended start p99 ${fmtMs(r.max.batchP99Ms)}, schedule lag p99 ${fmtMs(r.max.lagP99Ms)} (overloaded on purpose); ` +
      `its verdict: "${r.max.verdict}".`,
  );
  if (isHeld(r.max))
    log(`- WARNING: the max run held its ${fmtK(r.max.target)}/s target, so it is not a maximum: rerun with a higher --max-target.`);
  log(
    `- Highest ramp target held within ${Math.round((1 - HELD) * 100)}%: ${bestHeld ? `${fmtK(bestHeld.target)} items/s (achieved ${fmt(bestHeld.itemsPerSec)}, Redis ${pct(bestHeld.redisCpuPct)}%, writer ${pct(bestHeld.clientCpuPct)}%; ${ratio(bestHeld.itemsPerSec)} the naive loop)` : 'none'}.`,
  );
  log('');
  const speedup = r.max.itemsPerSec / naiveRate;
  const pass1 = speedup >= SPEEDUP_MIN;
  const busy = r.max.redisCpuPct >= REDIS_BUSY_PCT;
  const below = r.max.clientCpuMaxPct < r.max.redisCpuPct;
  const pass2 = busy && below;
  log(
    `${target(pass1, ['PASS', 'FAIL'])}  rqbench max >= ${SPEEDUP_MIN}x the naive loop: ${fmt(r.max.itemsPerSec)} / ${fmt(naiveRate)} = ${speedup.toFixed(2)}x`,
  );
  log(
    `${target(pass2, ['PASS', 'FAIL'])}  Redis is the bottleneck at rqbench max: Redis ${pct(r.max.redisCpuPct)}% of a core (${busy ? '>=' : '<'} ${REDIS_BUSY_PCT}%), ` +
      `writer peak ${pct(r.max.clientCpuMaxPct)}% (${below ? 'below' : 'not below'} Redis)`,
  );
  if (r.max.machine) {
    log(
      `      evidence: Redis had unread input in ${backlog(r.max)} of its busy samples; /proc says Redis used ${pct(r.max.machine.redisProcCpuPct)}% over the whole run; ` +
        `the machine was ${pct(r.max.machine.machineBusyPct)}% busy of ${m.nproc * 100}% (steal ${pct(r.max.machine.stealPct)}%)`,
    );
  }
  log('');
  log('Commands:');
  for (const b of Object.values(r.rb)) log(`  ${b.command.replace(/\S{100,}$/, (v) => `<${v.length} B value>`)}`);
  log(`  ${r.naive.command}`);
  log(`  ${r.max.command}`);
  for (const x of r.ramp) log(`  ${x.command}`);
  log(`Total ${r.wallS.toFixed(0)} s.`);
  log(targetsLine());
}

function machineFacts() {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  return {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? '?',
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
  };
}

function runText(file, args) {
  try {
    return String(execFileSync(file, args)).trim();
  } catch {
    return null;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fmt = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : '-');
const fmtK = (x) => (x >= 1e6 ? `${x / 1e6}M` : `${Math.round(x / 1000)}k`);
const pct = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const fmtMs = (x) => (Number.isFinite(x) ? `${Math.round(x)} ms` : '-');

main().catch((e) => {
  killRunning();
  note(`bench/producer-bench.js: ${e.message}`);
  process.exitCode = 1;
});
