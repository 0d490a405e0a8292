#!/usr/bin/env node
/**
 * `npm run bench:kv`: one key-value workload run by rqbench kv and by memtier_benchmark, side by
 * side, against the same fresh local server and the same fresh 3x1 cluster, at the same rate:
 *
 *   90 % GET / 10 % SET, Zipf 0.99 keys over 1,000,000 keys (kv:<n>), values of 128-1024 B
 *   (uniform), RATE operations a second held open-loop (memtier: --rate-limiting per connection,
 *   CONNECTIONS connections), for SECONDS seconds, REPEATS runs of each, alternating.
 *
 * For each run: operations a second answered, Redis CPU per operation (INFO cpu and INFO
 * commandstats deltas over every master: the same count for both tools, taken from the server)
 * and the client's CPU per operation (the child process and its children, from /proc/self/stat's
 * cutime + cstime once it was reaped). Printed: the medians and the ratio rqbench / memtier of each.
 * Goal: rqbench's client costs no more CPU per operation than memtier's, and Redis's CPU per
 * operation is the same within noise (the same workload, the same server work).
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
import { childrenCpuSeconds } from './lib/proc.js';
import { helpFromHeader } from './lib/help.js';

helpFromHeader(import.meta.url);

const argv = process.argv.slice(2);
const flag = (name, d) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : d);
const RATE = flag('--rate', 40_000);
const SECONDS = flag('--seconds', 8);
const REPEATS = flag('--repeats', 3);
const KEYS = 1_000_000;
const CONNECTIONS = 4;
const jsonOut = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : null;
const log = (s = '') => process.stdout.write(`${s}\n`);
const note = (s) => process.stderr.write(`${s}\n`);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** Runs a command to its end: its exit code and output. */
function run(cmd, args) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** Every master's CPU seconds and GET + SET calls, now. @param {number[]} ports */
async function serverNow(ports) {
  let cpu = 0;
  let calls = 0;
  for (const port of ports) {
    const c = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
    await c.connect();
    const info = await c.info();
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
  memtier: (port, cluster) => [
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
      '--ratio=1:9',
      '--key-pattern=Z:Z',
      '--key-zipf-exp=0.99',
      '--key-prefix=kv:',
      '--key-minimum=0',
      `--key-maximum=${KEYS - 1}`,
      '--data-size-range=128-1024',
      `--rate-limiting=${Math.round(RATE / CONNECTIONS)}`,
      `--test-time=${SECONDS}`,
      '--hide-histogram',
    ],
  ],
};

/** One run of `tool`: operations a second, Redis µs and client µs per operation. */
async function once(tool, target, out) {
  const before = await serverNow(target.masters);
  const cpu0 = childrenCpuSeconds();
  const t0 = performance.now();
  const [cmd, args] = TOOLS[tool](target.port, target.cluster, out);
  const r = await run(cmd, args);
  const wall = (performance.now() - t0) / 1000;
  const client = childrenCpuSeconds() - cpu0;
  const after = await serverNow(target.masters);
  const ops = after.calls - before.calls;
  if (r.code !== 0 || !ops) throw new Error(`${tool} exited ${r.code}: ${(r.err || r.out).trim().split('\n').slice(-3).join(' | ')}`);
  return { tool, opsPerSec: ops / wall, redisUs: ((after.cpu - before.cpu) * 1e6) / ops, clientUs: (client * 1e6) / ops, ops };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const memtier = findExecutable('memtier_benchmark');
  if (!memtier) note('memtier_benchmark is not on the PATH (docs/kv.md says how to build it): rqbench runs alone');
  const tools = memtier ? ['rqbench', 'memtier'] : ['rqbench'];
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
    try {
      const runs = [];
      for (let i = 0; i < REPEATS; i++)
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
        const ratio = (k) => (of('rqbench', k) / of('memtier', k)).toFixed(2);
        log();
        log(
          `rqbench / memtier (medians): client CPU per op x${ratio('clientUs')}, Redis CPU per op x${ratio('redisUs')}, ops/s x${ratio('opsPerSec')}`,
        );
      }
      results.push({ cluster, runs });
    } finally {
      await server.stop();
    }
  }
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify({ rate: RATE, seconds: SECONDS, repeats: REPEATS, results }, null, 2));
  fs.rmSync(out, { recursive: true, force: true });
}

main().catch((e) => {
  note(`bench:kv: ${e.message}`);
  process.exit(1);
});
