// Faults from outside while a consumer reads a local 3x1 cluster's replicas (issue 26, point 4):
// every client connection dropped twice (CLIENT KILL TYPE normal on every node), then one
// replica killed (kill -9 of its PID) while every master stays up. Neither may fail a cycle: a
// dropped connection is an event of the timeline and of the summary (node, when, time to
// reconnect); a dead replica's reads go to its master in the same cycle, counted per second
// (replica_fallbacks) and shown as a disturbance. Real redis-server processes on 127.0.0.1.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readTimeline } from '../../src/record/timeline.js';
import { removeTempDirs, until } from '../helpers/producer-run.js';
import { clusterWithLiveItems, consume, describeConsumer } from '../helpers/consumer-run.js';
import { dropEveryConnection } from '../helpers/redis-check.js';

/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let clu;

beforeAll(async () => {
  // live items for the whole file: 2 s of writes that outlive every read
  clu = await clusterWithLiveItems();
}, 60_000);

afterAll(async () => {
  await clu?.stop();
  removeTempDirs();
});

const READ = { cluster: true, d: 6, warmup: 0, ttl: 300, extra: ['-p', '200'] };

it('every connection dropped twice: no cycle fails, and the timeline and the summary name each drop', async () => {
  let faults;
  const c = await consume({
    ...READ,
    port: clu.port,
    onT0: (t0) => {
      faults = (async () => {
        await until(t0 + 2000);
        const first = await dropEveryConnection(clu.nodes);
        await until(t0 + 4000);
        return [first, await dropEveryConnection(clu.nodes)];
      })();
    },
  });
  const dropped = await faults;
  const why = describeConsumer(c);
  expect(
    dropped.every((n) => n >= 6),
    `connections dropped: ${dropped}`,
  ).toBe(true);
  expect(c.code, why).toBe(0);
  const s = c.summary;
  expect(s.cycles.failed, why).toBe(0);
  // the reader's connections to every replica it reads went both times (its pipes and its byte reads)
  const drops = s.connectionDrops;
  expect(drops.length, JSON.stringify(drops)).toBeGreaterThanOrEqual(6);
  const replicas = clu.nodes.filter((n) => n.role === 'replica').map((n) => `127.0.0.1:${n.port}`);
  for (const addr of replicas) {
    const mine = drops.filter((d) => d.node === addr);
    expect(mine.length, `${addr}: ${JSON.stringify(drops)}`).toBe(2);
    for (const d of mine) {
      expect(d.reader).toBe('reader 1');
      expect(d.reconnectMs, JSON.stringify(d)).toBeGreaterThanOrEqual(0);
      expect(d.reconnectMs, JSON.stringify(d)).toBeLessThan(1000);
    }
    expect(mine.map((d) => Math.floor(d.atS)).sort(), JSON.stringify(mine)).toEqual([2, 4]);
  }
  const tl = readTimeline(path.join(c.dir, 'timeline.csv'));
  const events = (sec) => String(tl.rows.find((r) => r.second === sec)?.events ?? '');
  for (const sec of [2, 4]) {
    for (const addr of replicas) {
      expect(events(sec), `second ${sec}`).toContain(`reader 1: connection to ${addr} dropped`);
      expect(events(sec), `second ${sec}`).toMatch(new RegExp(`reader 1: reconnected to ${addr} after \\d+ ms`));
    }
  }
  const md = fs.readFileSync(path.join(c.dir, 'summary.md'), 'utf8');
  expect(md).toMatch(/\*\*Dropped connections:\*\* \d+/);
  for (const addr of replicas) expect(md).toMatch(new RegExp(`${addr} at \\+[24]\\.\\d s \\(reader 1\\), reconnected after \\d+ ms`));
}, 60_000);

it('a replica killed (kill -9) mid-run: its reads go to its master in the same cycle; no cycle fails; the fallback is a disturbance', async () => {
  const victim = clu.nodes.find((n) => n.role === 'replica');
  let killed;
  const c = await consume({
    ...READ,
    port: clu.port,
    onT0: (t0) => {
      killed = until(t0 + 2000).then(() => process.kill(victim.pid, 'SIGKILL'));
    },
  });
  await killed;
  const why = describeConsumer(c);
  expect(c.code, why).toBe(0);
  const s = c.summary;
  expect(s.cycles.failed, why).toBe(0);
  expect(s.cycles.count, why).toBeGreaterThanOrEqual(25);
  expect(s.replicaFallbacks, why).toBeGreaterThan(0);
  expect(s.perCycle.missing, why).toBe(0);
  // per second: none before the kill, some in the second of the kill and every one after it (the
  // replica stays dead, so its shard is read from its master to the end)
  const tl = readTimeline(path.join(c.dir, 'timeline.csv'));
  const fb = (sec) => tl.rows.find((r) => r.second === sec)?.replica_fallbacks;
  expect([0, 1].map(fb), tl.columns.join(' ')).toEqual([0, 0]);
  for (const sec of [2, 3, 4, 5]) expect(fb(sec), `second ${sec}`).toBeGreaterThan(0);
  expect(s.disturbances.length, JSON.stringify(s.disturbances)).toBeGreaterThanOrEqual(1);
  const ep = s.disturbances.find((e) => e.fromS <= 2 && e.toS >= 2);
  expect(ep?.counts.replica_fallbacks, JSON.stringify(s.disturbances)).toBeGreaterThan(0);
  expect(ep.counts.failed_cycles).toBe(0);
  const md = fs.readFileSync(path.join(c.dir, 'summary.md'), 'utf8');
  expect(md).toMatch(/replica fallbacks [\d,]+/);
  expect(md).toMatch(/\*\*Replica fallbacks:\*\* [\d,]+ reads/);
}, 60_000);
