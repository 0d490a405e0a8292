// Replicas that stop answering (issue 26, point 4), from outside, by PID, while a consumer reads
// a local 3x1 cluster's replicas. One frozen with SIGSTOP, then thawed with SIGCONT: nothing
// closes, and TCP alone would hold the read until the thaw. The reader must give the replica up
// after its reply timeout (reply-watch.js), read that shard from its master in the same cycle (a
// replica fallback, per second and in the summary), go back to the replica once it answers
// again, fail no cycle and finish on time. Then the same under --fetch get, the seed's ioredis
// client, which has no such watch of its own (ioredis-watch.js closes the silent connection for
// it). Then one killed (kill -9) under --fetch get: its reads go to the master, and no cycle
// fails (before, every cycle after the kill failed with MOVED). Real redis-server processes on 127.0.0.1.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readTimeline } from '../../src/record/timeline.js';
import calculateSlot from 'cluster-key-slot';
import { RedisRouter } from '../../src/transports/redis-router.js';
import { replicaOf } from '../../src/transports/read-table.js';
import { removeTempDirs, until } from '../helpers/producer-run.js';
import { clusterWithLiveItems, consume, describeConsumer } from '../helpers/consumer-run.js';
import { clusterClient, slotOwners } from '../helpers/redis-check.js';

/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let clu;

beforeAll(async () => {
  // live items for the whole file: 2 s of writes that outlive every read
  clu = await clusterWithLiveItems();
}, 60_000);

afterAll(async () => {
  await clu?.stop();
  removeTempDirs();
});

const D = 7;
// --reply-timeout, shorter than its 1 s default: the flag reaches the reader, and the test is shorter
const TIMEOUT_MS = 500;
const FREEZE_AT = 1.5;
// frozen 3 s: longer than the cluster's node timeout (2 s), so the cluster flags it too
const THAW_AT = 4.5;

/**
 * A consumer run of `d` s reading replicas (200 ms cycles, --reply-timeout TIMEOUT_MS) while
 * `victim` is frozen (SIGSTOP) from FREEZE_AT to THAW_AT s into it; never left stopped.
 * @param {{ pid: number }} victim
 * @param {number} d
 * @param {string[]} extra
 */
async function consumeFrozen(victim, d, extra) {
  let frozen = false;
  let faults;
  try {
    const c = await consume({
      port: clu.port,
      cluster: true,
      d,
      warmup: 0,
      ttl: 300,
      extra: ['-p', '200', '--reply-timeout', String(TIMEOUT_MS), ...extra],
      timeoutMs: 40_000,
      onT0: (t0) => {
        faults = (async () => {
          await until(t0 + FREEZE_AT * 1000);
          process.kill(victim.pid, 'SIGSTOP');
          frozen = true;
          await until(t0 + THAW_AT * 1000);
          process.kill(victim.pid, 'SIGCONT');
          frozen = false;
        })();
      },
    });
    await faults;
    return c;
  } finally {
    // never leave a node stopped, whatever failed above
    if (frozen) process.kill(victim.pid, 'SIGCONT');
  }
}

it('a MOVED the router was told of holds when a replica is set aside before the next refresh', async () => {
  const router = new RedisRouter({ host: '127.0.0.1', port: clu.port, cluster: true }, { readFrom: 'replica' });
  await router.open();
  try {
    const [a, b, c] = router.masters();
    const slot = router.masterTable.indexOf(a.addr);
    // told (by a MOVED) that the slot is b's now; the refresh this starts has not answered yet
    router.moved(slot, b.addr);
    expect(router.table[slot]).toBe(b.addr);
    // then another shard's replica drops its connection: the read table is rebuilt without it
    const gone = replicaOf(router.nodes, c.id, 0);
    expect(router.fallBack(gone, new Error(`connection to ${gone} closed`))).toBe(true);
    expect(router.table.includes(gone)).toBe(false);
    // the slot is read on b's shard, not sent back to a's
    expect([b.addr, replicaOf(router.nodes, b.id, 0)]).toContain(router.table[slot]);
  } finally {
    router.close();
  }
});

