// Integration tests of the consumer (`node src/consumer.js`, `rqbench consume`) against real
// servers: one 3-master x 1-replica cluster and one standalone master with a replica, started
// once for the file. The producer (`node src/producer.js`) writes the data, either while the
// consumer reads (the seed's setup) or beforehand with a long TTL (a fixed data set: exact
// counts); some data sets are written directly with ioredis when the test needs known scores.
// Where reads land is checked with INFO commandstats on every node, not trusted from the summary.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import calculateSlot from 'cluster-key-slot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { isPortFree } from '../../src/local/ports.js';
import { createZsetReadModel } from '../../src/workloads/items/stores/zset-read.js';
import { minuteOf } from '../../src/workloads/items/stores/keys.js';
import { payload } from '../../src/workloads/items/stores/payload.js';
import { mergeHlogFiles } from '../../src/record/hlog.js';
import { describeRun, listTree, produce, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { CONSUMER, consume, describeConsumer } from '../helpers/consumer-run.js';
import { clusterClient, flushAll, mastersOf, scanKeys, slotOwners, standaloneClient } from '../helpers/redis-check.js';

/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let clu;
/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let std;
/** @type {import('ioredis').Cluster} */ let C;
/** @type {import('ioredis').Redis} */ let S;
/** port → plain client of that one node (INFO, CONFIG RESETSTAT), every node of both servers */
const nodeClient = new Map();
const servers = new Set();

beforeAll(async () => {
  const started = await Promise.allSettled([startRedis({ cluster: true }), startRedis({ replicas: 1 })]);
  for (const s of started) if (s.status === 'fulfilled') servers.add(s.value);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  [clu, std] = started.map((s) => s.value);
  [C, S] = await Promise.all([clusterClient(clu.port), standaloneClient(std.port)]);
  for (const n of [...clu.nodes, ...std.nodes]) nodeClient.set(n.port, await standaloneClient(n.port));
}, 60_000);

afterAll(async () => {
  for (const c of [C, S, ...nodeClient.values()]) c?.disconnect();
  await Promise.all([...servers].map((s) => s.stop()));
  servers.clear();
  removeTempDirs();
}, 60_000);

beforeEach(async () => {
  if (!C) return;
  await Promise.all([flushAll(C), flushAll(S)]);
  // replicas serve the reads: they must have dropped the previous test's data too
  await Promise.all([replicasInSync(clu), replicasInSync(std)]);
});

// ------------------------------------------------------------------ helpers

const cluRead = (o) => consume({ port: clu.port, cluster: true, ...o });
const cluWrite = (o) => produce({ port: clu.port, cluster: true, ...o });

/** The consumer ended well: exit 0, a summary, no errors of any kind. */
function expectCleanRun(r) {
  const why = describeConsumer(r);
  expect(r.code, why).toBe(0);
  expect(r.summary, why).not.toBeNull();
  expect(r.summary.totals.errors, why).toBe(0);
  expect(r.summary.errorKinds, why).toEqual({});
  expect(r.summary.readerErrors, why).toEqual([]);
  expect(r.summary.cycles.count, `cycles in the window: ${why}`).toBeGreaterThan(0);
}

/** Every item the range returned was accounted for, none twice, every value matched its key. */
function expectAccounted(r) {
  const why = describeConsumer(r);
  const t = r.summary.totals;
  expect(t.fetched + t.missing, `fetched + missing == items: ${why}`).toBe(t.items);
  expect(t.mismatched, why).toBe(0);
  expect(t.duplicates, why).toBe(0);
}

function expectProducerOk(p) {
  expect(p.code, describeRun(p)).toBe(0);
  expect(p.summary?.totals?.failed, describeRun(p)).toBe(0);
}

/** Waits until every replica has applied everything its master had when this was called. */
async function replicasInSync(local) {
  const offset = async (port, field) => {
    const m = (await nodeClient.get(port).info('replication')).match(new RegExp(`^${field}:(\\d+)`, 'm'));
    return m ? Number(m[1]) : -1;
  };
  const targets = [];
  for (const n of local.nodes.filter((x) => x.role === 'replica'))
    targets.push({ replica: n.port, want: await offset(n.masterPort, 'master_repl_offset') });
  const deadline = Date.now() + 10_000;
  for (const t of targets) {
    while ((await offset(t.replica, 'slave_repl_offset')) < t.want) {
      if (Date.now() > deadline) throw new Error(`replica ${t.replica} did not catch up with its master`);
      await sleep(20);
    }
  }
}

/** INFO commandstats of one node: command → calls. */
async function commandCalls(port) {
  const text = await nodeClient.get(port).info('commandstats');
  const out = {};
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]] = Number(m[2]);
  return out;
}

async function resetStats(local) {
  await Promise.all(local.nodes.map((n) => nodeClient.get(n.port).config('RESETSTAT')));
}

