// rqbench load (issue 7, points 1 and 4): a generated delta file read by parallel reader threads
// into real Redis servers (standalone and a 3x1 cluster) and the noop/memory sinks, every record
// checked to arrive exactly once; the grid's rows (bad input: test/unit/load-flags.test.js).
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { byteRanges, tilingProblems } from '../../src/workloads/bulk-load/ranges.js';
import { keyOf, valueOf } from '../../src/workloads/bulk-load/delta-file.js';
import { connectionShares } from '../../src/workloads/bulk-load/run-cell.js';
import { CLI, describeRun, readRun, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

const RECORDS = 20_000;
let standalone;
let cluster;
let admin;
let file;

beforeAll(async () => {
  const dir = tempDir('rqbench-load-file-');
  file = path.join(dir, 'delta.tsv');
  const [s, c, g] = await Promise.all([
    startRedis(),
    startRedis({ cluster: true, masters: 3, replicas: 1 }),
    runNode([CLI, 'load', '--generate', file, '--records', String(RECORDS), '--json'], { timeoutMs: 30_000 }),
  ]);
  standalone = s;
  cluster = c;
  expect(g.code, describeRun(g)).toBe(0);
  admin = new Redis({ host: standalone.host, port: standalone.port });
}, 60_000);

afterAll(async () => {
  admin?.disconnect();
  await Promise.all([standalone?.stop(), cluster?.stop()]);
  removeTempDirs();
});

async function load(args, timeoutMs = 30_000) {
  const out = tempDir('rqbench-load-');
  const r = await runNode([CLI, 'load', ...args, '--out', out, '--json'], { timeoutMs });
  return { ...r, out, ...readRun(out, r.stdout) };
}

function expectExactlyOnce(r, cells) {
  expect(r.code, describeRun(r)).toBe(0);
  expect(r.summary.ok).toBe(true);
  expect(r.summary.cells.map((c) => [c.threads, c.connections])).toEqual(cells);
  for (const c of r.summary.cells) {
    expect(c.check.problems, JSON.stringify(c.check)).toEqual([]);
    expect(c.stored).toBe(RECORDS);
    expect(c.perThread.reduce((s, t) => s + t.count, 0)).toBe(RECORDS);
    expect(c.perThread[0].first).toBe(0);
    expect(c.perThread.at(-1).last).toBe(RECORDS - 1);
    expect(c.recordsPerSec).toBeGreaterThan(0);
  }
}

describe('delta file and ranges', () => {
  it('--generate writes fixed-size key<TAB>value<LF> records with the key pattern', async () => {
    expect(fs.statSync(file).size).toBe(RECORDS * 512);
    const lines = fs.readFileSync(file, 'latin1').split('\n');
    expect(lines.length).toBe(RECORDS + 1);
    expect(lines[0].length).toBe(511);
    expect(lines[RECORDS - 1]).toBe(`delta:${RECORDS - 1}\t${valueOf('delta:{n}', RECORDS - 1, 512).toString('latin1')}`);
    const other = path.join(path.dirname(file), 'small.tsv');
    const r = await runNode([
      CLI,
      'load',
      '--generate',
      other,
      '--records',
      '100',
      '--record-size',
      '40',
      '--key-pattern',
      'user:{n}:x',
      '--quiet',
    ]);
    expect(r.code, describeRun(r)).toBe(0);
    const small = fs.readFileSync(other, 'latin1').split('\n');
    expect(small[42].startsWith(`${keyOf('user:{n}:x', 42)}\t`)).toBe(true);
    expect(small[42].length).toBe(39);
    // {n:W}: the index zero-padded, redis-benchmark's key shape
    const padded = path.join(path.dirname(file), 'padded.tsv');
    const p = await runNode([
      CLI,
      'load',
      '--generate',
      padded,
      '--records',
      '12',
      '--record-size',
      '40',
      '--key-pattern',
      'key:{n:12}',
      '--quiet',
    ]);
    expect(p.code, describeRun(p)).toBe(0);
    const keys = fs
      .readFileSync(padded, 'latin1')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0]);
    expect(keys[0]).toBe('key:000000000000');
    expect(keys[11]).toBe('key:000000000011');
    expect(keyOf('k{n:3}', 7)).toBe('k007');
    expect(keyOf('k{n:3}', 12345)).toBe('k12345');
    // two node processes spawned one after the other: a busy host takes seconds to start each
  }, 30_000);

  it('byte ranges cover the file, connections are shared out, and the tiling check finds gaps and overlaps', () => {
    const r = byteRanges(1000, 3);
    expect(r).toEqual([
      { start: 0, end: 333 },
      { start: 333, end: 666 },
      { start: 666, end: 1000 },
    ]);
    expect(connectionShares(10, 4)).toEqual([2, 3, 2, 3]);
    expect(
      tilingProblems(
        [
          { first: 0, last: 4, count: 5 },
          { first: 5, last: 9, count: 5 },
        ],
        10,
      ),
    ).toEqual([]);
    expect(
      tilingProblems(
        [
          { first: 0, last: 4, count: 5 },
          { first: 6, last: 9, count: 4 },
        ],
        10,
      ).join(),
    ).toMatch(/starts at record 6, expected 5/);
    expect(
      tilingProblems(
        [
          { first: 0, last: 5, count: 6 },
          { first: 5, last: 9, count: 5 },
        ],
        10,
      ).join(),
    ).toMatch(/expected 6/);
  });
});

