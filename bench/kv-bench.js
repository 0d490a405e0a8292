#!/usr/bin/env node
/**
 * `npm run bench:kv`: one key-value workload run by rqbench kv and by memtier_benchmark, side by
 * side, against the same fresh local server and the same fresh 3x1 cluster, at the same rate:
 *
 *   90 % GET / 10 % SET, Zipf 0.99 keys over 1,000,000 keys (kv:<n>), values of 128-1024 B
 *   (uniform), RATE operations a second held open-loop (memtier: --rate-limiting per connection,
 *   CONNECTIONS connections, one per master each with --cluster-mode), for SECONDS seconds,
 *   REPEATS runs of each, in a different order each round.
 *
 * A lean Node client (bench/lib/lean-kv.js: no object, string or array per operation, replies
 * scanned in place) runs the same workload on the standalone server: the floor of an open-loop
 * Node client on this machine, against which rqbench's own cost and memtier's are read.
 *
 * rqbench runs twice too: as it is (every operation due written at once) and with --pipeline 1
 * from 4 client processes (one operation a round trip on each of 4 connections, as memtier -P 1's).
 *
 * memtier runs twice: with its default --pipeline 1 (every request a round trip of its own, as many
 * unpipelined application clients send them) and with --pipeline 16 (near what rqbench kv does: it
 * writes every operation due at one moment to a node in one write, and Redis reads them in one go).
 * Redis's work per operation depends on that more than on anything else here.
 *
 * For each run, over its steady window (every 500 ms the client's process tree and the server are
 * read; the window runs from the first reading at which the server counts calls at half the rate
 * or more to the last, one reading off each end, so that neither tool's start-up nor its end is
 * counted): operations a second answered, Redis CPU per operation (INFO cpu and commandstats
 * deltas over every master: one count for both tools, taken from the server) and the client's CPU
 * per operation (the tool's process and every descendant, from /proc/<pid>/stat). Printed: the
 * medians and the ratio rqbench / memtier of each.
 * Goal: rqbench's client costs no more CPU per operation than memtier's, and Redis's CPU per
 * operation is the same within noise (the same workload, the same server work): each printed as
 * met / NOT met against memtier -P 16 on each target, then how many were missed; exit 1 when one
 * was, or when memtier_benchmark is not there to measure against.
 *
 * memtier_benchmark is not a Debian package: docs/kv.md says how to build it. Without it on the
 * PATH, the bench says so and runs rqbench alone.
 *
 * Flags: --rate N (default 40000), --seconds N (default 8), --repeats N (default 3),
 *        --standalone-only, --json FILE (the raw figures).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { startRedis, findExecutable } from '../src/local/local-redis.js';
import { CLK_TCK } from './lib/proc.js';
import { helpFromHeader } from './lib/help.js';

helpFromHeader(import.meta.url);

const argv = process.argv.slice(2);
const flag = (name, d) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : d);
const RATE = flag('--rate', 40_000);
const SECONDS = flag('--seconds', 8);
const REPEATS = flag('--repeats', 3);
const KEYS = 1_000_000;
const CONNECTIONS = 4;
/** How often a run's client and server CPU and the server's calls are read. */
const SAMPLE_MS = 500;
const jsonOut = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : null;
const log = (s = '') => process.stdout.write(`${s}\n`);
const note = (s) => process.stderr.write(`${s}\n`);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/**
 * Runs a command to its end, sampling every SAMPLE_MS its process tree's CPU seconds and the
 * server's CPU and calls: its exit code, output and samples.
 * @param {string} cmd @param {string[]} args @param {number[]} masters
 */
function run(cmd, args, masters) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    /** @type {Array<{ at: number, client: number, cpu: number, calls: number }>} */
    const samples = [];
    let busy = false;
    const timer = setInterval(async () => {
      if (busy) return;
      busy = true;
      const client = treeCpuSeconds(/** @type {number} */ (child.pid));
      const server = await serverNow(masters).catch(() => null);
      if (server) samples.push({ at: performance.now(), client, ...server });
      busy = false;
    }, SAMPLE_MS);
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({ code, out, err, samples });
    });
  });
}