/** { port: { role, masterPort, calls } } for every node of `local`. */
async function statsOf(local) {
  const out = {};
  for (const n of local.nodes) out[n.port] = { role: n.role, masterPort: n.masterPort ?? n.port, calls: await commandCalls(n.port) };
  return out;
}

/** Number of distinct cluster slots of item:lo..item:hi, per owning master port. */
async function slotsPerMaster(lo, hi) {
  const owner = await slotOwners(C);
  const slots = new Set();
  for (let id = lo; id <= hi; id++) slots.add(calculateSlot(`item:${id}`));
  const per = {};
  for (const s of slots) per[owner(s)] = (per[owner(s)] ?? 0) + 1;
  return { total: slots.size, per };
}

/** Master port owning a key. */
async function ownerOf(key) {
  return (await slotOwners(C))(calculateSlot(key));
}

/** Waits, when needed, so that at least `ms` remain in the current wall-clock minute. */
async function awayFromMinuteEdge(ms) {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < ms) await sleep(left + 250);
}

/** Runs the producer and, once its first send is at least `leadMs` old, `readers()`; returns both. */
async function together(producer, leadMs, readers) {
  let gotT0;
  const t0 = new Promise((resolve) => {
    gotT0 = resolve;
  });
  const prod = cluWrite({ ...producer, onT0: gotT0 });
  const first = await Promise.race([t0, prod.then((r) => ({ endedEarly: r }))]);
  if (typeof first !== 'number') throw new Error(`the producer ended before its first send: ${describeRun(first.endedEarly)}`);
  await sleep(Math.max(0, first + leadMs - Date.now()));
  const reads = await readers();
  return { prod: await prod, reads };
}

// ---------------------------------------------------------------- tests

describe('producer and consumer together (cluster)', () => {
  it('R x T: -q 6000 -p 3000 -c 30 --ttl 2 (R = 2000/s): about 4000 live items per cycle, every value its own; --limit 1000 the newest 1000', async () => {
    // the producer writes until well after the readers end: a reader slow to start on a busy host
    // (5.7 s in a CI run) must not read its last cycles after the writes stopped, the live items expiring
    const {
      prod,
      reads: [full, newest],
    } = await together({ q: 6000, d: 12, ttl: 2, extra: ['-p', '3000', '-c', '30'] }, 1500, () =>
      Promise.all([cluRead({ ttl: 2 }), cluRead({ ttl: 2, extra: ['--limit', '1000'] })]),
    );
    expectProducerOk(prod);
    expect(
      prod.summary.achieved.itemsPerSec,
      `the producer held its rate (else R x T means nothing): ${describeRun(prod)}`,
    ).toBeGreaterThan(1800);

    expectCleanRun(full);
    expectAccounted(full);
    const pc = full.summary.perCycle;
    // R is the rate the producer achieved, not the one asked: a producer starved on a busy host that
    // wrote 1,850 a second leaves 3,700 live, and the reader is right to count that
    const rt = prod.summary.achieved.itemsPerSec * 2;
    expect(pc.items, `live items ≈ R x T = ${Math.round(rt)}: ${describeConsumer(full)}`).toBeGreaterThanOrEqual(0.85 * rt);
    expect(pc.items, describeConsumer(full)).toBeLessThanOrEqual(1.15 * rt);
    // ZCARD counts every id written (6000 after one period) until the 10 s purge: never fewer than the live ones
    expect(pc.cardinality, describeConsumer(full)).toBeGreaterThanOrEqual(pc.items);
    expect(pc.cardinality, describeConsumer(full)).toBeLessThanOrEqual(6000);
    expect(full.summary.totals.fetched, describeConsumer(full)).toBeGreaterThan(0);
    // the producer writes every 100 ms: the newest score is never far behind
    expect(full.summary.latency.staleness.sent.p50, describeConsumer(full)).toBeLessThan(1000);
    expect(full.summary.latency.staleness.sent.p50, describeConsumer(full)).toBeGreaterThanOrEqual(0);

    expectCleanRun(newest);
    expectAccounted(newest);
    expect(newest.summary.totals.items, `exactly 1000 per cycle: ${describeConsumer(newest)}`).toBe(1000 * newest.summary.totals.cycles);
    expect(newest.summary.perCycle.items).toBe(1000);
    // the newest 1000 were written in the last 0.5 s of a 2 s TTL: none can have expired
    expect(newest.summary.totals.missing, describeConsumer(newest)).toBe(0);
  }, 40_000);

  it('-p 1000 --ttl 3 -q 5000: cardinality 5000 and 5000 items every cycle, every value fetched and its own', async () => {
    // as above, the writes go on well after the reader ends: a reader 6 s slow to start on a busy
    // host (8 s in a suite run) read its last cycles after a 7 s producer had stopped (0 or 2,500 items a cycle, not 5,000)
    const {
      prod,
      reads: [r],
    } = await together({ q: 5000, d: 16, ttl: 3, extra: ['-p', '1000'] }, 1500, () => Promise.all([cluRead({ ttl: 3 })]));
    expectProducerOk(prod);
    expectCleanRun(r);
    expectAccounted(r);
    const { perCycle, totals } = r.summary;
    expect(perCycle.cardinality, describeConsumer(r)).toBe(5000);
    expect(perCycle.items, describeConsumer(r)).toBe(5000);
    expect(totals.items, describeConsumer(r)).toBe(5000 * totals.cycles);
    expect(totals.cardinality, describeConsumer(r)).toBe(5000 * totals.cycles);
    // rewritten every second with a 3 s TTL: nothing expires between range and fetch
    expect(totals.fetched, describeConsumer(r)).toBe(totals.items);
  }, 40_000);
});

