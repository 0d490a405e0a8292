#!/usr/bin/env node
/**
 * `npm run record:fixtures`: records the run directories the unit tests read back
 * (test/fixtures/runs/<fixture>/, committed), one small real run per kind of run directory, on
 * throwaway servers on 127.0.0.1 (a local Redis, a local cluster, the fauxqs SQS emulator in this
 * process), each stopped by its PID at the end. Takes about a minute; needs redis-server.
 *
 *   node scripts/record-fixtures.js                      every fixture
 *   node scripts/record-fixtures.js --only consume,load  some of them, each with its group (the
 *                                                        fixtures that share its servers or schedule)
 *   node scripts/record-fixtures.js --list               their names and what each holds
 *
 * Each fixture is recorded into a temp directory, then replaces test/fixtures/runs/<fixture>/
 * whole. The runs are genuine and nothing in them is rewritten. So that a fixture reads the same
 * from any clone, every command runs in the temp directory with relative paths (`--out
 * <fixture>`, a load's `delta.tsv`): manifest.json's `dir` and `flags.out` and a load's file name
 * are then relative to test/fixtures/runs/, and no file names the machine's temp directory (checked
 * before anything is copied). Host names, ports, times and the git sha stay as recorded.
 *
 * After recording, the golden outputs read from them are stale: `UPDATE_GOLDEN=1 npx vitest run
 * --project unit` writes them again (test/fixtures/golden/); review the diff before committing.
 * Exits 0 when every fixture was recorded, 1 when a run failed (the fixtures already there are
 * kept), 2 on a bad flag.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startRedis } from '../src/local/local-redis.js';
import { startSqs } from '../src/local/sqs-emulator.js';
import { isAlive, sleep } from '../src/local/process.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'runs');
const PROG = 'record-fixtures';

/**
 * name → what it holds, and its group: the fixtures of a group are recorded together (they share
 * servers, or a schedule), so --only records the whole group of each name it gives.
 * @type {Record<string, { group: 'redis'|'cluster'|'kv'|'queue', holds: string }>}
 */
const FIXTURE_LIST = {
  'produce-standalone': { group: 'redis', holds: 'a producer on a standalone Redis with a replica (-q 2000 -c 4, 3 s, warm-up 1 s)' },
  'produce-two-writers': {
    group: 'redis',
    holds: 'writers 1 and 2 of one run (-t 2 -a 1, -t 2 -a 2, one --run-id and --start-at): two directories to merge',
  },
  consume: { group: 'redis', holds: 'a Redis consumer reading what the two writers write, on their schedule' },
  'produce-killed': {
    group: 'redis',
    holds: 'writer 2 of a run killed (SIGKILL) 2.5 s into 5 s: no summary.json; and writer 1 of that run, finished, with --verify',
  },
  'produce-cluster-failover': { group: 'cluster', holds: 'a producer on a 3x1 cluster with a failover at second 2 (--at 2:failover)' },
  kv: {
    group: 'kv',
    holds:
      'a kv run on a 3x1 cluster of its own: YCSB B (95 % GET, 5 % SET) on zipf 1.5 keys over 1,000 (a hot shard), 2 clients, 2,000 operations/s, 3 s, warm-up 1 s, --seed 7',
  },
  'queue-publish': { group: 'queue', holds: 'two SQS publishers (pub-a, pub-b) of one queue, 20 messages/s x 10 updates for 2 s each' },
  'queue-consume': { group: 'queue', holds: 'two consumers sharing that queue, each applying a part (exit 1 alone: the rest is missing)' },
  'queue-consume-one-publisher': { group: 'queue', holds: "one consumer of one publisher's queue, until complete" },
  load: { group: 'queue', holds: 'a load run into the noop sink (reports refuse it)' },
  ops: { group: 'queue', holds: 'an ops run against SQS (reports refuse it)' },
};

const USAGE = `usage: node scripts/record-fixtures.js [--only ${Object.keys(FIXTURE_LIST).join(',')}] [--list] [--help]`;

/** Bad input: one line, exit 2. */
class UsageError extends Error {}

const note = (s) => process.stderr.write(`${s}\n`);

