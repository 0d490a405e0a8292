// The two data models added as one file each in src/workloads/items/stores/models/: `hash` (the seed's parent
// experiment, "sorted set and hash") and `stream` (a Redis Stream as the time-ordered index).
// Real servers: one standalone and one 3x1 cluster for the file. The producer and the consumer
// run as child processes; what Redis holds is read with separate ioredis clients. The registry and
// what a model cannot do: test/unit/model-flags.test.js.
import calculateSlot from 'cluster-key-slot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { payloadId } from '../../src/workloads/items/stores/payload.js';
import { modelNamed } from '../../src/workloads/items/stores/registry.js';
import { describeRun, produce, removeTempDirs } from '../helpers/producer-run.js';
import { consume, describeConsumer } from '../helpers/consumer-run.js';
import { clusterClient, flushAll, scanKeys, standaloneClient } from '../helpers/redis-check.js';

/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let std;
/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let clu;
/** @type {import('ioredis').Redis} */ let S;
/** @type {import('ioredis').Cluster} */ let C;

beforeAll(async () => {
  const started = await Promise.allSettled([startRedis(), startRedis({ cluster: true })]);
  const ok = started.filter((s) => s.status === 'fulfilled').map((s) => /** @type {any} */ (s).value);
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(ok.map((s) => s.stop()));
    throw /** @type {any} */ (failed).reason;
  }
  [std, clu] = ok;
  [S, C] = await Promise.all([standaloneClient(std.port), clusterClient(clu.port)]);
}, 60_000);

afterAll(async () => {
  S?.disconnect();
  C?.disconnect();
  await Promise.all([std?.stop(), clu?.stop()]);
  removeTempDirs();
}, 60_000);

beforeEach(async () => {
  if (S) await Promise.all([flushAll(S), flushAll(C)]);
});

/** A producer and a consumer started together; the consumer starts 1 s into the producer's run. */
async function produceAndConsume(p, c) {
  const writing = produce(p);
  await new Promise((r) => setTimeout(r, 1000));
  const reading = consume(c);
  return Promise.all([writing, reading]);
}

function expectProducerOk(p) {
  expect(p.code, describeRun(p)).toBe(0);
  expect(p.summary.totals.failed, describeRun(p)).toBe(0);
  expect(p.summary.totals.acked, describeRun(p)).toBe(p.summary.totals.intended);
}

/** Exit 0, cycles read something, every item fetched, none missing, duplicated or mismatched. */
function expectCleanRead(r) {
  const why = describeConsumer(r);
  expect(r.code, why).toBe(0);
  const t = r.summary.totals;
  expect(t.errors, why).toBe(0);
  expect(t.items, why).toBeGreaterThan(0);
  expect(t.fetched, why).toBe(t.items);
  expect(t.missing, why).toBe(0);
  expect(t.mismatched, why).toBe(0);
  expect(t.duplicates, why).toBe(0);
}

describe('hash: item fields in a hash (HSET + EXPIRE), ids in the sorted set', () => {
  it('standalone: every item is a hash with its id and payload and a TTL; --verify reads them all back; the consumer reads them (manual, --limit, -s script, --fetch get)', async () => {
    const ttl = 70;
    const [p, all] = await produceAndConsume(
      { port: std.port, q: 2000, d: 5, ttl, extra: ['--hash', '--verify'] },
      { port: std.port, ttl: 3, d: 3, warmup: 0, extra: ['--hash'] },
    );
    expectProducerOk(p);
    expect(p.summary.mode).toBe('hash');
    expect(p.summary.verify, describeRun(p)).toMatchObject({ acked: 10_000, present: 10_000, lost: 0, mismatched: 0 });
    expectCleanRead(all);
    expect(all.summary.mode).toBe('hash');
    // what Redis holds: hashes with fields id and v, a TTL each, and their keys in latest-ids
    const keys = await scanKeys(S, 'item:*');
    expect(keys).toHaveLength(10_000);
    for (const key of keys.slice(0, 50)) {
      expect(await S.type(key)).toBe('hash');
      const h = await S.hgetall(key);
      const id = Number(key.slice('item:'.length));
      expect(Number(h.id)).toBe(id);
      expect(payloadId(h.v)).toBe(id);
      const left = await S.ttl(key);
      expect(left).toBeGreaterThan(ttl - 20);
      expect(left).toBeLessThanOrEqual(ttl);
    }
    expect(await S.zcard('latest-ids')).toBe(10_000);
    // the histograms name the commands the model sends
    expect(Object.keys(p.summary.latency)).toEqual(expect.arrayContaining(['hset', 'expire', 'zadd']));

    // the newest 100, by the script and through ioredis, read what is there (the run is over: a long window)
    for (const extra of [
      ['--limit', '100'],
      ['-s', 'script'],
      ['--fetch', 'get', '--limit', '100'],
      ['--fetch', 'pipeline'],
    ]) {
      const r = await consume({ port: std.port, ttl: 60, d: 1, warmup: 0, extra: ['--hash', ...extra] });
      expectCleanRead(r);
      if (extra.includes('--limit')) expect(r.summary.perCycle.items, describeConsumer(r)).toBe(100);
      else expect(r.summary.perCycle.items, describeConsumer(r)).toBe(10_000);
    }
  }, 90_000);

  it('cluster --ns 4 --same-slot: the four sorted sets share one slot, hashes spread over the shards, reads from the masters are complete', async () => {
    const [p, r] = await produceAndConsume(
      { port: clu.port, cluster: true, q: 2000, d: 4, ttl: 70, extra: ['--hash', '--ns', '4', '--same-slot', '--verify'] },
      { port: clu.port, cluster: true, ttl: 3, d: 2, warmup: 0, extra: ['--hash', '--ns', '4', '--same-slot', '--read-from', 'master'] },
    );
    expectProducerOk(p);
    expect(p.summary.verify, describeRun(p)).toMatchObject({ acked: 8000, present: 8000, lost: 0 });
    expectCleanRead(r);
    const sets = await scanKeys(C, 'latest-ids*');
    expect(sets.sort()).toEqual([0, 1, 2, 3].map((n) => `latest-ids:${n}{forced-slot}`));
    expect(new Set(sets.map((k) => calculateSlot(k))).size).toBe(1);
    const hashes = await scanKeys(C, 'item:*');
    expect(hashes).toHaveLength(8000);
    const types = new Set(await Promise.all(hashes.slice(0, 300).map((k) => C.type(k))));
    expect([...types]).toEqual(['hash']);
    // a fresh local 3x1 cluster gives each master a third of the slots: the hashes use all three
    expect(new Set(hashes.map((k) => Math.floor(calculateSlot(k) / 5462))).size).toBe(3);
  }, 90_000);
});