describe('--limit N: the newest N', () => {
  /**
   * A fixed data set: in `latest-ids` (ns 1) and in `latest-ids:0..2` (ns 3), 3000 old members
   * without item keys, and 1000 newer members item:100001..101000 whose keys hold their payloads.
   * In the ns 3 sets the newer ones are split 600/300/100, interleaved in time. The newest 1000
   * are therefore exactly the ones with keys: a reader that takes any other member finds it missing.
   */
  async function fill() {
    const now = Date.now();
    const old = Array.from({ length: 3000 }, (_, i) => ({ id: i + 1, score: now - 50_000 + i }));
    const fresh = Array.from({ length: 1000 }, (_, k) => ({
      id: 100_001 + k,
      score: now - 10_000 + 3 * k,
      set: k % 10 < 6 ? 0 : k % 10 < 9 ? 1 : 2,
    }));
    const zadd = (key, items) => C.zadd(key, ...items.flatMap((x) => [x.score, `item:${x.id}`]));
    await zadd('latest-ids', [...old, ...fresh]);
    for (let n = 0; n < 3; n++) await zadd(`latest-ids:${n}`, [...old.filter((x) => x.id % 3 === n), ...fresh.filter((x) => x.set === n)]);
    await Promise.all(fresh.map((x) => C.set(`item:${x.id}`, payload(x.id, 128))));
    await replicasInSync(clu);
    const newestFirst = [...fresh].sort((a, b) => b.score - a.score).map((x) => `item:${x.id}`);
    return { now, old, fresh, newestFirst };
  }

  const io = () => ({ call: (key, args) => C.call(String(args[0]), ...args.slice(1)) });
  const cfg = (ns) => ({ ns, sameSlot: false, extraSets: 0, actualValue: false, cluster: true, ttl: 60, valueSize: 128, listMax: 0 });

  it('the read model: range(io, cutoff, 1000) returns the 1000 highest scores, newest first, from one set and from three', async () => {
    const { now, fresh, newestFirst } = await fill();
    const cutoff = now - 60_000;
    for (const ns of [1, 3]) {
      const model = createZsetReadModel(cfg(ns));
      expect(model.names, 'the sets it reads').toEqual(ns === 1 ? ['latest-ids'] : ['latest-ids:0', 'latest-ids:1', 'latest-ids:2']);
      const got = await model.range(io(), cutoff, 1000);
      expect(got.length, `ns ${ns}`).toBe(1000);
      expect(got, `ns ${ns}: the newest 1000, newest first`).toEqual(newestFirst);
      // a limit above the live count: only what is live, still newest first
      const recent = await model.range(io(), now - 20_000, 5000);
      expect(recent, `ns ${ns}: the cutoff bounds a limited range`).toEqual(newestFirst);
      // no limit: every live member (any order)
      const all = await model.range(io(), now - 20_000, 0);
      expect([...all].sort(), `ns ${ns}: limit 0 returns every live member`).toEqual(fresh.map((x) => `item:${x.id}`).sort());
      const card = await model.cardinality(io());
      expect(card.count, `ns ${ns}: cardinality`).toBe(4000);
      expect(card.newest, `ns ${ns}: newest score`).toBe(fresh[fresh.length - 1].score);
    }
  }, 30_000);

  it('the CLI: --limit 1000 reads exactly the newest 1000 (all have keys), with one set and with --ns 3', async () => {
    await fill();
    const [one, three] = await Promise.all([
      cluRead({ ttl: 60, d: 2, extra: ['--limit', '1000'] }),
      cluRead({ ttl: 60, d: 2, extra: ['--limit', '1000', '--ns', '3'] }),
    ]);
    for (const r of [one, three]) {
      expectCleanRun(r);
      expectAccounted(r);
      expect(r.summary.perCycle.cardinality, describeConsumer(r)).toBe(4000);
      expect(r.summary.perCycle.items, describeConsumer(r)).toBe(1000);
      // older members have no keys: a single missing value means a non-newest member was read
      expect(r.summary.perCycle.missing, `only the newest 1000 were read: ${describeConsumer(r)}`).toBe(0);
      expect(r.summary.perCycle.fetched, describeConsumer(r)).toBe(1000);
    }
  }, 30_000);

  it('-s script --limit 1000 also returns the newest 1000, with one set and with --ns 3 (model and CLI)', async () => {
    const { now, newestFirst } = await fill();
    for (const ns of [1, 3]) {
      const model = createZsetReadModel(cfg(ns));
      await Promise.all(mastersOf(C).map((m) => m.script('LOAD', model.scripts[0].lua)));
    }
    const [one, three] = await Promise.all([
      cluRead({ ttl: 60, d: 2, extra: ['-s', 'script', '--limit', '1000'] }),
      cluRead({ ttl: 60, d: 2, extra: ['-s', 'script', '--limit', '1000', '--ns', '3'] }),
    ]);
    for (const r of [one, three]) {
      expectCleanRun(r);
      expectAccounted(r);
      expect(r.summary.perCycle.cardinality, describeConsumer(r)).toBe(4000);
      expect(r.summary.perCycle.items, describeConsumer(r)).toBe(1000);
    }
    expect(one.summary.perCycle.missing, describeConsumer(one)).toBe(0);
    const viaScript = async (ns) => (await createZsetReadModel(cfg(ns)).viaScript(io(), now - 60_000, 1000)).members;
    expect(await viaScript(1), 'ns 1: viaScript returns the newest 1000, newest first').toEqual(newestFirst);
    // older members have no keys: every missing value is an older member read instead of a newer one
    expect.soft(three.summary.perCycle.missing, `--ns 3 -s script read only the newest 1000: ${describeConsumer(three)}`).toBe(0);
    const three3 = await viaScript(3);
    expect
      .soft(three3.filter((m) => !newestFirst.includes(m)).length, 'ns 3: members viaScript returned that are not among the newest 1000')
      .toBe(0);
    expect(three3, 'ns 3: viaScript returns the newest 1000 across the three sets, newest first').toEqual(newestFirst);
  }, 30_000);
});

