#!/usr/bin/env node
/**
 * `npm run bench:load`: `rqbench load` (seed 001) against redis-benchmark on one local standalone
 * Redis, in interleaved repeats.
 *
 *   1. two delta files of 4,000,000 records x 512 B (generated once into the temp dir, reused when
 *      a file of the right size is there): keys key:000000000000 … (`--key-pattern key:{n:12}`),
 *      redis-benchmark's own key shape, and the seed's delta:0 … (the SET test below is run on both)
 *   2. --repeats times (default 5), each in a rotated order so no test always runs first or last:
 *        rb SET     redis-benchmark -t set, pipelined (-P 64 -c 16), the file's value size
 *        SET        rqbench load --command set (a SET per record)
 *        SET seed keys  the same, on the file with the seed's shorter keys (delta:{n})
 *        rb MSET    redis-benchmark -t mset (10 keys per MSET), the same records in all
 *        MSET       rqbench load --command mset (an MSET per --batch records)
 *        SETEX      rqbench load --command set --ttl 3600
 *        EVAL       rqbench load --command eval --ttl 3600 (an EVALSHA per --batch records)
 *        noop       rqbench load --sink noop (read and parse alone)
 *        floor      DEBUG POPULATE of as many keys with values of the same size: Redis inserting
 *                   the records with no command to read at all, the floor of its CPU per record
 *      each against a Redis server of its own, started for it (a server that has held and freed
 *      millions of keys runs the next load slower than a fresh one: every test starts alike),
 *      with Redis's CPU per record (INFO cpu across the test), the share of the load Redis was busy
 *      and the client's CPU (its process tree's) beside its rate. Redis runs on CPU 0 and each
 *      client on the others (taskset), as on separate hosts: a client's threads never take
 *      Redis's core (--no-pin leaves both to the scheduler)
 *   3. every repeat's ratios, then their median and its distribution-free interval (with 5
 *      repeats their min–max, a 93.75% interval):
 *        SET / rb SET   target >= 1.0 in every repeat
 *        MSET / SET     target >= 1.5 in every repeat
 *        EVAL / SETEX   shown (the TTL-keeping batched form)
 *        SET / floor    shown: Redis's CPU per record under SET over its floor, the most any
 *                       batched command could gain over SET on this Redis and record size
 *        MSET / floor   shown: the same for MSET, what its commands cost Redis above the insert
 *        noop           target >= 1,000,000 records/s (median)
 *
 * redis-benchmark's keys are drawn from 2^31 - 1 (`-r`), so that, like the file's, they are all
 * different (about 0.1% repeat among 4M): with `-r` equal to the record count a third of its SETs
 * would overwrite a key instead of adding one, and Redis would do less work per command than a load.
 * And the file's keys are as long as redis-benchmark's (16 bytes): with the seed's shorter keys the
 * same SET costs Redis more CPU (the "SET seed keys" row says how much; the profile in
 * bench/RESULTS.md puts the difference in cache misses on the keys beside the hash-table entries).
 *
 * Exits 1 when a target is missed or it could not measure, 0 when every target was met.
 * Flags: --records N (4,000,000), --repeats N (5), --threads N (reader threads, 1),
 * --connections N (8), --batch N (records per MSET/EVALSHA, 1000), --file PATH, --json FILE, --no-pin.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startRedis, findExecutable } from '../src/local/local-redis.js';
import { valueLength } from '../src/workloads/bulk-load/delta-file.js';
import { killRunning, runMeasured } from './lib/proc.js';
import { commandLine, shellQuote } from './lib/phases.js';
import { redisCpuSample } from './lib/redis-cpu.js';
import { helpFromHeader } from './lib/help.js';
import { target, targetsLine } from './lib/targets.js';
import { describe } from '../src/stats/describe.js';
import { loadTests, rotated, spreadLine, testTable } from './lib/load-tests.js';

helpFromHeader(import.meta.url);

const ROOT = new URL('..', import.meta.url).pathname;
const CLI = 'src/cli.js';
const argv = process.argv.slice(2);
const flag = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const RECORDS = Number(flag('--records', 4_000_000));
const REPEATS = Number(flag('--repeats', 5));
const THREADS = Number(flag('--threads', 1));
const CONNECTIONS = Number(flag('--connections', 8));
const BATCH = Number(flag('--batch', 1000));
const RECORD_SIZE = 512;
const KEY_PATTERN = 'key:{n:12}';
const SEED_PATTERN = 'delta:{n}';
const FILE = flag('--file', path.join(os.tmpdir(), `rqbench-delta-key12-${RECORDS}x${RECORD_SIZE}.tsv`));
const SEED_FILE = path.join(os.tmpdir(), `rqbench-delta-${RECORDS}x${RECORD_SIZE}.tsv`);
const JSON_OUT = flag('--json', null);
const TTL = 3600;
/** Where each test's Redis port goes in its command line (a server of its own per test). */
const PORT = '<port>';
const BENCH = { pipeline: 64, clients: 16, keySpace: 2 ** 31 - 1 };
/** Redis on CPU 0, the clients on the rest: where there are two CPUs or more and taskset. */
const PIN = !argv.includes('--no-pin') && os.cpus().length >= 2 && Boolean(findExecutable('taskset'));
const CLIENT_CPUS = os.cpus().length > 2 ? `1-${os.cpus().length - 1}` : '1';
const TARGETS = { setVsBenchmark: 1.0, msetVsSet: 1.5, noop: 1_000_000 };

