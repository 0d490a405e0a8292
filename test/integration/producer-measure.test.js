/**
 * What the producer measures, against a real local cluster with replicas: the rate is held,
 * merged histograms add up across writers, CPU is sampled on every node with its role.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedis } from '../../src/local/local-redis.js';
import { ServerSampler } from '../../src/measure/server-sampler.js';
import { connectionFrom, openPipe, discover } from '../../src/transports/redis.js';
import { readHlog } from '../../src/record/hlog.js';
import { runNode } from '../helpers/run.js';

let cluster;
let out;

beforeAll(async () => {
  cluster = await startRedis({ cluster: true, masters: 3, replicas: 1 });
  out = mkdtempSync(path.join(os.tmpdir(), 'rqbench-measure-'));
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

function onlyRunDir(dir) {
  const dirs = readdirSync(dir);
  expect(dirs).toHaveLength(1);
  return path.join(dir, dirs[0]);
}

describe('producer measurement (cluster 3 masters x 1 replica)', () => {
  it('holds a rate this machine can hold within 5%, with 2 writers merged exactly', async () => {
    const dir = mkdtempSync(path.join(out, 'rate-'));
    const r = await runNode(
      'src/producer.js',
      [
        '--host',
        '127.0.0.1',
        '--port',
        String(cluster.port),
        '--cluster',
        '-q',
        '10000',
        '-t',
        '2',
        '-c',
        '4',
        '-d',
        '6',
        '--warmup',
        '1',
        '--out',
        dir,
        '--json',
        '--quiet',
      ],
      { timeoutMs: 60_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.target.itemsPerSec).toBe(10000);
    expect(s.achieved.itemsPerSec).toBeGreaterThanOrEqual(9500);
    expect(s.achieved.itemsPerSec).toBeLessThanOrEqual(10500);
    expect(s.totals.sent).toBe(60000);
    expect(s.totals.acked).toBe(60000);
    expect(s.totals.failed).toBe(0);

    const run = onlyRunDir(dir);
    // every SETEX acknowledged is in the merged setex histograms, every chunk of both writers in batch
    const count = (file, tag) =>
      readHlog(path.join(run, file))
        .intervals.filter((i) => i.tag === tag)
        .reduce((a, i) => a + i.histogram.totalCount, 0);
    expect(count('setex.hlog', 'intended')).toBe(60000);
    expect(count('setex.hlog', 'sent')).toBe(60000);
    expect(count('batch.hlog', 'intended')).toBe(2 * 4 * 6);
    expect(count('lag.hlog', 'lag')).toBe(2 * 4 * 6);
    // the summary's histograms are the merged ones after the warm-up
    expect(s.latency.batch.intended.count).toBeLessThanOrEqual(48);
    expect(s.latency.batch.intended.p99).toBeGreaterThanOrEqual(s.latency.batch.intended.p50);

    // timeline: one row per second, a CPU column per node with role and shard
    const lines = readFileSync(path.join(run, 'timeline.csv'), 'utf8').trim().split('\n');
    const header = lines[0].split(',');
    expect(header.filter((h) => h.startsWith('cpu_master_'))).toHaveLength(3);
    expect(header.filter((h) => h.startsWith('cpu_replica_'))).toHaveLength(3);
    expect(lines.length - 1).toBeGreaterThanOrEqual(6);
    const acked = lines
      .slice(1)
      .map((l) => Number(l.split(',')[header.indexOf('acked')]))
      .reduce((a, b) => a + b, 0);
    expect(acked).toBe(60000);

    // per-node CPU in the summary: 3 masters, 3 replicas, all measured, masters busier
    expect(s.cpu.nodes.filter((n) => n.role === 'master')).toHaveLength(3);
    expect(s.cpu.nodes.filter((n) => n.role === 'replica')).toHaveLength(3);
    for (const n of s.cpu.nodes) expect(n.samples).toBeGreaterThan(0);
    expect(s.cpu.master).toBeGreaterThan(0);
    // the seed's columns (the main thread's CPU), then the process's beside them
    expect(readFileSync(path.join(run, 'summary.md'), 'utf8')).toMatch(
      /\| Writers \| Items per writer per sec \| master CPU \| replica CPU \| master process CPU \| replica process CPU \|\n\| --- \| ---: \| ---: \| ---: \| ---: \| ---: \|\n\| 2 \| 5k \|/,
    );
  }, 90_000);

  it('samples INFO cpu on every master and replica with its role and shard', async () => {
    const conn = connectionFrom({ host: '127.0.0.1', port: cluster.port, cluster: true });
    const pipe = await openPipe(conn, '127.0.0.1', cluster.port);
    const nodes = await discover(pipe, conn);
    pipe.close();
    const sampler = await new ServerSampler(conn, nodes).start();
    try {
      await new Promise((r) => setTimeout(r, 300));
      const rows = await sampler.sample();
      expect(rows).toHaveLength(6);
      const ports = new Map(cluster.nodes.map((n) => [n.port, n.role]));
      for (const row of rows) {
        expect(ports.get(Number(row.addr.split(':')[1]))).toBe(row.role);
        expect(row.shard).toBeGreaterThanOrEqual(1);
        expect(row.cpuPct).toBeGreaterThanOrEqual(0);
        expect(row.cpuPct).toBeLessThan(200);
        // Redis 7 reports its main thread too
        expect(row.enginePct).toBeGreaterThanOrEqual(0);
        expect(row.enginePct).toBeLessThanOrEqual(row.cpuPct + 0.5);
      }
      expect(new Set(rows.filter((r) => r.role === 'master').map((r) => r.shard))).toEqual(new Set([1, 2, 3]));
    } finally {
      sampler.close();
    }
  }, 30_000);
});