describe('stream: one entry per item (XADD), trimmed to the TTL window with MINID ~', () => {
  it('standalone: XLEN counts every item, entries name their item keys, --verify and the consumer (all, --limit, --fetch get) read everything', async () => {
    const [p, r] = await produceAndConsume(
      { port: std.port, q: 2000, d: 4, ttl: 70, extra: ['--stream', '--verify'] },
      { port: std.port, ttl: 3, d: 2, warmup: 0, extra: ['--stream'] },
    );
    expectProducerOk(p);
    expect(p.summary.mode).toBe('stream');
    expect(p.summary.verify, describeRun(p)).toMatchObject({ acked: 8000, present: 8000, lost: 0 });
    expectCleanRead(r);
    expect(r.summary.mode).toBe('stream');
    expect(await S.xlen('latest-stream')).toBe(8000);
    const first = await S.xrange('latest-stream', '-', '+', 'COUNT', 5);
    for (const [id, fields] of first) {
      expect(id).toMatch(/^\d{13}-\d+$/);
      expect(fields[0]).toBe('m');
      expect(fields[1]).toMatch(/^item:\d+$/);
    }
    expect(Object.keys(p.summary.latency)).toEqual(expect.arrayContaining(['xadd', 'setex']));
    for (const extra of [['--limit', '100'], ['--fetch', 'get', '--limit', '100'], []]) {
      const all = await consume({ port: std.port, ttl: 60, d: 1, warmup: 0, extra: ['--stream', ...extra] });
      expectCleanRead(all);
      expect(all.summary.perCycle.items, describeConsumer(all)).toBe(extra.length ? 100 : 8000);
      expect(all.summary.perCycle.cardinality, describeConsumer(all)).toBe(8000);
    }
  }, 90_000);

  it('the purge trims entries older than the TTL with XTRIM MINID ~ (whole macro nodes: at most one node of 100 left)', async () => {
    // 500 entries from 1970: five full macro nodes (stream-node-max-entries 100) before the run
    const pipe = S.pipeline();
    for (let i = 1; i <= 500; i++) pipe.xadd('latest-stream', `${i}-0`, 'm', `stale:${i}`);
    await pipe.exec();
    const p = await produce({ port: std.port, q: 500, d: 2, ttl: 30, extra: ['--stream'] });
    expectProducerOk(p);
    const stale = await S.xrange('latest-stream', '-', '999999');
    expect(stale.length, 'stale entries left after the first purge').toBeLessThan(100);
    expect(await S.xlen('latest-stream')).toBe(stale.length + 1000);
  }, 60_000);

  it('cluster --ns 3 --same-slot --actual-value: the entries hold the values; the newest 100 across three streams', async () => {
    const [p, r] = await produceAndConsume(
      { port: clu.port, cluster: true, q: 3000, d: 3, ttl: 30, extra: ['--stream', '--ns', '3', '--same-slot', '--actual-value'] },
      {
        port: clu.port,
        cluster: true,
        ttl: 3,
        d: 2,
        warmup: 0,
        extra: ['--stream', '--ns', '3', '--same-slot', '--actual-value', '--limit', '100', '--read-from', 'master'],
      },
    );
    expectProducerOk(p);
    expect(p.summary.mode).toBe('stream');
    expectCleanRead(r);
    expect(r.summary.perCycle.items, describeConsumer(r)).toBe(100);
    const streams = (await scanKeys(C, 'latest-stream*')).sort();
    expect(streams).toEqual([0, 1, 2].map((n) => `latest-stream:${n}{forced-slot}`));
    expect(await scanKeys(C, 'item:*'), 'no item keys with --actual-value').toHaveLength(0);
    const lens = await Promise.all(streams.map((k) => C.xlen(k)));
    expect(lens.reduce((a, b) => a + b, 0)).toBe(9000);
    const [[, fields]] = await C.xrange(streams[0], '-', '+', 'COUNT', 1);
    expect(payloadId(fields[1]) % 3).toBe(0);
  }, 90_000);

  it('a model module declares everything the registry needs', () => {
    for (const name of ['hash', 'stream']) {
      const m = modelNamed(name);
      expect(m.flag?.name).toBe(name);
      expect(typeof m.write).toBe('function');
      expect(typeof m.read).toBe('function');
      expect(typeof m.readBack).toBe('function');
      expect(Object.keys(m.can).sort()).toEqual(['actualValue', 'extraSets', 'script', 'uniques']);
    }
  });
});