/** CPU seconds (user + system) of a process and every live descendant, from /proc. @param {number} root */
function treeCpuSeconds(root) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  /** @type {Map<number, number>} */
  const cpu = new Map();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pid = Number(e);
      const ppid = Number(f[1]);
      cpu.set(pid, (Number(f[11]) + Number(f[12])) / CLK_TCK);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // gone meanwhile
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length) {
    const pid = /** @type {number} */ (stack.pop());
    total += cpu.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Every master's CPU seconds and GET + SET calls, now. @param {number[]} ports */
async function serverNow(ports) {
  let cpu = 0;
  let calls = 0;
  for (const port of ports) {
    const c = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
    await c.connect();
    const info = `${await c.info('cpu')}\n${await c.info('commandstats')}`;
    c.disconnect();
    const num = (re) => Number(re.exec(info)?.[1] ?? 0);
    cpu += num(/^used_cpu_user:([\d.]+)/m) + num(/^used_cpu_sys:([\d.]+)/m);
    calls += num(/^cmdstat_get:calls=(\d+)/m) + num(/^cmdstat_set:calls=(\d+)/m);
  }
  return { cpu, calls };
}

/** The two tools' command lines for one run against `port`. */
const TOOLS = {
  rqbench: (port, cluster, out) => [
    process.execPath,
    [
      'src/cli.js',
      'kv',
      '--port',
      String(port),
      ...(cluster ? ['--cluster'] : []),
      '--mix',
      'get:90,set:10',
      '--key-dist',
      'zipf:0.99',
      '--keys',
      String(KEYS),
      '--key-pattern',
      'kv:{n}',
      '--sizes',
      '128-1024',
      '--rate',
      String(RATE),
      '-d',
      String(SECONDS),
      '--warmup',
      '0',
      '--out',
      out,
      '--quiet',
    ],
  ],
  // one operation a round trip, from 4 client processes: memtier -P 1's 4 connections (one per master each on a cluster)
  'rqbench -P 1': (port, cluster, out) => {
    const [cmd, args] = TOOLS.rqbench(port, cluster, out);
    return [cmd, [...args, '--pipeline', '1', '-t', String(CONNECTIONS)]];
  },
  // the floor of an open-loop Node client: bench/lib/lean-kv.js (standalone only)
  'lean Node client': (port) => [process.execPath, ['bench/lib/lean-kv.js', String(port), String(RATE), String(SECONDS), String(KEYS)]],
  'memtier -P 1': (port, cluster, _out, masters) => memtierArgs(port, cluster, masters, 1),
  'memtier -P 16': (port, cluster, _out, masters) => memtierArgs(port, cluster, masters, 16),
};

/**
 * memtier_benchmark's command line: `pipeline` requests a connection may have outstanding (its
 * default, 1, is every request a round trip of its own; rqbench writes what is due at one moment
 * to a node in one write, which Redis reads in one go: 16 is near what that gives at this rate).
 * Its --rate-limiting is per connection, and with --cluster-mode a client has one per master.
 * @param {number} port @param {boolean} cluster @param {number} masters @param {number} pipeline
 * @returns {[string, string[]]}
 */
function memtierArgs(port, cluster, masters, pipeline) {
  return [
    'memtier_benchmark',
    [
      '-s',
      '127.0.0.1',
      '-p',
      String(port),
      ...(cluster ? ['--cluster-mode'] : []),
      '--protocol=redis',
      '-t',
      '1',
      '-c',
      String(CONNECTIONS),
      `--pipeline=${pipeline}`,
      '--ratio=1:9',
      '--key-pattern=Z:Z',
      '--key-zipf-exp=0.99',
      '--key-prefix=kv:',
      // memtier's keys start at 1: kv:1 … kv:N, the same number of keys, its Zipf ranks from the first
      '--key-minimum=1',
      `--key-maximum=${KEYS}`,
      '--data-size-range=128-1024',
      `--rate-limiting=${Math.round(RATE / (CONNECTIONS * (cluster ? masters : 1)))}`,
      `--test-time=${SECONDS}`,
      '--hide-histogram',
    ],
  ];
}

/**
 * One run of `tool`, measured over its steady window: from the first sample at which the server
 * counts calls at half the rate or more to the last, one sample off each end (each tool's start-up
 * and end are its own, not the workload's): operations a second, Redis µs and client µs per operation.
 */
async function once(tool, target, out) {
  const [cmd, args] = TOOLS[tool](target.port, target.cluster, out, target.masters.length);
  const r = await run(cmd, args, target.masters);
  if (r.code !== 0) throw new Error(`${tool} exited ${r.code}: ${(r.err || r.out).trim().split('\n').slice(-3).join(' | ')}`);
  const s = r.samples;
  const rateAt = (i) => ((s[i].calls - s[i - 1].calls) * 1000) / (s[i].at - s[i - 1].at);
  const busy = s.map((_, i) => i > 0 && rateAt(i) >= RATE / 2);
  const first = busy.indexOf(true) + 1;
  const last = busy.lastIndexOf(true) - 1;
  if (first < 1 || last - first < 4) throw new Error(`${tool}: no steady window of 2 s or more in ${s.length} samples`);
  const [a, b] = [s[first], s[last]];
  const ops = b.calls - a.calls;
  return {
    tool,
    opsPerSec: (ops * 1000) / (b.at - a.at),
    redisUs: ((b.cpu - a.cpu) * 1e6) / ops,
    clientUs: ((b.client - a.client) * 1e6) / ops,
    ops,
    windowS: (b.at - a.at) / 1000,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Redis's CPU per operation moves this much between identical runs here (run 1's per-run figures
 * spread 1.02–1.24 µs standalone and 2.00–3.10 µs on the cluster): within it, the same work.
 */
const REDIS_NOISE = 0.15;
/** Targets missed, over both targets: the exit code is 1 when any was. */
let missed = 0;

async function main() {
  const memtier = findExecutable('memtier_benchmark');
  if (!memtier) note('memtier_benchmark is not on the PATH (docs/kv.md says how to build it): rqbench runs alone');
  const all = memtier
    ? ['rqbench', 'rqbench -P 1', 'lean Node client', 'memtier -P 1', 'memtier -P 16']
    : ['rqbench', 'rqbench -P 1', 'lean Node client'];
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-kv-bench-'));
  const shapes = argv.includes('--standalone-only') ? [false] : [false, true];
  const results = [];
  log(
    `# bench:kv — 90 % GET / 10 % SET, Zipf 0.99 over ${KEYS.toLocaleString('en')} keys, 128-1024 B values, ${RATE.toLocaleString('en')} ops/s, ${SECONDS} s x ${REPEATS}`,
  );
  for (const cluster of shapes) {
    note(`starting a local ${cluster ? '3x1 cluster' : 'standalone Redis'}…`);
    const server = await startRedis(cluster ? { cluster: true, masters: 3, replicas: 1 } : {});
    const target = { port: server.port, cluster, masters: server.nodes.filter((n) => n.role === 'master').map((n) => n.port) };
    // the lean client speaks to one node: it has no slot routing
    const tools = cluster ? all.filter((t) => t !== 'lean Node client') : all;
    try {
      const runs = [];
      for (let i = 0; i < REPEATS; i++)
        // each round in another order: a tool is not always the one that runs after another
        for (const tool of i % 2 ? [...tools].reverse() : tools) {
          const r = await once(tool, target, out);
          note(
            `${cluster ? 'cluster' : 'standalone'} ${tool} run ${i + 1}: ${Math.round(r.opsPerSec)} ops/s, Redis ${r.redisUs.toFixed(2)} µs/op, client ${r.clientUs.toFixed(2)} µs/op`,
          );
          runs.push(r);
        }
      const of = (tool, k) => median(runs.filter((r) => r.tool === tool).map((r) => r[k]));
      log();
      log(`## ${cluster ? '3x1 cluster (--cluster / --cluster-mode)' : 'standalone'}`);
      log();
      log('| tool | ops/s answered | Redis CPU µs per op | client CPU µs per op |');
      log('| --- | ---: | ---: | ---: |');
      for (const tool of tools)
        log(
          `| ${tool} | ${Math.round(of(tool, 'opsPerSec')).toLocaleString('en')} | ${of(tool, 'redisUs').toFixed(2)} | ${of(tool, 'clientUs').toFixed(2)} |`,
        );
      if (memtier) {
        log();
        for (const m of tools.filter((t) => t.startsWith('memtier'))) {
          // each rqbench against the memtier of its pipelining
          const mine = m === 'memtier -P 1' ? 'rqbench -P 1' : 'rqbench';
          const ratio = (k) => (of(mine, k) / of(m, k)).toFixed(2);
          log(
            `${mine} / ${m} (medians): client CPU per op x${ratio('clientUs')}, Redis CPU per op x${ratio('redisUs')}, ops/s x${ratio('opsPerSec')}`,
          );
          if (tools.includes('lean Node client'))
            log(
              `lean Node client / ${m} (medians): client CPU per op x${(of('lean Node client', 'clientUs') / of(m, 'clientUs')).toFixed(2)}`,
            );
        }
        // the targets, at the same pipelining as memtier -P 16: the client no costlier, Redis's work the same within noise
        const client = of('rqbench', 'clientUs') / of('memtier -P 16', 'clientUs');
        const redis = of('rqbench', 'redisUs') / of('memtier -P 16', 'redisUs');
        const clientMet = client <= 1;
        const redisMet = Math.abs(redis - 1) <= REDIS_NOISE;
        log();
        log(`target: rqbench's client CPU per op at most memtier -P 16's: x${client.toFixed(2)} — ${clientMet ? 'met' : 'NOT met'}`);
        log(
          `target: Redis's CPU per op within ±${REDIS_NOISE * 100}% of memtier -P 16's (the same work): x${redis.toFixed(2)} — ${redisMet ? 'met' : 'NOT met'}`,
        );
        missed += (clientMet ? 0 : 1) + (redisMet ? 0 : 1);
      }
      results.push({ cluster, runs });
    } finally {
      await server.stop();
    }
  }
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ rate: RATE, seconds: SECONDS, repeats: REPEATS, results }, null, 2));
  fs.rmSync(out, { recursive: true, force: true });
  log();
  log(memtier ? `${missed} target(s) missed` : 'no target measured: memtier_benchmark is not on the PATH');
  process.exitCode = missed || !memtier ? 1 : 0;
}

main().catch((e) => {
  note(`bench:kv: ${e.message}`);
  process.exit(1);
});