describe('rqbench load', () => {
  it('noop sink: a 2x2 grid gives 4 rows; ranges cut mid-record are resynced (7 threads)', async () => {
    const r = await load([file, '--sink', 'noop', '--reader-threads', '2,7', '--connections', '1,3']);
    expectExactlyOnce(r, [
      [2, 1],
      [7, 1],
      [2, 3],
      [7, 3],
    ]);
    const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
    const table = md.split('\n').filter((l) => l.startsWith('|'));
    expect(table[0]).toBe('| reader threads | connections | data loading time | num records per sec |');
    expect(table.slice(2)).toHaveLength(4);
    for (const row of table.slice(2)) expect(row).toMatch(/^\| \d+ \| \d+ \| \d+\.\d\d sec( ⚠)? \| [\d,]+ k\/s( ⚠)? \|$/);
    expect(fs.readdirSync(r.dir).sort()).toEqual(['manifest.json', 'summary.json', 'summary.md']);
  }, 30_000);

  it('noop sink: cells under a second are flagged in summary.md beside their time and rate, with the note (too short a window)', async () => {
    const r = await load([file, '--sink', 'noop', '--reader-threads', '1,2']);
    expect(r.code, describeRun(r)).toBe(0);
    const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
    expect(md).toMatch(/\| 1 \| \d+ \| 0\.\d\d sec ⚠ \| [\d,]+ k\/s ⚠ \|/);
    expect(md).toContain('⚠ Every cell loaded in under 1 s');
  }, 30_000);

  it('memory sink: every thread holds one key per record', async () => {
    const r = await load([file, '--sink', 'memory', '--reader-threads', '3', '--connections', '3']);
    expectExactlyOnce(r, [[3, 3]]);
    for (const t of r.summary.cells[0].perThread) expect(t.keys).toBe(t.count);
  }, 30_000);

  it('redis sink, standalone: every record once, DBSIZE and a read-back equal to the file, in each of 4 cells', async () => {
    await admin.flushall();
    const r = await load([file, '--port', String(standalone.port), '--reader-threads', '1,2', '--connections', '2,4', '--sample', '500']);
    expectExactlyOnce(r, [
      [1, 2],
      [2, 2],
      [1, 4],
      [2, 4],
    ]);
    for (const c of r.summary.cells) {
      expect(c.check.keys).toBe(RECORDS);
      expect(c.check.readBack).toMatchObject({ checked: 500, missing: 0, mismatched: 0 });
    }
    // checked here too, independently of the tool
    expect(await admin.dbsize()).toBe(RECORDS);
    expect(await admin.get('delta:12345')).toBe(valueOf('delta:{n}', 12345, 512).toString('latin1'));
    expect(await admin.ttl('delta:1')).toBe(-1);
  }, 40_000);

  it('redis sink with --ttl writes SETEX; a target that holds keys needs --flush', async () => {
    const refused = await load([file, '--port', String(standalone.port), '--reader-threads', '2', '--connections', '2']);
    expect(refused.code, describeRun(refused)).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/holds 20000 keys.*--flush/);
    const r = await load([
      file,
      '--port',
      String(standalone.port),
      '--reader-threads',
      '2',
      '--connections',
      '2',
      '--ttl',
      '600',
      '--flush',
    ]);
    expectExactlyOnce(r, [[2, 2]]);
    const ttl = await admin.ttl('delta:7');
    expect(ttl).toBeGreaterThan(500);
  }, 40_000);

  it('--command mset: an MSET per batch instead of a SET per record, every record once, no TTL', async () => {
    await admin.flushall();
    await admin.config('RESETSTAT');
    const r = await load([
      file,
      '--port',
      String(standalone.port),
      '--reader-threads',
      '2',
      '--connections',
      '2',
      '--command',
      'mset',
      '--batch',
      '100',
    ]);
    expectExactlyOnce(r, [[2, 2]]);
    expect(r.summary).toMatchObject({ command: 'mset', batch: 100 });
    const c = r.summary.cells[0];
    expect(c.check.keys).toBe(RECORDS);
    expect(c.redisCpuUsPerRecord).toBeGreaterThan(0);
    expect(c.clientCpuUsPerRecord).toBeGreaterThan(0);
    // Redis's own count of what it was sent: MSETs of up to 100 records, no SET
    const stats = await admin.info('commandstats');
    const calls = (cmd) => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    expect(calls('set')).toBe(0);
    expect(calls('mset')).toBeGreaterThanOrEqual(RECORDS / 100);
    expect(calls('mset')).toBeLessThan(RECORDS / 50);
    expect(await admin.get('delta:4321')).toBe(valueOf('delta:{n}', 4321, 512).toString('latin1'));
    expect(await admin.ttl('delta:4321')).toBe(-1);
    expect(fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8')).toContain('pipelined MSET of up to 100 records of one slot');
  }, 40_000);

  it('a batched command that fails fails all its records: stored and failed add up to the file, and stored is what Redis holds', async () => {
    await admin.flushall();
    // room for a few thousand records: Redis then refuses each whole MSET (OOM), and the load goes on to the end
    const used = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))[1]);
    await admin.config('SET', 'maxmemory', String(used + 2_000_000));
    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    try {
      const r = await load([
        file,
        '--port',
        String(standalone.port),
        '--reader-threads',
        '1',
        '--connections',
        '2',
        '--command',
        'mset',
        '--batch',
        '50',
        '--sample',
        '0',
      ]);
      expect(r.code, describeRun(r)).toBe(1);
      const c = r.summary.cells[0];
      expect(c.errors).toBeGreaterThan(0);
      expect(c.stored).toBeGreaterThan(0);
      expect(c.stored + c.errors).toBe(RECORDS);
      expect(await admin.dbsize()).toBe(c.stored);
      expect(c.check.problems.join(' ')).toMatch(/records not stored: their commands failed \(OOM/);
    } finally {
      await admin.config('SET', 'maxmemory', '0');
      await admin.flushall();
    }
  }, 40_000);

  it('redis sink, 3x1 cluster: slot-aware, every record once on the masters, read back', async () => {
    const r = await load([file, '--port', String(cluster.port), '--cluster', '--reader-threads', '2', '--connections', '2,3']);
    expectExactlyOnce(r, [
      [2, 2],
      [2, 3],
    ]);
    for (const c of r.summary.cells) {
      expect(c.check.keys).toBe(RECORDS);
      expect(c.check.readBack).toMatchObject({ checked: 1000, missing: 0, mismatched: 0 });
    }
    const masters = cluster.nodes.filter((n) => n.role === 'master');
    const sizes = await Promise.all(
      masters.map(async (m) => {
        const c = new Redis({ host: m.host, port: m.port });
        try {
          return await c.dbsize();
        } finally {
          c.disconnect();
        }
      }),
    );
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(RECORDS);
    for (const s of sizes) expect(s).toBeGreaterThan(RECORDS / 5);
  }, 40_000);

  it('a cluster node given without --cluster: said once, on the first cell, even with --quiet; the grid stops there, exit 1', async () => {
    const r = await load([file, '--port', String(cluster.port), '--flush', '--quiet', '--reader-threads', '1,2', '--connections', '2']);
    expect(r.code, describeRun(r)).toBe(1);
    const said =
      /^rqbench load: redis:\/\/127\.0\.0\.1:\d+ answered MOVED [\d,]+ times: it is a node of a Redis Cluster, and this load spoke to it as a standalone server \(run again with --cluster\)$/;
    expect(
      r.stderr.split('\n').filter((l) => said.test(l)),
      r.stderr,
    ).toHaveLength(1);
    expect(r.summary.ok).toBe(false);
    // the first cell, and no other: every later one would measure the same wrong thing
    expect(r.summary.cells).toHaveLength(1);
    expect(r.summary.cells[0].check.problems[0]).toMatch(/answered MOVED [\d,]+ times: it is a node of a Redis Cluster/);
  }, 40_000);

  it('--command eval --ttl on a cluster: an EVALSHA per slot batch keeps the TTL, every record once; a node that lost its scripts gets them again', async () => {
    const masters = cluster.nodes.filter((n) => n.role === 'master');
    const clients = masters.map((m) => new Redis({ host: m.host, port: m.port }));
    try {
      await Promise.all(clients.map((c) => c.flushall()));
      const r = await load([
        file,
        '--port',
        String(cluster.port),
        '--cluster',
        '--reader-threads',
        '2',
        '--connections',
        '2',
        '--command',
        'eval',
        '--batch',
        '64',
        '--ttl',
        '600',
      ]);
      expectExactlyOnce(r, [[2, 2]]);
      expect(r.summary.cells[0].check.keys).toBe(RECORDS);
      const ttls = await Promise.all(
        clients.map(async (c) => {
          const [, keys] = await c.scan('0', 'COUNT', '50');
          return Promise.all(keys.map((k) => c.ttl(k)));
        }),
      );
      for (const t of ttls.flat()) expect(t).toBeGreaterThan(500);
      for (const c of clients) expect(await c.info('commandstats')).toMatch(/cmdstat_evalsha:calls=[1-9]/);

      // the sink's own view: every master forgets its scripts after the sink loaded them (a restart, a failover)
      const { redisSink } = await import('../../src/workloads/bulk-load/redis-sink.js');
      const { connectionFrom } = await import('../../src/transports/redis.js');
      await Promise.all(clients.map((c) => c.flushall()));
      const sink = await redisSink({
        conn: connectionFrom({ host: cluster.host, port: cluster.port, cluster: true }),
        connections: 1,
        command: 'eval',
        batch: 10,
        ttl: 60,
      });
      await Promise.all(clients.map((c) => c.script('FLUSH')));
      const keys = Array.from({ length: 200 }, (_, i) => `{k${i % 7}}:${i}`);
      const buf = Buffer.from(keys.map((k) => `${k}\tv${k}\n`).join(''), 'latin1');
      const offs = new Int32Array(keys.length * 4);
      let p = 0;
      keys.forEach((k, i) => {
        offs.set([p, p + k.length, p + k.length + 1, p + 2 * k.length + 2], i * 4);
        p += 2 * k.length + 3;
      });
      await sink.write(buf, offs, keys.length);
      const res = await sink.finish();
      sink.close();
      expect(res, JSON.stringify(res)).toMatchObject({ stored: 200, errors: 0 });
      const sizes = await Promise.all(clients.map((c) => c.dbsize()));
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(200);
    } finally {
      await Promise.all(clients.map((c) => c.flushall().catch(() => {})));
      for (const c of clients) c.disconnect();
    }
  }, 40_000);

  it('redis sink on a cluster whose slots move under it: MOVED and ASK are followed, every record stored once', async () => {
    const { redisSink } = await import('../../src/workloads/bulk-load/redis-sink.js');
    const { connectionFrom } = await import('../../src/transports/redis.js');
    const { keySlot } = await import('../../src/transports/slot.js');
    const masters = cluster.nodes.filter((n) => n.role === 'master');
    const clients = masters.map((m) => new Redis({ host: m.host, port: m.port }));
    try {
      // the slots must be empty to move without migrating keys: the test above filled them
      await Promise.all(clients.map((c) => c.flushall()));
      const ids = await Promise.all(clients.map((c) => c.call('CLUSTER', 'MYID')));
      const slots = await clients[0].call('CLUSTER', 'SLOTS');
      const ownerOf = (slot) => masters.findIndex((m) => slots.some(([lo, hi, [, port]]) => slot >= lo && slot <= hi && port === m.port));
      const MOVED_SLOT = keySlot('{mv}');
      const ASK_SLOT = keySlot('{ask}');
      const sink = await redisSink({ conn: connectionFrom({ host: cluster.host, port: cluster.port, cluster: true }), connections: 2 });
      // after the sink read the topology: one empty slot moves to another master, another is being migrated
      const from = ownerOf(MOVED_SLOT);
      const to = (from + 1) % masters.length;
      for (const i of [to, from, ...masters.keys()]) await clients[i].call('CLUSTER', 'SETSLOT', MOVED_SLOT, 'NODE', ids[to]);
      const askFrom = ownerOf(ASK_SLOT);
      const askTo = (askFrom + 1) % masters.length;
      await clients[askTo].call('CLUSTER', 'SETSLOT', ASK_SLOT, 'IMPORTING', ids[askFrom]);
      await clients[askFrom].call('CLUSTER', 'SETSLOT', ASK_SLOT, 'MIGRATING', ids[askTo]);

      const batch = (keys) => {
        const buf = Buffer.from(keys.map((k) => `${k}\tvalue-of-${k}\n`).join(''), 'latin1');
        const offs = new Int32Array(keys.length * 4);
        let p = 0;
        keys.forEach((k, i) => {
          offs.set([p, p + k.length, p + k.length + 1, p + k.length + 1 + `value-of-${k}`.length], i * 4);
          p += k.length + 1 + `value-of-${k}`.length + 1;
        });
        return [buf, offs, keys.length];
      };
      const keys = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
      await sink.write(...batch([...keys('{mv}:', 100), ...keys('{ask}:', 100), ...keys('plain:', 100)]));
      const first = await sink.finish();
      expect(first, JSON.stringify(first)).toMatchObject({ stored: 300, errors: 0, moved: 100, ask: 100 });
      // a batch written after the MOVED replies goes straight to the slot's new master
      await sink.write(...batch(keys('{mv}:again:', 50)));
      const r = await sink.finish();
      sink.close();
      expect(r, JSON.stringify(r)).toMatchObject({ stored: 350, errors: 0, moved: 100, ask: 100 });
      const { checkLines } = await import('../../src/runs/load/load-table.js');
      const line = checkLines([
        {
          threads: 1,
          connections: 2,
          stored: 350,
          check: { ok: true, problems: [] },
          redirects: { moved: r.moved, ask: r.ask, retries: r.retries },
        },
      ]);
      expect(line).toMatch(/the cluster changed during the load: 100 MOVED and 100 ASK followed, 0 commands retried/);

      for (const i of masters.keys()) await clients[i].call('CLUSTER', 'SETSLOT', ASK_SLOT, 'NODE', ids[askTo]);
      expect(Number(await clients[to].call('CLUSTER', 'COUNTKEYSINSLOT', MOVED_SLOT))).toBe(150);
      expect(Number(await clients[askTo].call('CLUSTER', 'COUNTKEYSINSLOT', ASK_SLOT))).toBe(100);
      expect(await clients[askTo].get('{ask}:42')).toBe('value-of-{ask}:42');
    } finally {
      await Promise.all(clients.map((c) => c.flushall().catch(() => {})));
      for (const c of clients) c.disconnect();
    }
  }, 30_000);
});
