// rqbench kv against real servers (issue 39, point 1): every YCSB preset on a standalone node, and
// a 3x1 cluster under uniform and Zipf keys. Each summary names every node's share of the
// operations beside its CPU; the shares add up to what was sent; Zipf's hot shard is named and
// uniform keys name none; --read-from replica sends the reads to the replicas, as INFO
// commandstats on every node says (not the summary). Real redis-server processes on 127.0.0.1.
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { YCSB } from '../../src/workloads/kv/kv-ops.js';
import { zipfProbabilities } from '../../src/workloads/kv/zipf.js';
import { keySlot } from '../../src/transports/slot.js';
import { CLI, describeRun, readRun, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let standalone;
/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let cluster;

beforeAll(async () => {
  [standalone, cluster] = await Promise.all([startRedis(), startRedis({ cluster: true, masters: 3, replicas: 1 })]);
}, 60_000);

afterAll(async () => {
  await Promise.all([standalone?.stop(), cluster?.stop()]);
  removeTempDirs();
});

/**
 * `rqbench kv` with --json: its exit code, summary.json and run directory.
 * @param {string[]} args
 * @param {string} [out] the directory it writes its run directory into (default: a new temp one)
 */
async function kv(args, out = tempDir('rqbench-kv-')) {
  const r = await runNode([CLI, 'kv', ...args, '--out', out, '--json', '--quiet'], { timeoutMs: 60_000 });
  return { ...r, ...readRun(out, r.stdout) };
}

/**
 * Waits until a run directory under `out` has recorded its first second (timeline.csv's first row).
 * @param {string} out
 */
async function firstSecond(out) {
  for (let waited = 0; waited < 15_000; waited += 50) {
    const dir = fs.existsSync(out) ? fs.readdirSync(out).find((d) => fs.existsSync(path.join(out, d, 'timeline.csv'))) : undefined;
    if (
      dir &&
      fs
        .readFileSync(path.join(out, dir, 'timeline.csv'), 'utf8')
        .trim()
        .split('\n').length >= 2
    )
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no second recorded under ${out} in 15 s`);
}

/** A command's calls on a node since its stats were reset (INFO commandstats). @param {number} port @param {string} cmd */
async function calls(port, cmd) {
  const c = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
  try {
    await c.connect();
    return Number(new RegExp(`^cmdstat_${cmd}:calls=(\\d+)`, 'm').exec(await c.info('commandstats'))?.[1] ?? 0);
  } finally {
    c.disconnect();
  }
}

/** Zeroes a node's command counts. @param {number} port */
async function resetStats(port) {
  const c = new Redis({ host: '127.0.0.1', port, lazyConnect: true });
  try {
    await c.connect();
    await c.config('RESETSTAT');
  } finally {
    c.disconnect();
  }
}

describe('on a standalone node', () => {
  it('every YCSB preset, A to F: each operation of its mix answered, none failed, the one node with every operation', async () => {
    const presets = Object.keys(YCSB);
    const runs = await Promise.all(
      presets.map((p) =>
        kv(['--port', String(standalone.port), '--preset', p, '--rate', '1000', '-d', '2', '--keys', '1000', '--seed', '7']),
      ),
    );
    runs.forEach((r, i) => {
      expect(r.code, `${presets[i]}: ${describeRun(r)}`).toBe(0);
      const s = r.summary;
      expect(s.preset).toBe(presets[i]);
      expect(s.seed).toBe(7);
      for (const [op, o] of Object.entries(s.operations)) expect(o.count, `${presets[i]} ${op}`).toBeGreaterThan(0);
      expect(s.totals.failed ?? 0).toBe(0);
      expect(s.rate.ratio).toBeGreaterThan(0.9);
      expect(s.nodes.filter((n) => n.ops > 0)).toEqual([expect.objectContaining({ role: 'master', opsShare: 1 })]);
      expect(s.hot).toBeNull();
    });
    // read-modify-write sent its SETs: F's summary counts its rmw operations, each a GET then a SET
    const f = runs[presets.indexOf('ycsb-f')].summary;
    expect(f.operations.rmw.count).toBeGreaterThan(500);
  }, 60_000);

  it('--fill writes every key once before the run: every GET finds a value, where without it most miss', async () => {
    const c = new Redis({ host: '127.0.0.1', port: standalone.port, lazyConnect: true });
    await c.connect();
    const stats = async () => {
      const info = await c.info('stats');
      return { hits: Number(/keyspace_hits:(\d+)/.exec(info)?.[1]), misses: Number(/keyspace_misses:(\d+)/.exec(info)?.[1]) };
    };
    const run = (more) =>
      kv([
        '--port',
        String(standalone.port),
        '--mix',
        'get:100',
        '--keys',
        '3000',
        '--sizes',
        '100-200',
        '--rate',
        '1000',
        '-d',
        '2',
        '--seed',
        '3',
        ...more,
      ]);
    try {
      await c.flushall();
      await c.config('RESETSTAT');
      const bare = await run([]);
      expect(bare.code, describeRun(bare)).toBe(0);
      expect(bare.summary.fill).toBeUndefined();
      // nothing wrote a key: every GET missed
      expect((await stats()).misses).toBeGreaterThan(1500);
      await c.config('RESETSTAT');
      const filled = await run(['--fill']);
      expect(filled.code, describeRun(filled)).toBe(0);
      expect(filled.summary.fill).toEqual({ keys: 3000, ms: expect.any(Number) });
      expect(await c.dbsize()).toBe(3000);
      const s = await stats();
      expect(s.misses, JSON.stringify(s)).toBe(0);
      expect(s.hits).toBeGreaterThan(1500);
      for (const k of ['kv:0', 'kv:2999']) expect(await c.strlen(k)).toBeGreaterThanOrEqual(100);
      expect(await c.strlen('kv:1500')).toBeLessThanOrEqual(200);
      expect(fs.readFileSync(path.join(filled.dir, 'summary.md'), 'utf8')).toContain('every key filled first');
      // a fill the server refuses (out of memory) is said in one line, exit 1, and no run is made
      await c.flushall();
      await c.config('SET', 'maxmemory', '1mb');
      await c.config('SET', 'maxmemory-policy', 'noeviction');
      const refused = await kv(['--port', String(standalone.port), '--fill', '--keys', '20000', '--sizes', '512', '-d', '1']);
      expect(refused.code, describeRun(refused)).toBe(1);
      expect(refused.stderr.trim()).toMatch(/^rqbench kv: --fill: [\d,]+ of 20,000 keys were not written \(OOM command not allowed/);
      expect(refused.dir ?? null).toBeNull();
    } finally {
      await c.config('SET', 'maxmemory', '0').catch(() => {});
      await c.flushall().catch(() => {});
      c.disconnect();
    }
  }, 60_000);

  it('--pipeline 1: one operation a round trip, as an unpipelined client sends them (a read of Redis per command), where without it a read carries several', async () => {
    const c = new Redis({ host: '127.0.0.1', port: standalone.port, lazyConnect: true });
    await c.connect();
    /** Redis's reads of client sockets per command processed over one run at `rate` operations a second */
    const readsPerCommand = async (rate, more) => {
      await c.config('RESETSTAT');
      const r = await kv([
        '--port',
        String(standalone.port),
        '--mix',
        'get:90,set:10',
        '--rate',
        String(rate),
        '-d',
        '2',
        '--warmup',
        '0',
        ...more,
      ]);
      expect(r.code, describeRun(r)).toBe(0);
      const info = await c.info('stats');
      const n = (k) => Number(new RegExp(`^${k}:(\\d+)`, 'm').exec(info)?.[1]);
      return { r, ratio: n('total_reads_processed') / n('total_commands_processed') };
    };
    try {
      // one client, one operation at a time: the rate it holds is one over the round trip, so a rate
      // well inside it (1 ms a round trip) — a CI host busy with other tests held 93 % of 3,000/s
      const one = await readsPerCommand(1000, ['--pipeline', '1']);
      expect(one.ratio).toBeGreaterThan(0.95);
      expect(one.r.summary.rate.ratio).toBeGreaterThan(0.95);
      expect(fs.readFileSync(path.join(one.r.dir, 'summary.md'), 'utf8')).toContain('at most 1 operation outstanding a node per client');
      const all = await readsPerCommand(3000, []);
      expect(all.ratio, 'every operation due in one write: several commands a read').toBeLessThan(0.7);
    } finally {
      c.disconnect();
    }
  }, 60_000);

  it('latency from the intended start (coordinated omission corrected): a server frozen half a second shows in every operation due meanwhile, not only in the few in flight', async () => {
    const pid = standalone.nodes[0].pid;
    // at most 10 in flight: while the server is frozen the operations due wait in the client, unsent
    const out = tempDir('rqbench-kv-');
    const run = kv(
      ['--port', String(standalone.port), '--mix', 'get:50,set:50', '--rate', '2000', '-d', '3', '--warmup', '0', '--max-inflight', '10'],
      out,
    );
    // frozen once the run's first second is recorded, not at a time after the spawn: a busy host may
    // take longer than that to start the clients (a CI run froze the server before the schedule began)
    await firstSecond(out);
    process.kill(pid, 'SIGSTOP');
    await new Promise((r) => setTimeout(r, 500));
    process.kill(pid, 'SIGCONT');
    const r = await run;
    expect(r.code, describeRun(r)).toBe(0);
    const all = r.summary.latency.all;
    // about 1,000 of 6,000 operations were due during the freeze: their wait is in the p99 from the intended start…
    expect(all.intended.p99, JSON.stringify(all)).toBeGreaterThan(200);
    // …while from the send only the 10 in flight waited, fewer than 1 %
    expect(all.sent.p99, JSON.stringify(all)).toBeLessThan(100);
    expect(r.summary.inflightWaitShare).toBeGreaterThan(0);
  }, 60_000);
});

describe('on a 3x1 cluster', () => {
  const port = () => String(cluster.port);
  const base = ['--cluster', '--keys', '1000', '--rate', '3000', '-d', '3', '--warmup', '1', '--seed', '11'];

  it('uniform keys: every master takes about a third of the operations, the shares add up to what was sent, no hot shard', async () => {
    const r = await kv(['--port', port(), ...base, '--key-dist', 'uniform']);
    expect(r.code, describeRun(r)).toBe(0);
    const s = r.summary;
    const masters = s.nodes.filter((n) => n.role === 'master');
    expect(masters).toHaveLength(3);
    for (const m of masters) expect(m.opsShare).toBeGreaterThan(0.25);
    expect(s.nodes.reduce((n, x) => n + x.ops, 0)).toBe(s.windowCounts.sent);
    for (const n of s.nodes) expect(n).toHaveProperty('cpuAvg');
    expect(s.hot).toBeNull();
  }, 60_000);

  it('Zipf keys (S 1.5): the shard that holds the hottest keys is named with its share and its CPU', async () => {
    const r = await kv(['--port', port(), ...base, '--key-dist', 'zipf:1.5']);
    expect(r.code, describeRun(r)).toBe(0);
    const s = r.summary;
    expect(s.hot, JSON.stringify(s.nodes)).not.toBeNull();
    // the share each master should take: the keys' Zipf probabilities, summed over the slots it serves
    const admin = new Redis({ host: '127.0.0.1', port: cluster.port, lazyConnect: true });
    await admin.connect();
    const slots = /** @type {Array<[number, number, [string, number]]>} */ (await admin.call('CLUSTER', 'SLOTS'));
    admin.disconnect();
    const p = zipfProbabilities(1000, 1.5);
    /** @type {Record<string, number>} */
    const expected = {};
    for (let i = 0; i < 1000; i++) {
      const slot = keySlot(`kv:${i}`);
      const [, , [host, port]] = /** @type {[number, number, [string, number]]} */ (slots.find(([lo, hi]) => slot >= lo && slot <= hi));
      expected[`${host}:${port}`] = (expected[`${host}:${port}`] ?? 0) + p[i];
    }
    const [hottest, share] = Object.entries(expected).reduce((x, y) => (y[1] > x[1] ? y : x));
    expect(s.hot.addr).toBe(hottest);
    expect(Math.abs(s.hot.opsShare - share), `${s.hot.opsShare} against ${share}`).toBeLessThan(0.03);
    expect(s.hot.words).toMatch(
      /^shard \d \(127\.0\.0\.1:\d+\) took \d+(\.\d+)? % of the operations \(an even share is 33\.3+ %\), its engine [\d.]+ % of a core$/,
    );
    const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
    expect(md).toContain(`**Hot shard:** ${s.hot.words}.`);
  }, 60_000);

  it('--read-from replica: the GETs go to the replicas (INFO commandstats), the summary gives them every operation', async () => {
    await Promise.all(cluster.nodes.map((n) => resetStats(n.port)));
    const r = await kv(['--port', port(), ...base, '--mix', 'get:100', '--read-from', 'replica']);
    expect(r.code, describeRun(r)).toBe(0);
    const gets = { master: 0, replica: 0 };
    for (const n of cluster.nodes) gets[n.role] += await calls(n.port, 'get');
    expect(gets.replica).toBeGreaterThan(5000);
    expect(gets.master, JSON.stringify(gets)).toBe(0);
    const served = r.summary.nodes.filter((n) => n.ops > 0);
    expect(served.map((n) => n.role)).toEqual(['replica', 'replica', 'replica']);
  }, 60_000);

  it('--read-from any: the GETs go to the master and a replica in turn, half each (INFO commandstats)', async () => {
    await Promise.all(cluster.nodes.map((n) => resetStats(n.port)));
    const r = await kv(['--port', port(), ...base, '--mix', 'get:100', '--read-from', 'any']);
    expect(r.code, describeRun(r)).toBe(0);
    const gets = { master: 0, replica: 0 };
    for (const n of cluster.nodes) gets[n.role] += await calls(n.port, 'get');
    // one client, every other read: within one read of half, over the whole run
    expect(Math.abs(gets.master - gets.replica), JSON.stringify(gets)).toBeLessThanOrEqual(1);
    expect(gets.master + gets.replica).toBeGreaterThan(5000);
    expect(r.summary.nodes.filter((n) => n.ops > 0)).toHaveLength(6);
  }, 60_000);
});