describe('where reads go (INFO commandstats on every node)', () => {
  it('cluster: replicas by default (READONLY), masters with --read-from master; one MGET per slot', async () => {
    const Q = 20_000;
    expectProducerOk(await cluWrite({ q: Q, d: 1, ttl: 60 }));
    await replicasInSync(clu);
    const slots = await slotsPerMaster(1, Q);
    const zsetOwner = await ownerOf('latest-ids');

    const check = async (readFrom) => {
      await resetStats(clu);
      const r = await cluRead({ ttl: 60, extra: ['-p', '200', ...(readFrom === 'master' ? ['--read-from', 'master'] : [])] });
      expectCleanRun(r);
      expectAccounted(r);
      const stats = await statsOf(clu);
      const why = `${describeConsumer(r)}\ncommandstats: ${JSON.stringify(stats)}`;
      const cycles = r.summary.totals.cycles;
      expect(r.summary.readFrom, why).toBe(readFrom);
      expect(r.summary.perCycle.items, why).toBe(Q);
      expect(r.summary.totals.fetched, why).toBe(Q * cycles);
      const reading = readFrom === 'master' ? 'master' : 'replica';
      for (const [port, n] of Object.entries(stats)) {
        const label = `${n.role} ${port} (shard of master ${n.masterPort})`;
        if (n.role !== reading) {
          for (const cmd of ['mget', 'get', 'zrangebyscore', 'zrevrangebyscore', 'zcard', 'zrevrange']) {
            expect(n.calls[cmd] ?? 0, `${label}: no ${cmd} when reading from the ${readFrom}: ${why}`).toBe(0);
          }
          continue;
        }
        // one MGET per slot per cycle, on the node serving the slot
        expect(n.calls.mget ?? 0, `${label}: MGETs: ${why}`).toBe((slots.per[n.masterPort] ?? 0) * cycles);
        const holdsZset = n.masterPort === zsetOwner;
        expect(n.calls.zrangebyscore ?? 0, `${label}: ZRANGEBYSCORE: ${why}`).toBe(holdsZset ? cycles : 0);
        expect(n.calls.zcard ?? 0, `${label}: ZCARD: ${why}`).toBe(holdsZset ? cycles : 0);
      }
      // the reading role works, the other idles (per shard, from the summary's own CPU samples)
      for (const node of r.summary.cpu.nodes.filter((x) => x.role === reading)) {
        const other = r.summary.cpu.nodes.find((x) => x.shard === node.shard && x.role !== reading);
        expect(
          node.avg,
          `CPU of the ${reading} of shard ${node.shard} above its ${other.role}'s: ${JSON.stringify(r.summary.cpu.nodes)}`,
        ).toBeGreaterThan(other.avg);
      }
    };
    await check('replica');
    await check('master');
  }, 60_000);

  it('standalone with a replica: the master by default, the replica with --read-from replica (via --url)', async () => {
    expectProducerOk(await produce({ port: std.port, q: 3000, d: 1, ttl: 60 }));
    await replicasInSync(std);
    const [master, replica] = std.nodes;
    for (const readFrom of ['master', 'replica']) {
      await resetStats(std);
      const r = await consume({
        url: `redis://127.0.0.1:${std.port}`,
        ttl: 60,
        d: 2,
        extra: readFrom === 'replica' ? ['--read-from', 'replica'] : [],
      });
      expectCleanRun(r);
      expectAccounted(r);
      const stats = await statsOf(std);
      const why = `${describeConsumer(r)}\ncommandstats: ${JSON.stringify(stats)}`;
      const cycles = r.summary.totals.cycles;
      expect(r.summary.readFrom, why).toBe(readFrom);
      expect(r.summary.perCycle.items, why).toBe(3000);
      expect(r.summary.totals.fetched, why).toBe(3000 * cycles);
      const [reader, idle] = readFrom === 'master' ? [master, replica] : [replica, master];
      expect(stats[reader.port].calls.zrangebyscore ?? 0, why).toBe(cycles);
      expect(stats[reader.port].calls.zcard ?? 0, why).toBe(cycles);
      expect(stats[reader.port].calls.mget ?? 0, `MGETs of up to 1000 keys: ${why}`).toBe(3 * cycles);
      for (const cmd of ['mget', 'zrangebyscore', 'zcard', 'get'])
        expect(stats[idle.port].calls[cmd] ?? 0, `${idle.role}: no ${cmd}: ${why}`).toBe(0);
    }
  }, 40_000);
});

