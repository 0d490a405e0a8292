// Dropped connections on masters (issue 26, point 4), from outside: CLIENT KILL TYPE normal on
// every node of a local 3-master cluster. Under writes, each drop is in the producer's timeline
// (the second's events) and summary (node, writer, when, how long until reconnected), whether or
// not anything failed, as for the consumer (test/integration/replica-faults.test.js). Under reads from the
// masters, a request cut mid-way is sent again on a new connection: no cycle fails (before, 3 of
// 40 failed). Under `--client ioredis`, the seed client's own connections are watched too: killed
// alone, they are the run's drops. Real redis-server processes on 127.0.0.1.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { readTimeline } from '../../src/record/timeline.js';
import { CLI, describeRun, produce, removeTempDirs, runNode, until } from '../helpers/producer-run.js';
import { consume, describeConsumer } from '../helpers/consumer-run.js';
import { dropConnectionsNamed, dropEveryConnection } from '../helpers/redis-check.js';
import { SEED_CLIENT_NAME } from '../../src/transports/ioredis-sender.js';

/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let clu;

beforeAll(async () => {
  clu = await startRedis({ cluster: true, masters: 3, replicas: 0 });
}, 60_000);

afterAll(async () => {
  await clu?.stop();
  removeTempDirs();
});

it('every connection dropped twice under writes: each drop is an event of the timeline and of the summary, with its reconnect time', async () => {
  let faults;
  const p = await produce({
    port: clu.port,
    cluster: true,
    q: 2000,
    d: 4,
    ttl: 30,
    extra: ['-c', '10'],
    onT0: (t0) => {
      faults = (async () => {
        await until(t0 + 1500);
        const first = await dropEveryConnection(clu.nodes);
        await until(t0 + 3000);
        return [first, await dropEveryConnection(clu.nodes)];
      })();
    },
  });
  const dropped = await faults;
  const why = `${describeRun(p)}; ${JSON.stringify(p.summary?.connectionDrops)}`;
  // the writer's 3 masters, the CPU sampler's, at least
  expect(
    dropped.every((n) => n >= 3),
    `connections dropped: ${dropped}`,
  ).toBe(true);
  expect(p.code, why).toBe(0);
  const s = p.summary;
  expect(s.totals.failed, why).toBe(0);
  const masters = clu.nodes.filter((n) => n.role === 'master').map((n) => `127.0.0.1:${n.port}`);
  for (const addr of masters) {
    const mine = s.connectionDrops.filter((d) => d.node === addr);
    expect(mine.length, `${addr}: ${why}`).toBe(2);
    for (const d of mine) {
      expect(d.writer).toBe('writer 1');
      expect(d.reconnectMs, JSON.stringify(d)).toBeGreaterThanOrEqual(0);
      expect(d.reconnectMs, JSON.stringify(d)).toBeLessThan(1000);
    }
    expect(
      mine.map((d) => Math.round(d.atS * 2) / 2),
      JSON.stringify(mine),
    ).toEqual([1.5, 3]);
  }
  const tl = readTimeline(path.join(p.dir, 'timeline.csv'));
  const events = (sec) => String(tl.rows.find((r) => r.second === sec)?.events ?? '');
  for (const sec of [1, 3]) {
    for (const addr of masters) {
      expect(events(sec), `second ${sec}`).toContain(`writer 1: connection to ${addr} dropped`);
      expect(events(sec), `second ${sec}`).toMatch(new RegExp(`writer 1: reconnected to ${addr} after \\d+ ms`));
    }
  }
  const md = fs.readFileSync(path.join(p.dir, 'summary.md'), 'utf8');
  expect(md).toMatch(/\*\*Dropped connections:\*\* 6 — /);
  for (const addr of masters) expect(md).toMatch(new RegExp(`${addr} at \\+(1\\.[45]|3\\.0) s \\(writer 1\\), reconnected after \\d+ ms`));
  // and `report` on the run directory (what merges hosts) says the same
  const r = await runNode([CLI, 'report', p.dir, '--format', 'json']);
  expect(r.code, describeRun(r)).toBe(0);
  expect(JSON.parse(r.stdout).connectionDrops).toEqual(s.connectionDrops);
}, 60_000);