it('a replica frozen (SIGSTOP) mid-run: its reads go to its master within the reply timeout, no cycle fails or hangs, and it is read again once thawed', async () => {
  const victim = clu.nodes.filter((n) => n.role === 'replica').at(-1);
  const addr = `127.0.0.1:${victim.port}`;
  const c = await consumeFrozen(victim, D, []);
  const why = describeConsumer(c);
  expect(c.code, why).toBe(0);
  const s = c.summary;
  expect(s.cycles.failed, why).toBe(0);
  expect(s.perCycle.missing, why).toBe(0);
  // no read waited out the freeze (3 s): the slowest cycle is the one that waited for the reply
  // timeout, then read the shard from its master; the run ends on time (startup + D + drain)
  expect(s.latency.cycle.sent.max, why).toBeLessThan(TIMEOUT_MS + 700);
  expect(s.latency.cycle.sent.max, why).toBeGreaterThanOrEqual(TIMEOUT_MS * 0.9);
  expect(c.ms, why).toBeLessThan((D + 8) * 1000);
  expect(s.cycles.count, why).toBeGreaterThanOrEqual(20);
  expect(s.replicaFallbacks, why).toBeGreaterThan(0);
  const tl = readTimeline(path.join(c.dir, 'timeline.csv'));
  const fb = (sec) => tl.rows.find((r) => r.second === sec)?.replica_fallbacks;
  expect(fb(0), 'before the freeze').toBe(0);
  // given up on within the second of the freeze (1.5 s + 0.5 s), read from the master while frozen
  for (const sec of [2, 3]) expect(fb(sec), `second ${sec}`).toBeGreaterThan(0);
  // thawed at 4.5 s: back on the replica once the cluster no longer flags it and it answers
  expect(fb(D - 1), `second ${D - 1}: ${tl.rows.map((r) => r.replica_fallbacks)}`).toBe(0);
  const events = tl.rows.map((r) => String(r.events ?? '')).join('\n');
  expect(events).toContain(`reader 1: connection to ${addr} given up: no reply within ${TIMEOUT_MS} ms`);
  const ep = s.disturbances.find((e) => e.fromS <= 2 && e.toS >= 2);
  expect(ep?.counts.replica_fallbacks, JSON.stringify(s.disturbances)).toBeGreaterThan(0);
  expect(ep.counts.failed_cycles).toBe(0);
  const md = fs.readFileSync(path.join(c.dir, 'summary.md'), 'utf8');
  expect(md).toMatch(/\*\*Replica fallbacks:\*\* [\d,]+ reads/);
  expect(md).toContain(`${addr} at +`);
}, 60_000);

it('a replica frozen (SIGSTOP) under --fetch get (ioredis): its connection is closed after the reply timeout, its shard read from its master, no cycle fails or hangs', async () => {
  // a replica only ioredis reads from: not the one of the shard holding the range, which the
  // reader's own connections (and their reply watch) read too; nor the one killed below
  const C = await clusterClient(clu.port);
  const rangeShard = (await slotOwners(C))(calculateSlot('latest-ids'));
  C.disconnect();
  const replicas = clu.nodes.filter((n) => n.role === 'replica');
  const victim = [replicas[1], replicas[2]].find((n) => n.masterPort !== rangeShard);
  const addr = `127.0.0.1:${victim.port}`;
  const c = await consumeFrozen(victim, 5, ['--fetch', 'get']);
  const why = describeConsumer(c);
  expect(c.code, why).toBe(0);
  const s = c.summary;
  expect(s.cycles.failed, why).toBe(0);
  expect(s.perCycle.missing, why).toBe(0);
  // the watch looks every timeout/4: given up between 1 and 1.25 timeouts of silence, then every
  // key read again (not the 3 s of the freeze)
  expect(s.latency.cycle.sent.max, why).toBeLessThan(TIMEOUT_MS * 1.25 + 700);
  expect(s.latency.cycle.sent.max, why).toBeGreaterThanOrEqual(TIMEOUT_MS * 0.9);
  const tl = readTimeline(path.join(c.dir, 'timeline.csv'));
  const fb = (sec) => tl.rows.find((r) => r.second === sec)?.replica_fallbacks;
  expect(fb(0), 'before the freeze').toBe(0);
  for (const sec of [2, 3]) expect(fb(sec), `second ${sec}`).toBeGreaterThan(0);
  const events = tl.rows.map((r) => String(r.events ?? '')).join('\n');
  expect(events).toContain(`connection to ${addr} given up: no reply within ${TIMEOUT_MS} ms`);
}, 60_000);

it('a replica killed (kill -9) under --fetch get (ioredis): its shard is read from its master, counted as fallbacks; no cycle fails', async () => {
  // not the one frozen above: that one is back, as the test above checked
  const victim = clu.nodes.filter((n) => n.role === 'replica')[0];
  let killed;
  const c = await consume({
    port: clu.port,
    cluster: true,
    d: 5,
    warmup: 0,
    ttl: 300,
    extra: ['-p', '200', '--fetch', 'get'],
    onT0: (t0) => {
      killed = until(t0 + 2000).then(() => process.kill(victim.pid, 'SIGKILL'));
    },
  });
  await killed;
  const why = describeConsumer(c);
  expect(c.code, why).toBe(0);
  const s = c.summary;
  expect(s.cycles.failed, why).toBe(0);
  expect(s.cycles.count, why).toBeGreaterThanOrEqual(20);
  expect(s.perCycle.missing, why).toBe(0);
  const tl = readTimeline(path.join(c.dir, 'timeline.csv'));
  const fb = (sec) => tl.rows.find((r) => r.second === sec)?.replica_fallbacks;
  // reads went to the replicas before the kill, and to the dead one's master in every second after
  expect([0, 1].map(fb), 'before the kill').toEqual([0, 0]);
  for (const sec of [2, 3, 4]) expect(fb(sec), `second ${sec}`).toBeGreaterThan(0);
  expect(s.replicaFallbacks, why).toBeGreaterThan(0);
}, 60_000);