describe('every data model the producer has, read back on the cluster', () => {
  const Q = 500;
  /**
   * [name, flags for both producer and consumer, store mode, extra checks]. The producer writes
   * one period (-d 1, every id once) with a long TTL, then the consumer reads the fixed data set.
   */
  const MODES = [
    ['default', [], 'zset'],
    ['--actual-value', ['--actual-value'], 'zset'],
    ['--ns 4', ['--ns', '4'], 'zset'],
    ['--ns 4 --same-slot', ['--ns', '4', '--same-slot'], 'zset'],
    ['--sl', ['--sl'], 'list'],
    ['--slh', ['--slh'], 'list-hll'],
    ['--ss', ['--ss'], 'set-per-minute'],
    ['--ws', ['--ws'], 'lua-batch'],
    ['--sk', ['--sk'], 'lua-item'],
  ];

  for (const [name, flags, mode] of MODES) {
    it(`${name}: every item read, fetched once, matching its key`, async () => {
      const perMinute = mode === 'list-hll' || mode === 'set-per-minute';
      // per-minute structures: write and read within one minute
      if (perMinute) await awayFromMinuteEdge(12_000);
      expectProducerOk(await cluWrite({ q: Q, d: 1, ttl: 30, extra: flags }));
      // the previous minute's unique count, seeded by hand: what the consumer must report
      let seededUniques = null;
      if (mode === 'list-hll') {
        seededUniques = 300;
        await C.pfadd(`latest-hll:${minuteOf(Date.now()) - 1}`, ...Array.from({ length: seededUniques }, (_, i) => `item:${i + 1}`));
      }
      if (mode === 'set-per-minute') {
        seededUniques = 250;
        await C.sadd(`latest-set:${minuteOf(Date.now()) - 1}`, ...Array.from({ length: seededUniques }, (_, i) => `item:${i + 1}`));
      }
      if (mode === 'lua-item' || mode === 'lua-batch') {
        // on a cluster the Lua modes tag item keys with their set's slot
        expect((await scanKeys(C, 'item:{latest-ids}:*')).length, 'item:{latest-ids}:<id> keys').toBe(Q);
      }
      await replicasInSync(clu);
      const r = await cluRead({ ttl: 30, d: 1, warmup: 0, extra: flags });
      expectCleanRun(r);
      expectAccounted(r);
      const { perCycle, totals, latency } = r.summary;
      const why = describeConsumer(r);
      expect(r.summary.mode, why).toBe(mode);
      expect(r.summary.readFrom, why).toBe('replica');
      expect(perCycle.items, why).toBeGreaterThan(0);
      expect(perCycle.items, `every item of the one period written: ${why}`).toBe(Q);
      expect(perCycle.cardinality, why).toBe(Q);
      expect(totals.fetched, `every value there (long TTL): ${why}`).toBe(totals.items);
      expect(totals.missing, why).toBe(0);
      if (flags.includes('--actual-value')) expect(latency.values?.sent?.count ?? 0, 'values are the members: nothing fetched').toBe(0);
      else expect(latency.values?.sent?.count ?? 0, `a values phase per cycle in the window: ${why}`).toBe(r.summary.cycles.count);
      if (mode === 'list-hll') {
        // PFCOUNT of the previous minute's HyperLogLog (standard error 0.81%)
        expect(typeof perCycle.uniques, why).toBe('number');
        expect(Math.abs(perCycle.uniques - seededUniques), `PFCOUNT of latest-hll:<minute - 1>: ${why}`).toBeLessThanOrEqual(
          seededUniques * 0.03,
        );
      } else if (mode === 'set-per-minute') {
        expect(perCycle.uniques, `SCARD of latest-set:<minute - 1>: ${why}`).toBe(seededUniques);
      } else {
        expect(perCycle.uniques, `no unique count in this model: ${why}`).toBeNull();
      }
    }, 40_000);
  }

  it('-s script: the same cardinality and items as manual mode on the same data', async () => {
    expectProducerOk(await cluWrite({ q: Q, d: 1, ttl: 30 }));
    await replicasInSync(clu);
    const [manual, script] = await Promise.all([cluRead({ ttl: 30, d: 2 }), cluRead({ ttl: 30, d: 2, extra: ['-s', 'script'] })]);
    for (const r of [manual, script]) {
      expectCleanRun(r);
      expectAccounted(r);
      expect(r.summary.perCycle.items, describeConsumer(r)).toBe(Q);
      expect(r.summary.totals.fetched, describeConsumer(r)).toBe(r.summary.totals.items);
    }
    expect(script.summary.perCycle.cardinality).toBe(manual.summary.perCycle.cardinality);
    expect(script.summary.perCycle.items).toBe(manual.summary.perCycle.items);
    expect(script.summary.perCycle.fetched).toBe(manual.summary.perCycle.fetched);
    // one Lua call does cardinality and range: no separate cardinality phase
    expect(script.summary.latency.card?.sent?.count ?? 0).toBe(0);
    expect(manual.summary.latency.card.sent.count).toBe(manual.summary.cycles.count);
  }, 40_000);

  it('an empty database: zero items, no errors; --slh and --ss report a unique count of 0 (a number), not null', async () => {
    await awayFromMinuteEdge(8000);
    // 2 s measured (not 1): three readers start at once on a loaded machine, and a window of one
    // second could end before its only cycle did
    const [zset, slh, ss] = await Promise.all([cluRead({ d: 3 }), cluRead({ d: 3, extra: ['--slh'] }), cluRead({ d: 3, extra: ['--ss'] })]);
    for (const r of [zset, slh, ss]) {
      expectCleanRun(r);
      expectAccounted(r);
      expect(r.summary.perCycle.items, describeConsumer(r)).toBe(0);
      expect(r.summary.perCycle.cardinality, describeConsumer(r)).toBe(0);
    }
    // an empty index is not an error, but it is suspicious: said once, and in the summary
    for (const r of [zset, slh, ss]) {
      expect((r.stderr.match(/warning: .*found the index empty/g) ?? []).length, describeConsumer(r)).toBeLessThanOrEqual(1);
      expect(r.summary.warnings?.[0], describeConsumer(r)).toMatch(
        /^every cycle found the index empty or missing \(.+ on redis:\/\/127\.0\.0\.1:\d+, data model/,
      );
      expect(r.summary.verdict).toMatch(/every cycle found the index empty/);
    }
    // a model that measures unique counts measured 0: "0", not "not measured"
    expect(slh.summary.perCycle.uniques, `--slh, empty previous minute: ${describeConsumer(slh)}`).toBe(0);
    expect(ss.summary.perCycle.uniques, `--ss, empty previous minute: ${describeConsumer(ss)}`).toBe(0);
  }, 30_000);
});

describe('fetching values', () => {
  it('--fetch get and --fetch pipeline return what mget returns, all from the replicas', async () => {
    const Q = 3000;
    expectProducerOk(await cluWrite({ q: Q, d: 1, ttl: 60 }));
    await replicasInSync(clu);
    const slots = await slotsPerMaster(1, Q);
    await resetStats(clu);
    const [mget, pipeline, get] = await Promise.all(
      ['mget', 'pipeline', 'get'].map((f) => cluRead({ ttl: 60, d: 2, extra: ['--fetch', f] })),
    );
    const stats = await statsOf(clu);
    for (const r of [mget, pipeline, get]) {
      expectCleanRun(r);
      expectAccounted(r);
      expect(r.summary.perCycle.items, describeConsumer(r)).toBe(Q);
      expect(r.summary.perCycle.fetched, describeConsumer(r)).toBe(Q);
      expect(r.summary.totals.missing, describeConsumer(r)).toBe(0);
    }
    expect(mget.summary.fetch).toBe('mget');
    expect(pipeline.summary.fetch).toBe('pipeline');
    expect(get.summary.fetch).toBe('get');
    const why = `commandstats: ${JSON.stringify(stats)}`;
    const sum = (role, cmd) =>
      Object.values(stats)
        .filter((n) => n.role === role)
        .reduce((a, n) => a + (n.calls[cmd] ?? 0), 0);
    // mget: one MGET per slot per cycle; get and pipeline: one GET per item per cycle; all on replicas
    expect(sum('replica', 'mget'), why).toBe(slots.total * mget.summary.totals.cycles);
    expect(sum('replica', 'get'), why).toBe(Q * (pipeline.summary.totals.cycles + get.summary.totals.cycles));
    expect(sum('master', 'mget') + sum('master', 'get'), why).toBe(0);
  }, 40_000);

  it('values that expired after the range are counted as missing, never dropped, with every fetch mode', async () => {
    const p = await cluWrite({ q: 2000, d: 1, ttl: 1 });
    expectProducerOk(p);
    // the item keys expire after 1 s; the sorted set keeps its members until the producer's 10 s purge
    await sleep(Math.max(0, p.finishedAt + 1500 - Date.now()));
    expect(await scanKeys(C, 'item:*'), 'item keys expired').toEqual([]);
    expect(await C.zcard('latest-ids')).toBe(2000);
    await replicasInSync(clu);
    const runs = await Promise.all(['mget', 'pipeline', 'get'].map((f) => cluRead({ ttl: 60, d: 2, extra: ['--fetch', f] })));
    for (const r of runs) {
      expectCleanRun(r);
      expectAccounted(r);
      const { perCycle, totals } = r.summary;
      expect(perCycle.items, describeConsumer(r)).toBe(2000);
      expect(totals.missing, describeConsumer(r)).toBe(totals.items);
      expect(totals.fetched, describeConsumer(r)).toBe(0);
      // the consumer was told --ttl 60, the keys had 1 s: expiry during a cycle cannot explain
      // every value missing, and the summary says what can
      expect(r.summary.verdict, describeConsumer(r)).toMatch(
        /2000 items per cycle missing: more than expiry explains with --ttl 60 .*their keys expire sooner than --ttl says/,
      );
    }
  }, 30_000);
});

describe('counting what a cycle could not do cleanly', () => {
  it('an id listed twice (--sl, two periods written) is fetched twice and counted as a duplicate', async () => {
    // -d 2: two sends of ids 1..300; the list keeps both (list-max = q x ttl / period = 9000)
    expectProducerOk(await cluWrite({ q: 300, d: 2, ttl: 30, extra: ['--sl'] }));
    await replicasInSync(clu);
    const r = await cluRead({ ttl: 30, d: 2, extra: ['--sl'] });
    expectCleanRun(r);
    const { perCycle, totals } = r.summary;
    const why = describeConsumer(r);
    expect(perCycle.items, why).toBe(600);
    expect(perCycle.fetched, why).toBe(600);
    expect(perCycle.duplicates, why).toBe(300);
    expect(totals.mismatched, why).toBe(0);
    expect(totals.fetched + totals.missing, why).toBe(totals.items);
  }, 30_000);

  it("a value that is not its key's item counts as mismatched, with every fetch mode", async () => {
    // item:1..100 in the sorted set; item:7 holds item 8's payload, item:9 holds no payload at all
    const now = Date.now();
    await C.zadd('latest-ids', ...Array.from({ length: 100 }, (_, i) => [now - 1000 + i, `item:${i + 1}`]).flat());
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => i + 1).map((id) =>
        C.set(`item:${id}`, id === 7 ? payload(8, 128) : id === 9 ? 'not-a-payload' : payload(id, 128)),
      ),
    );
    await replicasInSync(clu);
    const runs = await Promise.all(['mget', 'pipeline', 'get'].map((f) => cluRead({ ttl: 60, d: 2, extra: ['--fetch', f] })));
    for (const r of runs) {
      expectCleanRun(r);
      const { perCycle, totals } = r.summary;
      expect(perCycle.items, describeConsumer(r)).toBe(100);
      expect(perCycle.fetched, describeConsumer(r)).toBe(100);
      expect(perCycle.mismatched, describeConsumer(r)).toBe(2);
      expect(totals.mismatched, describeConsumer(r)).toBe(2 * totals.cycles);
      expect(r.summary.verdict, describeConsumer(r)).toMatch(/did not match/);
    }
  }, 30_000);

  it('cycles longer than the period are overruns: counted, late, measured from their intended start; the run still ends at --duration', async () => {
    const Q = 20_000;
    expectProducerOk(await cluWrite({ q: Q, d: 1, ttl: 60 }));
    await replicasInSync(clu);
    // 20k items take tens of ms a cycle (20-180 ms here, depending on the machine's load): a 5 ms period cannot be kept
    const r = await cluRead({ ttl: 60, d: 2, extra: ['-p', '5'] });
    expectCleanRun(r);
    expectAccounted(r);
    const { cycles, latency, totals } = r.summary;
    const why = describeConsumer(r);
    expect(cycles.expected, why).toBe(200);
    expect(cycles.count, `cycles run back to back, fewer than scheduled: ${why}`).toBeLessThan(cycles.expected);
    expect(cycles.overruns, why).toBeGreaterThan(0);
    expect(cycles.overruns, why).toBeLessThanOrEqual(cycles.count);
    expect(totals.items, `every cycle that ran read everything: ${why}`).toBe(Q * totals.cycles);
    // from the intended start, the lateness accumulates; from the actual start, it does not
    expect(latency.cycle.intended.p99, why).toBeGreaterThan(latency.cycle.sent.p99);
    expect(r.summary.verdict, why).toMatch(/overran/);
    // -d 2: no cycle starts after second 2, however late the schedule is
    const rows = fs.readFileSync(path.join(r.dir, 'timeline.csv'), 'utf8').trim().split('\n').slice(1);
    const lastSecond = Math.max(...rows.map((row) => Number(row.split(',')[0])));
    expect(
      lastSecond,
      `timeline seconds 0..${lastSecond} for a 2 s run (${totals.cycles} cycles run, 400 scheduled in 2 s): ${why}`,
    ).toBeLessThanOrEqual(2);
  }, 40_000);
});