const log = (s = '') => process.stdout.write(`${s}\n`);
const note = (s) => process.stderr.write(`${s}\n`);

async function main() {
  if (!findExecutable('redis-benchmark')) throw new Error('redis-benchmark not found on PATH');
  for (const [name, v] of Object.entries({
    '--records': RECORDS,
    '--repeats': REPEATS,
    '--threads': THREADS,
    '--connections': CONNECTIONS,
    '--batch': BATCH,
  })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  }
  for (const [file, pattern] of [
    [FILE, KEY_PATTERN],
    [SEED_FILE, SEED_PATTERN],
  ]) {
    const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
    if (size === RECORDS * RECORD_SIZE) continue;
    note(`generating ${file}…`);
    const g = await runMeasured(
      process.execPath,
      [
        CLI,
        'load',
        '--generate',
        file,
        '--records',
        String(RECORDS),
        '--record-size',
        String(RECORD_SIZE),
        '--key-pattern',
        pattern,
        '--json',
        '--quiet',
      ],
      { cwd: ROOT, timeoutMs: 10 * 60_000 },
    );
    if (g.code !== 0) throw new Error(`--generate failed: ${g.stderr.trim()}`);
  }
  const runs = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-bench-load-'));
  const started = Date.now();
  /** @type {Awaited<ReturnType<typeof startRedis>>|null} */
  let redis = null;
  /** @type {Redis|null} */
  let meter = null;
  const stopRedis = async () => {
    meter?.disconnect();
    await redis?.stop();
    meter = null;
    redis = null;
  };
  let version = '?';
  try {
    // the file's values are 512 - len("key:<12 digits>") - 2 = 494 bytes
    const vsize = valueLength(KEY_PATTERN, RECORDS - 1, RECORD_SIZE);
    const tests = loadTests({
      cli: CLI,
      file: FILE,
      seedFile: SEED_FILE,
      port: PORT,
      host: '127.0.0.1',
      records: RECORDS,
      vsize,
      threads: THREADS,
      connections: CONNECTIONS,
      batch: BATCH,
      ttl: TTL,
      bench: BENCH,
      out: runs,
    });
    /** @type {import('./lib/load-tests.js').Measured[][]} */
    const repeats = [];
    for (let r = 0; r < REPEATS; r++) {
      const row = {};
      for (const t of rotated(tests, r)) {
        note(`repeat ${r + 1}/${REPEATS}: ${t.name}…`);
        redis = await startRedis();
        if (PIN) pin(redis.nodes[0].pid);
        meter = new Redis({ host: redis.host, port: redis.port, maxRetriesPerRequest: 1 });
        version = (await meter.info('server')).match(/redis_version:(\S+)/)?.[1] ?? '?';
        const before = await redisCpuSample(meter);
        const port = String(redis.port);
        const args = t.args.map((x) => (x === PORT ? port : x));
        const m = await runMeasured(PIN ? 'taskset' : t.bin, PIN ? ['-c', CLIENT_CPUS, t.bin, ...args] : args, {
          cwd: ROOT,
          timeoutMs: 20 * 60_000,
        });
        const after = await redisCpuSample(meter);
        await stopRedis();
        row[t.name] = t.read(m, { redisCpuS: after.used - before.used });
      }
      repeats.push(tests.map((t) => row[t.name]));
    }
    const wallS = (Date.now() - started) / 1000;
    const ratios = repeats.map((row) => {
      const at = Object.fromEntries(row.map((x) => [x.name, x]));
      return {
        setVsBenchmark: at.SET.recordsPerSec / at['rb SET'].recordsPerSec,
        msetVsSet: at.MSET.recordsPerSec / at.SET.recordsPerSec,
        msetVsBenchmark: at.MSET.recordsPerSec / at['rb MSET'].recordsPerSec,
        evalVsSetex: at.EVAL.recordsPerSec / at.SETEX.recordsPerSec,
        seedKeysVsSet: at['SET seed keys'].recordsPerSec / at.SET.recordsPerSec,
        setOverFloor: at.SET.redisUsPerRecord / at.floor.redisUsPerRecord,
        msetOverFloor: at.MSET.redisUsPerRecord / at.floor.redisUsPerRecord,
      };
    });
    const noopRates = repeats.map((row) => row.find((x) => x.name === 'noop').recordsPerSec);
    const shown = (c) => c.replace(shellQuote(runs), '<tmpdir>').replaceAll(`'${PORT}'`, PORT);

    log('## rqbench load against redis-benchmark (seed 001)');
    log();
    log(
      `${os.cpus().length} CPUs (${os.cpus()[0]?.model}), Node ${process.version}, Redis ${version}; ${RECORDS.toLocaleString('en-US')} records x ${RECORD_SIZE} B in ${FILE} (and ${SEED_FILE}); ${REPEATS} repeats, interleaved, ${Math.round(wallS)} s.`,
    );
    log();
    log(
      PIN
        ? `Redis on CPU 0 (\`taskset -a -cp 0 <pid>\`), each client on CPU ${CLIENT_CPUS} (\`taskset -c ${CLIENT_CPUS} …\`).`
        : 'Redis and the clients where the scheduler puts them (not pinned).',
    );
    log();
    for (const t of tests) log(`- ${t.name}: \`${shown(commandLine(t.bin === process.execPath ? 'node' : t.bin, t.args))}\``);
    log();
    repeats.forEach((row, i) => {
      log(
        `### Repeat ${i + 1} (order: ${rotated(tests, i)
          .map((t) => t.name)
          .join(', ')})`,
      );
      log();
      log(testTable(row));
      log();
    });
    log('### Ratios');
    log();
    log('| repeat | SET / rb SET | MSET / SET | MSET / rb MSET | EVAL / SETEX | SET seed keys / SET | SET / floor (Redis CPU) |');
    log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    ratios.forEach((q, i) =>
      log(
        `| ${i + 1} | ${q.setVsBenchmark.toFixed(2)}x | ${q.msetVsSet.toFixed(2)}x | ${q.msetVsBenchmark.toFixed(2)}x | ${q.evalVsSetex.toFixed(2)}x | ${q.seedKeysVsSet.toFixed(2)}x | ${q.setOverFloor.toFixed(2)}x |`,
      ),
    );
    log();
    const each = (k) => ratios.map((q) => q[k]);
    log(
      `- SET / rb SET: ${spreadLine(each('setVsBenchmark'))}: target >= ${TARGETS.setVsBenchmark.toFixed(1)}x in every repeat — ${target(each('setVsBenchmark').every((v) => v >= TARGETS.setVsBenchmark))}`,
    );
    log(
      `- MSET / SET: ${spreadLine(each('msetVsSet'))}: target >= ${TARGETS.msetVsSet.toFixed(1)}x in every repeat — ${target(each('msetVsSet').every((v) => v >= TARGETS.msetVsSet))}`,
    );
    log(`- MSET / rb MSET: ${spreadLine(each('msetVsBenchmark'))}`);
    log(`- EVAL / SETEX: ${spreadLine(each('evalVsSetex'))}`);
    log(`- SET seed keys / SET: ${spreadLine(each('seedKeysVsSet'))}`);
    log(`- SET / floor, Redis's CPU per record (the most a batched command could gain over SET here): ${spreadLine(each('setOverFloor'))}`);
    log(
      `- MSET / floor, Redis's CPU per record (what reading the records off the wire adds to the insert): ${spreadLine(each('msetOverFloor'))}`,
    );
    const noopMedian = describe(noopRates).median ?? 0;
    log(
      `- noop: median ${Math.round(noopMedian).toLocaleString('en-US')} records/s: target ${TARGETS.noop.toLocaleString('en-US')} — ${target(noopMedian >= TARGETS.noop)}`,
    );
    log();
    log(targetsLine());
    if (JSON_OUT) fs.writeFileSync(JSON_OUT, `${JSON.stringify({ records: RECORDS, repeats, ratios, wallS }, null, 2)}\n`);
  } finally {
    await stopRedis();
    fs.rmSync(runs, { recursive: true, force: true });
  }
}

/**
 * Redis (every thread of it) on CPU 0.
 * @param {number} pid
 */
function pin(pid) {
  const r = spawnSync('taskset', ['-a', '-cp', '0', String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`taskset -a -cp 0 ${pid}: ${(r.stderr || r.stdout).trim()}`);
}

process.once('SIGINT', () => {
  killRunning();
  process.exit(130);
});
main().catch((e) => {
  killRunning();
  note(`bench:load: ${e.message}`);
  process.exitCode = 1;
});