it("--client ioredis: the seed client's own connections dropped (and not the router's) are drops of the run, over once ioredis is connected again", async () => {
  let faults;
  const p = await produce({
    port: clu.port,
    cluster: true,
    q: 2000,
    d: 3,
    ttl: 30,
    extra: ['-c', '10', '--client', 'ioredis'],
    onT0: (t0) => {
      faults = until(t0 + 1500).then(() => dropConnectionsNamed(clu.nodes, SEED_CLIENT_NAME));
    },
  });
  const dropped = await faults;
  const why = `${describeRun(p)}; ${JSON.stringify(p.summary?.outcome)}; ${JSON.stringify(p.summary?.totals)}; ${JSON.stringify(p.summary?.connectionDrops)}`;
  // one connection per master: ioredis's, none of the router's
  expect(dropped, why).toBe(3);
  // ioredis sends a command cut mid-way again while its Cluster is "ready", but its three
  // connections dropped at once drain its pool, and then some of what was in flight fails with
  // "Connection is closed." (3-7 % of a 3 s run at 100,000 items/s here; none in 8 runs at 2,000,
  // but a CI run had some). Failed or not, the run says so and its exit code agrees.
  const t = p.summary.totals;
  expect(p.code, why).toBe(t.failed > 0 ? 1 : 0);
  expect(t.failed, why).toBeLessThan(t.sent * 0.05);
  if (t.failed > 0) {
    expect(Object.keys(p.summary.errorKinds), why).toEqual(['CONNECTION']);
    expect(p.summary.outcome.problems, why).toEqual([`${t.failed} items failed`]);
  }
  const masters = clu.nodes.filter((n) => n.role === 'master').map((n) => `127.0.0.1:${n.port}`);
  for (const addr of masters) {
    const mine = p.summary.connectionDrops.filter((d) => d.node === addr);
    expect(mine.length, `${addr}: ${why}`).toBe(1);
    expect(Math.round(mine[0].atS * 2) / 2, why).toBe(1.5);
    // ioredis's pool makes a new connection to the node when a write needs it
    expect(mine[0].reconnectMs, why).not.toBeNull();
    expect(mine[0].reconnectMs, why).toBeLessThan(2000);
  }
  const tl = readTimeline(path.join(p.dir, 'timeline.csv'));
  const events = tl.rows.map((r) => String(r.events ?? '')).join('\n');
  for (const addr of masters) expect(events).toContain(`writer 1: connection to ${addr} dropped`);
}, 60_000);

it('every connection dropped over and over under reads from masters: a request cut mid-way is sent again, and no cycle fails', async () => {
  // 20k live items: a cycle's requests are on the wire long enough for kills to cut some mid-way
  const w = await produce({ port: clu.port, cluster: true, q: 10_000, d: 2, ttl: 300 });
  expect(w.code, describeRun(w)).toBe(0);
  let faults;
  const c = await consume({
    port: clu.port,
    cluster: true,
    d: 4,
    warmup: 0,
    ttl: 300,
    extra: ['-p', '100'],
    onT0: (t0) => {
      faults = (async () => {
        const counts = [];
        for (let at = 500; at < 3500; at += 250) {
          await until(t0 + at);
          counts.push(await dropEveryConnection(clu.nodes));
        }
        return counts;
      })();
    },
  });
  const dropped = await faults;
  const why = describeConsumer(c);
  expect(
    dropped.every((n) => n >= 3),
    `connections dropped: ${dropped}`,
  ).toBe(true);
  expect(c.code, why).toBe(0);
  expect(c.summary.cycles.failed, why).toBe(0);
  expect(c.summary.perCycle.missing, why).toBe(0);
  // kills closer together than a second can make one drop (conn-drops.js): each master at least once
  const nodes = new Set(c.summary.connectionDrops.map((d) => d.node));
  for (const n of clu.nodes) expect(nodes.has(`127.0.0.1:${n.port}`), JSON.stringify(c.summary.connectionDrops)).toBe(true);
}, 60_000);