describe('readers and the run directory', () => {
  it('rqbench consume --readers 3 -p 500: every reader cycles on schedule, all counted; the seed table and the run files', async () => {
    const Q = 2000;
    expectProducerOk(await cluWrite({ q: Q, d: 1, ttl: 60 }));
    await replicasInSync(clu);
    const r = await cluRead({ cli: true, ttl: 60, d: 3, extra: ['--readers', '3', '-p', '500'] });
    expectCleanRun(r);
    expectAccounted(r);
    const s = r.summary;
    const why = describeConsumer(r);
    // 3 readers x 3 s x 2 per second, every one of them finished and counted
    expect(s.totals.cycles, why).toBe(18);
    expect(s.totals.items, why).toBe(18 * Q);
    expect(s.totals.fetched, why).toBe(18 * Q);
    // in the 2 s window after the warm-up: 3 x 2 x 2 = 12
    expect(s.cycles.expected, why).toBe(12);
    expect(Math.abs(s.cycles.count - 12), why).toBeLessThanOrEqual(3);
    expect(s.readers, why).toBe(3);

    expect(r.dir, `one run directory under --out: ${listTree(r.out)}`).not.toBeNull();
    const files = fs.readdirSync(r.dir);
    for (const f of ['manifest.json', 'summary.json', 'summary.md', 'timeline.csv', 'cycle.hlog', 'values.hlog'])
      expect(files, f).toContain(f);
    const manifest = JSON.parse(fs.readFileSync(path.join(r.dir, 'manifest.json'), 'utf8'));
    expect(manifest.command).toBe('consume');
    expect(manifest.readers).toEqual([1, 2, 3]);
    expect(JSON.parse(fs.readFileSync(path.join(r.dir, 'summary.json'), 'utf8'))).toEqual(s);
    const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
    expect(md).toContain('| Cardinality | Responses received | Batch processed p50 ms | Batch processed p99 ms |');
    // the table's row: cardinality and responses per cycle in the seed's words
    expect(md).toMatch(new RegExp(`\\|\\s*2,?000\\s*\\|\\s*2,?000\\s*\\|`));
    // every cycle is in the histograms and the timeline, none lost
    expect(mergeHlogFiles([path.join(r.dir, 'cycle.hlog')], { tag: 'sent' }).totalCount).toBe(18);
    expect(mergeHlogFiles([path.join(r.dir, 'values.hlog')], { tag: 'sent' }).totalCount).toBe(18);
    const [head, ...rows] = fs.readFileSync(path.join(r.dir, 'timeline.csv'), 'utf8').trim().split('\n');
    const col = head.split(',').indexOf('cycles');
    expect(col).toBeGreaterThan(0);
    expect(rows.reduce((a, row) => a + Number(row.split(',')[col]), 0)).toBe(18);
    // Redis CPU of every node, with its role
    expect(s.cpu.nodes.map((n) => n.role).sort()).toEqual(['master', 'master', 'master', 'replica', 'replica', 'replica']);
  }, 40_000);
});

describe('--local', () => {
  it('--local -d 2: reads a throwaway standalone Redis it starts and stops itself', async () => {
    const out = tempDir('rqbench-consume-local-');
    const r = await runNode([CONSUMER, '--local', '-d', '2', '--out', out, '--json', '--quiet'], { timeoutMs: 40_000 });
    expect(r.code, describeRun(r)).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.perCycle.items).toBe(0);
    expect(s.totals.errors).toBe(0);
    expect(s.readFrom).toBe('master');
    const [dir] = fs.readdirSync(out);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, dir, 'manifest.json'), 'utf8'));
    const port = Number(/:(\d+)$/.exec(manifest.target)?.[1]);
    expect(port, manifest.target).toBeGreaterThan(0);
    expect(manifest.description).toMatch(/local/);
    // stopped with the run: nothing listens there any more
    expect(await isPortFree(port), `port ${port} of the local server is free again`).toBe(true);
  }, 45_000);
});