/** Child processes still running, ended by PID if this script is stopped. */
const children = new Set();

/** The temp directory every command runs in (main sets it): paths in the runs are relative to it. */
let cwd = '';

/**
 * `node <script> <args…>` (a script of src/) in the temp directory; resolves with its exit code
 * and what it printed.
 * @param {string[]} args the script's path relative to the project, then its arguments
 * @param {{ timeoutMs?: number, onSpawn?: (pid: number) => void }} [o]
 * @returns {Promise<{ code: number|null, signal: string|null, stdout: string, stderr: string }>}
 */
function node([script, ...args], { timeoutMs = 90_000, onSpawn } = {}) {
  return new Promise((resolve, reject) => {
    // never a password from the shell that runs this
    const child = spawn(process.execPath, [path.join(ROOT, script), ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, REDIS_PASSWORD: '' },
    });
    children.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child.pid);
      resolve({ code, signal, stdout, stderr });
    });
    onSpawn?.(/** @type {number} */ (child.pid));
  });
}

/**
 * A run that must end with one of `codes`, or the recording stops.
 * @param {string} what
 * @param {string[]} args
 * @param {number[]} [codes]
 */
async function run(what, args, codes = [0]) {
  const r = await node(args);
  if (!codes.includes(/** @type {number} */ (r.code)))
    throw new Error(`${what} ended with ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
  return r;
}

/** The PIDs of a process's children (its writer or reader processes), from /proc. */
function childrenOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const PRODUCER = 'src/producer.js';
const CONSUMER = 'src/consumer.js';
const CLI = 'src/cli.js';

/** Every Redis fixture on one standalone Redis with a replica (FLUSHALL is not needed: keys expire, ids differ by run). */
async function recordRedis() {
  const redis = await startRedis({ replicas: 1 });
  try {
    const at = ['--host', '127.0.0.1', '--port', String(redis.port)];
    note('produce-standalone');
    await run('the standalone producer', [
      PRODUCER,
      ...at,
      '-q',
      '2000',
      '-c',
      '4',
      '-d',
      '3',
      '--warmup',
      '1',
      '--ttl',
      '30',
      '--name',
      'standalone',
      '--out',
      'produce-standalone',
      '--quiet',
    ]);

    note('produce-two-writers, consume');
    // one schedule that starts once every process is surely up (a loaded 2-core machine took 5 s)
    const startAt = String(Date.now() + 8000);
    const writer = (a) =>
      run(`writer ${a}`, [
        PRODUCER,
        ...at,
        '-q',
        '2000',
        '-d',
        '2',
        '--warmup',
        '0',
        '--ttl',
        '30',
        '-t',
        '2',
        '-a',
        String(a),
        '--start-at',
        startAt,
        '--run-id',
        'two-writers',
        '--name',
        `writer-${a}`,
        '--out',
        'produce-two-writers',
        '--quiet',
      ]);
    await Promise.all([
      writer(1),
      writer(2),
      run('the consumer', [
        CONSUMER,
        ...at,
        '-d',
        '2',
        '--warmup',
        '0',
        '--ttl',
        '30',
        '--start-at',
        startAt,
        '--name',
        'reader',
        '--out',
        'consume',
        '--quiet',
      ]),
    ]);

    note('produce-killed');
    await recordKilled(at);
  } finally {
    await redis.stop();
  }
}

/** Writer 2 of a run killed mid-run from outside (SIGKILL, its writer process too); writer 1 finishes. */
async function recordKilled(at) {
  const start = Date.now() + 3000;
  const common = [
    ...at,
    '-q',
    '2000',
    '-t',
    '2',
    '-d',
    '5',
    '--warmup',
    '0',
    '--ttl',
    '120',
    '--verify',
    '--start-at',
    String(start),
    '--run-id',
    'stopped-1',
    '--out',
    'produce-killed',
    '--quiet',
  ];
  let pid = 0;
  const killed = node([PRODUCER, ...common, '-a', '2', '--name', 'writer-2'], {
    onSpawn: (p) => {
      pid = p;
    },
  });
  const finished = run('writer 1', [PRODUCER, ...common, '-a', '1', '--name', 'writer-1']);
  await sleep(start + 2500 - Date.now());
  const kids = childrenOf(pid);
  process.kill(pid, 'SIGKILL');
  const r = await killed;
  if (r.signal !== 'SIGKILL') throw new Error(`writer 2 was to be killed, and ended with ${r.code}: ${r.stderr.trim()}`);
  for (let i = 0; i < 40 && kids.some(isAlive); i++) await sleep(50);
  for (const k of kids.filter(isAlive)) process.kill(k, 'SIGKILL');
  await finished;
}

async function recordCluster() {
  const cluster = await startRedis({ cluster: true, masters: 3, replicas: 1 });
  try {
    note('produce-cluster-failover');
    await run('the cluster producer', [
      PRODUCER,
      '--host',
      '127.0.0.1',
      '--port',
      String(cluster.port),
      '--cluster',
      '-q',
      '2000',
      '-d',
      '4',
      '--warmup',
      '1',
      '--ttl',
      '30',
      '--at',
      '2:failover',
      '--name',
      'failover',
      '--out',
      'produce-cluster-failover',
      '--quiet',
    ]);
  } finally {
    await cluster.stop();
  }
}

/** The queue fixtures: consumers started first, so they read while the publishers send (several seconds of each metric). */
async function recordQueues() {
  const sqs = await startSqs();
  try {
    const q = (name) => ['--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', name, '--create'];
    const load = ['--rate', '20', '--batch-size', '10', '-d', '2'];
    note('queue-publish, queue-consume, queue-consume-one-publisher');
    // two consumers of one queue each miss what the other applied: exit 1 alone, nothing lost merged
    const consumers = [1, 2].map((n) =>
      run(
        `consumer ${n}`,
        [
          CONSUMER,
          ...q('shared'),
          '--wait-seconds',
          '1',
          '--threads',
          '2',
          '-d',
          '5',
          '--name',
          `consumer-${n}`,
          '--out',
          'queue-consume',
          '--quiet',
        ],
        [0, 1],
      ),
    );
    const alone = run('the one-publisher consumer', [
      CONSUMER,
      ...q('solo'),
      '--wait-seconds',
      '1',
      '--threads',
      '2',
      '--until-complete',
      '-d',
      '20',
      '--name',
      'consumer',
      '--out',
      'queue-consume-one-publisher',
      '--quiet',
    ]);
    await sleep(1500);
    await Promise.all([
      ...['pub-a', 'pub-b'].map((id) =>
        run(id, [PRODUCER, ...q('shared'), '--publisher-id', id, ...load, '--name', id, '--out', 'queue-publish', '--quiet']),
      ),
      // its publisher's own run is not a fixture: queue-publish has two
      run('pub-c', [PRODUCER, ...q('solo'), '--publisher-id', 'pub-c', ...load, '--out', 'scratch', '--quiet']),
    ]);
    await Promise.all([...consumers, alone]);

    note('load, ops');
    const file = path.join('scratch', 'delta.tsv');
    await run('load --generate', [CLI, 'load', '--generate', file, '--records', '1000', '--record-size', '64', '--quiet']);
    await run('load', [
      CLI,
      'load',
      file,
      '--sink',
      'noop',
      '--reader-threads',
      '1',
      '--connections',
      '1',
      '--name',
      'noop',
      '--out',
      'load',
      '--quiet',
    ]);
    await run('ops', [
      CLI,
      'ops',
      '--only',
      'sqs',
      '--endpoint',
      sqs.endpoint,
      '--warmup',
      '0',
      '-d',
      '1',
      '--name',
      'sqs',
      '--out',
      'ops',
      '--quiet',
    ]);
  } finally {
    await sqs.stop();
  }
}

/** The kv fixture, on a cluster of its own: recording it leaves the cluster producer's as it is. */
async function recordKv() {
  const cluster = await startRedis({ cluster: true, masters: 3, replicas: 1 });
  try {
    note('kv');
    await run('the kv run', [
      CLI,
      'kv',
      '--host',
      '127.0.0.1',
      '--port',
      String(cluster.port),
      '--cluster',
      '--preset',
      'ycsb-b',
      '--key-dist',
      'zipf:1.5',
      '--keys',
      '1000',
      '--rate',
      '2000',
      '-t',
      '2',
      '-d',
      '3',
      '--warmup',
      '1',
      '--seed',
      '7',
      '--name',
      'ycsb-b',
      '--out',
      'kv',
      '--quiet',
    ]);
  } finally {
    await cluster.stop();
  }
}

const GROUPS = { redis: recordRedis, cluster: recordCluster, kv: recordKv, queue: recordQueues };

/**
 * Refuses a fixture in which a file names the temp directory it was recorded in: it would not
 * read the same from another clone.
 * @param {string} dir the fixture, under `tmp`
 * @param {string} tmp
 */
function checkRelative(dir, tmp) {
  for (const rel of fs.readdirSync(dir, { recursive: true }).map(String)) {
    const file = path.join(dir, rel);
    if (fs.statSync(file).isFile() && fs.readFileSync(file, 'utf8').includes(tmp))
      throw new Error(`${path.relative(tmp, file)} names the directory it was recorded in (${tmp})`);
  }
}

/** Bytes under a directory. */
function sizeOf(dir) {
  return fs
    .readdirSync(dir, { recursive: true })
    .map((f) => fs.statSync(path.join(dir, String(f))))
    .filter((s) => s.isFile())
    .reduce((n, s) => n + s.size, 0);
}

/** @param {string[]} argv */
function parse(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { only: { type: 'string' }, list: { type: 'boolean' }, help: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError(`${String(/** @type {Error} */ (e).message).split('\n')[0]} (${USAGE})`);
  }
  const only = values.only === undefined ? Object.keys(FIXTURE_LIST) : values.only.split(',').filter(Boolean);
  const unknown = only.find((n) => !FIXTURE_LIST[n]);
  if (unknown !== undefined || !only.length)
    throw new UsageError(`--only must name fixtures among ${Object.keys(FIXTURE_LIST).join(', ')} (got ${JSON.stringify(values.only)})`);
  return { only, list: !!values.list, help: !!values.help };
}

async function main() {
  const o = parse(process.argv.slice(2));
  if (o.help) {
    const src = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8');
    const header = /\/\*\*\n([\s\S]*?)\*\//.exec(src)?.[1] ?? '';
    process.stdout.write(`${header.replace(/^ \* ?/gm, '').trimEnd()}\n\n${USAGE}\n`);
    return 0;
  }
  if (o.list) {
    for (const [name, f] of Object.entries(FIXTURE_LIST)) process.stdout.write(`${name} (group ${f.group}): ${f.holds}\n`);
    return 0;
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-fixtures-'));
  cwd = tmp;
  try {
    // a group records all its fixtures at once (they share servers, or a schedule)
    const groups = [...new Set(o.only.map((n) => FIXTURE_LIST[n].group))];
    for (const g of groups) await GROUPS[g]();
    const recorded = Object.keys(FIXTURE_LIST).filter((n) => groups.includes(FIXTURE_LIST[n].group));
    for (const name of recorded) checkRelative(path.join(tmp, name), tmp);
    fs.mkdirSync(FIXTURES, { recursive: true });
    for (const name of recorded) {
      fs.rmSync(path.join(FIXTURES, name), { recursive: true, force: true });
      fs.cpSync(path.join(tmp, name), path.join(FIXTURES, name), { recursive: true });
      process.stdout.write(`${path.relative(ROOT, path.join(FIXTURES, name))}: ${(sizeOf(path.join(tmp, name)) / 1024).toFixed(1)} KiB\n`);
    }
    process.stdout.write('the golden outputs may now be stale: UPDATE_GOLDEN=1 npx vitest run --project unit, then review the diff\n');
    return 0;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

// a Ctrl-C ends the runs started here, by PID; the servers stop with this process (local-redis.js' exit hook)
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(sig, () => {
    for (const pid of children) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    process.exit(sig === 'SIGINT' ? 130 : 143);
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`${PROG}: ${String(e?.message ?? e).split('\n')[0]}\n`);
    process.exitCode = e instanceof UsageError ? 2 : 1;
  },
);
