// Integration tests of the producer's data models (src/workloads/items/stores/*) against real Redis servers:
// one standalone and one 3x1 cluster started once for the file, plus a password-protected
// standalone for the secrets check and the (long) purge run, which runs in the background
// while the other tests go. The producer runs as a child process (`node src/producer.js …`)
// and what Redis holds afterwards is read with separate ioredis clients.
import fs from 'node:fs';
import path from 'node:path';
import calculateSlot from 'cluster-key-slot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { payload, payloadId } from '../../src/workloads/items/stores/payload.js';
import { idRange } from '../../src/harness/schedule.js';
import { describeRun, listTree, produce, removeTempDirs } from '../helpers/producer-run.js';
import {
  clusterClient,
  flushAll,
  masterOnPort,
  mastersOf,
  perKey,
  range,
  scanKeys,
  scanKeysByMaster,
  slotOwners,
  standaloneClient,
  zsetEntries,
} from '../helpers/redis-check.js';

const PASSWORD = 's3cret-Pa55';
const RUN = 30_000; // ms per test

/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let std;
/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let clu;
/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let side;
/** @type {import('ioredis').Redis} */ let S;
/** @type {import('ioredis').Cluster} */ let C;
/** @type {import('ioredis').Redis} */ let P;
const servers = new Set();
/** startRedis({ extraArgs: ['--requirepass', …] }): how it went. */
let extraArgsAttempt;
/** The background run against the password-protected server (purge + secrets checks). */
let sideRun;
const sideMarks = {};

async function start(opts) {
  const local = await startRedis(opts);
  servers.add(local);
  return local;
}

/**
 * A password-protected standalone. startRedis's extraArgs are tried first; when that does not
 * come up (see the extraArgs test), the password is set with CONFIG SET on a plain one.
 */
async function startPasswordServer() {
  const t = Date.now();
  try {
    const local = await start({ extraArgs: ['--requirepass', PASSWORD], readyTimeoutMs: 6000 });
    extraArgsAttempt = { ok: true, ms: Date.now() - t };
    return local;
  } catch (e) {
    extraArgsAttempt = { ok: false, ms: Date.now() - t, error: e.message };
  }
  const local = await start();
  const c = await standaloneClient(local.port);
  await c.config('SET', 'requirepass', PASSWORD);
  c.disconnect();
  return local;
}

/**
 * --ttl 1 -d 11 against the password server, in the background. The writer purges at its first
 * send (nextPurge starts at t0) and then every 10 s (src/workloads/items/writer.js #send): sends go at
 * t0 + k s for k = 0..10, so the second purge rides on send 10 (t0 + 10 s) with cutoff
 * ≈ t0 + 9 s (src/workloads/items/stores/common.js zsetPurge: now - ttl). The ids are rewritten every second,
 * so only members nobody refreshes show the purge: one older than the run (gone at the first
 * purge), one written mid-run with an old score (gone only at the second), one in the future
 * (never purged).
 */
async function startSideRun() {
  const now = Date.now();
  await P.zadd('latest-ids', now - 60_000, 'stale:before-run', now + 3_600_000, 'fresh:future');
  sideMarks.q = 200;
  sideRun = produce({
    url: `redis://:${PASSWORD}@127.0.0.1:${side.port}`,
    q: sideMarks.q,
    d: 11,
    ttl: 1,
    onT0: (t0) => {
      sideMarks.t0 = t0;
      setTimeout(
        async () => {
          try {
            await P.zadd('latest-ids', t0 + 2000, 'stale:mid-run');
            sideMarks.midInsertedAt = Date.now();
            sideMarks.midScoreAfterInsert = await P.zscore('latest-ids', 'stale:mid-run');
          } catch (e) {
            sideMarks.midError = e.message;
          }
        },
        Math.max(0, t0 + 3000 - Date.now()),
      );
    },
  });
}

beforeAll(async () => {
  [std, clu, side] = await Promise.all([start(), start({ cluster: true }), startPasswordServer()]);
  [S, C, P] = await Promise.all([standaloneClient(std.port), clusterClient(clu.port), standaloneClient(side.port, { password: PASSWORD })]);
  await startSideRun();
}, 90_000);

afterAll(async () => {
  await sideRun?.catch(() => {});
  for (const c of [S, C, P]) c?.disconnect();
  await Promise.all([...servers].map((s) => s.stop()));
  servers.clear();
  removeTempDirs();
}, 60_000);

beforeEach(async () => {
  await Promise.all([flushAll(S), flushAll(C)]);
});

// ------------------------------------------------------------------ helpers

function stdRun(q, extra = [], o = {}) {
  return produce({ port: std.port, q, extra, ...o });
}

function cluRun(q, extra = [], o = {}) {
  return produce({ port: clu.port, cluster: true, q, extra, ...o });
}

/** The run printed its summary, and every item it sent was acknowledged. */
function expectAllAcked(r, itemsPerSend, sends = 2) {
  expect(r.summary, `summary JSON on stdout: ${describeRun(r)}`).not.toBeNull();
  expect(r.manifest, `manifest.json in the run directory: ${describeRun(r)}`).not.toBeNull();
  const t = r.summary.totals;
  expect({ sent: t.sent, acked: t.acked, failed: t.failed }, describeRun(r)).toEqual({
    sent: itemsPerSend * sends,
    acked: itemsPerSend * sends,
    failed: 0,
  });
}

const sorted = (xs) => [...xs].sort();
const itemNames = (ids) => ids.map((id) => `item:${id}`);

/**
 * Exactly the expected item keys, each holding its own payload of `valueSize` bytes, with a TTL
 * between 1 and ttl.
 */
async function expectItemKeys(c, { pattern = 'item:*', keys, idOf, valueSize = 128, ttl = 30 }) {
  const found = await scanKeys(c, pattern);
  expect(found.length, `${pattern} keys`).toBe(keys.length);
  expect(sorted(found)).toEqual(sorted(keys));
  const values = await perKey(c, 'getBuffer', keys);
  const ttls = await perKey(c, 'ttl', keys);
  const problems = [];
  for (const k of keys) {
    const v = values.get(k);
    const id = idOf(k);
    if (!v) problems.push(`${k}: no value`);
    else if (v.length !== valueSize) problems.push(`${k}: ${v.length} bytes, not ${valueSize}`);
    else if (payloadId(v) !== id) problems.push(`${k}: payload decodes to ${payloadId(v)}`);
    else if (!v.equals(payload(id, valueSize))) problems.push(`${k}: payload bytes differ from payload(${id}, ${valueSize})`);
    const t = ttls.get(k);
    if (!(t >= 1 && t <= ttl)) problems.push(`${k}: TTL ${t}, not in 1..${ttl}`);
  }
  expect(problems.slice(0, 10)).toEqual([]);
}

/** Scores are send times: ms since epoch within the run (t0 - 1 s … the end of the run). */
function expectScoresInRun(entries, r) {
  const lo = r.t0 - 1000;
  const hi = r.finishedAt;
  const bad = entries.filter((e) => !(e.score >= lo && e.score <= hi));
  expect(bad.slice(0, 5), `scores within [${lo}, ${hi}] (t0 ${r.t0})`).toEqual([]);
}

/** The key lives in the slot CLUSTER KEYSLOT names, on the master owning that slot, nowhere else. */
async function expectOnOwner(key) {
  const slot = calculateSlot(key);
  expect(Number(await C.cluster('KEYSLOT', key)), `CLUSTER KEYSLOT ${key}`).toBe(slot);
  const ownerPort = (await slotOwners(C))(slot);
  const owner = masterOnPort(C, ownerPort);
  expect(owner, `a master on port ${ownerPort}`).toBeDefined();
  expect(await owner.exists(key), `${key} on its slot's master ${ownerPort}`).toBe(1);
  for (const m of mastersOf(C)) {
    if (m !== owner) expect(Number(await m.cluster('COUNTKEYSINSLOT', slot)), `slot ${slot} keys on ${m.options.port}`).toBe(0);
  }
  return { slot, ownerPort, owner };
}

/** Seeds a member far older than any TTL: the writer's first purge (at t0) must remove it. */
async function seedStale(c, key) {
  await c.zadd(key, Date.now() - 3_600_000, 'stale:seeded');
}

async function expectStaleGone(c, key) {
  expect(await c.zscore(key, 'stale:seeded'), `the purge removes old members of ${key}`).toBeNull();
}

function minuteOf(ms) {
  return Math.floor(ms / 60_000);
}

/** Per-minute structure names `<base>:<minute>`: one or two minutes, all within the run. */
function expectMinuteKeys(keys, base, r) {
  expect(keys.length, `${base}:<minute> keys: ${keys.join(', ')}`).toBeGreaterThanOrEqual(1);
  expect(keys.length).toBeLessThanOrEqual(2);
  for (const k of keys) {
    const m = new RegExp(`^${base}:(\\d+)$`).exec(k);
    expect(m, `${k} is named ${base}:<minute>`).not.toBeNull();
    const minute = Number(m[1]);
    expect(minute).toBeGreaterThanOrEqual(minuteOf(r.t0));
    expect(minute).toBeLessThanOrEqual(minuteOf(r.finishedAt));
  }
}

// ------------------------------------------------------------------ data models

describe('producer data models against real Redis', () => {
  it(
    'default (zset-ids): Q item keys with their payloads and TTL, latest-ids holds item:1..Q scored by send time (standalone --value-size 200, cluster)',
    async () => {
      const [a, b] = await Promise.all([stdRun(500, ['--value-size', '200']), cluRun(300)]);
      expectAllAcked(a, 500);
      expectAllAcked(b, 300);

      await expectItemKeys(S, { keys: itemNames(range(1, 500)), idOf: (k) => Number(k.slice(5)), valueSize: 200 });
      const za = await zsetEntries(S, 'latest-ids');
      expect(sorted(za.map((e) => e.member))).toEqual(sorted(itemNames(range(1, 500))));
      expectScoresInRun(za, a);

      await expectItemKeys(C, { keys: itemNames(range(1, 300)), idOf: (k) => Number(k.slice(5)) });
      const zb = await zsetEntries(C, 'latest-ids');
      expect(sorted(zb.map((e) => e.member))).toEqual(sorted(itemNames(range(1, 300))));
      expectScoresInRun(zb, b);
      await expectOnOwner('latest-ids');
      // the item keys follow their own slots, across the shards
      const byMaster = await scanKeysByMaster(C, 'item:*');
      expect([...byMaster.values()].filter((keys) => keys.length > 0).length).toBe(3);
    },
    RUN,
  );

  it(
    '--actual-value: no item keys; latest-ids holds the payloads of ids 1..Q, each once (standalone and cluster)',
    async () => {
      const [a, b] = await Promise.all([stdRun(400, ['--actual-value']), cluRun(300, ['--actual-value'])]);
      expectAllAcked(a, 400);
      expectAllAcked(b, 300);
      for (const [c, q, r] of [
        [S, 400, a],
        [C, 300, b],
      ]) {
        expect(await scanKeys(c, 'item:*'), 'no item keys with --actual-value').toEqual([]);
        const z = await zsetEntries(c, 'latest-ids');
        expect(z.length).toBe(q);
        const ids = z.map((e) => payloadId(e.member));
        expect(ids.sort((x, y) => x - y)).toEqual(range(1, q));
        const wrong = z.filter((e) => e.member !== payload(payloadId(e.member), 128).toString('latin1'));
        expect(wrong.length, 'members are the full 128-byte payloads').toBe(0);
        expectScoresInRun(z, r);
      }
      await expectOnOwner('latest-ids');
    },
    RUN,
  );

  it(
    '--ns 4: latest-ids:0..3 split by id % 4, sizes add up to Q, each set on the master owning its slot; the purge covers them (standalone and cluster)',
    async () => {
      await Promise.all([seedStale(S, 'latest-ids:2'), seedStale(C, 'latest-ids:2')]);
      const [a, b] = await Promise.all([stdRun(400, ['--ns', '4']), cluRun(300, ['--ns', '4'])]);
      expectAllAcked(a, 400);
      expectAllAcked(b, 300);
      for (const [c, q] of [
        [S, 400],
        [C, 300],
      ]) {
        await expectStaleGone(c, 'latest-ids:2');
        expect(await c.exists('latest-ids'), 'no plain latest-ids with --ns 4').toBe(0);
        let total = 0;
        for (let n = 0; n < 4; n++) {
          const members = await c.zrange(`latest-ids:${n}`, 0, -1);
          total += members.length;
          expect(sorted(members), `latest-ids:${n}`).toEqual(sorted(itemNames(range(1, q).filter((id) => id % 4 === n))));
        }
        expect(total).toBe(q);
        await expectItemKeys(c, { keys: itemNames(range(1, q)), idOf: (k) => Number(k.slice(5)) });
      }
      const owners = [];
      for (let n = 0; n < 4; n++) owners.push((await expectOnOwner(`latest-ids:${n}`)).ownerPort);
      expect(new Set(owners).size, `latest-ids:0..3 owners ${owners}`).toBeGreaterThan(1);
    },
    RUN,
  );

  it(
    '--ns 4 --same-slot: latest-ids:<n>{forced-slot}, one slot, one master; the purge covers them (cluster and standalone)',
    async () => {
      await Promise.all([seedStale(S, 'latest-ids:0{forced-slot}'), seedStale(C, 'latest-ids:0{forced-slot}')]);
      const [a, b] = await Promise.all([stdRun(400, ['--ns', '4', '--same-slot']), cluRun(300, ['--ns', '4', '--same-slot'])]);
      expectAllAcked(a, 400);
      expectAllAcked(b, 300);
      for (const [c, q] of [
        [S, 400],
        [C, 300],
      ]) {
        await expectStaleGone(c, 'latest-ids:0{forced-slot}');
        const names = await scanKeys(c, 'latest-ids*');
        expect(sorted(names)).toEqual(sorted(range(0, 3).map((n) => `latest-ids:${n}{forced-slot}`)));
        for (let n = 0; n < 4; n++) {
          const members = await c.zrange(`latest-ids:${n}{forced-slot}`, 0, -1);
          expect(sorted(members)).toEqual(sorted(itemNames(range(1, q).filter((id) => id % 4 === n))));
        }
      }
      const placed = [];
      for (let n = 0; n < 4; n++) placed.push(await expectOnOwner(`latest-ids:${n}{forced-slot}`));
      expect(new Set(placed.map((p) => p.slot))).toEqual(new Set([calculateSlot('forced-slot')]));
      expect(new Set(placed.map((p) => p.ownerPort)).size).toBe(1);
    },
    RUN,
  );

  it(
    '--sl: --list-max 50 keeps the 50 newest key names (standalone); without it every pushed name stays, Q per period (cluster)',
    async () => {
      const [a, b] = await Promise.all([stdRun(400, ['--sl', '--list-max', '50']), cluRun(300, ['--sl'])]);
      expectAllAcked(a, 400);
      expectAllAcked(b, 300);
      // LPUSH of item:lo..item:hi leaves item:hi at the head: the newest 50 are item:400..item:351
      expect(await S.llen('latest-list')).toBe(50);
      expect(await S.lrange('latest-list', 0, -1)).toEqual(
        range(351, 400)
          .reverse()
          .map((id) => `item:${id}`),
      );
      await expectItemKeys(S, { keys: itemNames(range(1, 400)), idOf: (k) => Number(k.slice(5)) });
      expect(await S.exists('latest-ids'), 'no sorted set in list mode').toBe(0);

      // default list-max = q x ttl x 1000 / period = 300 x 30 = 9000 > 2 sends x 300
      expect(await C.llen('latest-list')).toBe(600);
      const counts = new Map();
      for (const m of await C.lrange('latest-list', 0, -1)) counts.set(m, (counts.get(m) || 0) + 1);
      expect(sorted(counts.keys())).toEqual(sorted(itemNames(range(1, 300))));
      expect(new Set(counts.values())).toEqual(new Set([2]));
      await expectOnOwner('latest-list');
      await expectItemKeys(C, { keys: itemNames(range(1, 300)), idOf: (k) => Number(k.slice(5)) });
    },
    RUN,
  );

  it(
    '--slh: the list plus latest-hll:<minute> with PFCOUNT ≈ Q (2%) and 0 < TTL ≤ 120 (standalone and cluster)',
    async () => {
      const [a, b] = await Promise.all([stdRun(1000, ['--slh']), cluRun(500, ['--slh'])]);
      expectAllAcked(a, 1000);
      expectAllAcked(b, 500);
      for (const [c, q, r] of [
        [S, 1000, a],
        [C, 500, b],
      ]) {
        expect(await c.llen('latest-list'), 'every pushed name (default list-max q x ttl)').toBe(2 * q);
        const hlls = await scanKeys(c, 'latest-hll:*');
        expectMinuteKeys(hlls, 'latest-hll', r);
        for (const k of hlls) {
          const count = await c.pfcount(k);
          expect(Math.abs(count - q) / q, `PFCOUNT ${k} = ${count}, Q = ${q}`).toBeLessThanOrEqual(0.02);
          const ttl = await c.ttl(k);
          expect(ttl, `TTL ${k}`).toBeGreaterThan(0);
          expect(ttl).toBeLessThanOrEqual(120);
        }
        await expectItemKeys(c, { keys: itemNames(range(1, q)), idOf: (k) => Number(k.slice(5)) });
      }
    },
    RUN,
  );

  it(
    '--ss: latest-set:<minute> holds item:1..Q (SCARD Q), 0 < TTL ≤ 120, plus the item keys (standalone and cluster)',
    async () => {
      const [a, b] = await Promise.all([stdRun(500, ['--ss']), cluRun(300, ['--ss'])]);
      expectAllAcked(a, 500);
      expectAllAcked(b, 300);
      for (const [c, q, r] of [
        [S, 500, a],
        [C, 300, b],
      ]) {
        const sets = await scanKeys(c, 'latest-set:*');
        expectMinuteKeys(sets, 'latest-set', r);
        for (const k of sets) {
          // every send adds all Q names, so each minute that saw a send holds all of them
          expect(await c.scard(k), `SCARD ${k}`).toBe(q);
          expect(sorted(await c.smembers(k))).toEqual(sorted(itemNames(range(1, q))));
          const ttl = await c.ttl(k);
          expect(ttl, `TTL ${k}`).toBeGreaterThan(0);
          expect(ttl).toBeLessThanOrEqual(120);
        }
        expect(await c.exists('latest-ids'), 'no sorted set in set mode').toBe(0);
        await expectItemKeys(c, { keys: itemNames(range(1, q)), idOf: (k) => Number(k.slice(5)) });
      }
    },
    RUN,
  );

  for (const [flag, script] of [
    ['--ws', 'store-items.lua'],
    ['--sk', 'store-item.lua'],
  ]) {
    it(
      `${flag} (${script}): standalone item:<id> + latest-ids of item:<id>; cluster item:{latest-ids}:<id>, all in latest-ids's slot`,
      async () => {
        const [a, b] = await Promise.all([stdRun(400, [flag]), cluRun(300, [flag])]);
        expectAllAcked(a, 400);
        expectAllAcked(b, 300);

        await expectItemKeys(S, { keys: itemNames(range(1, 400)), idOf: (k) => Number(k.slice(5)) });
        const za = await zsetEntries(S, 'latest-ids');
        expect(sorted(za.map((e) => e.member))).toEqual(sorted(itemNames(range(1, 400))));
        expectScoresInRun(za, a);

        const keys = range(1, 300).map((id) => `item:{latest-ids}:${id}`);
        await expectItemKeys(C, { pattern: 'item:*', keys, idOf: (k) => Number(k.split(':').pop()) });
        const zb = await zsetEntries(C, 'latest-ids');
        expect(sorted(zb.map((e) => e.member))).toEqual(sorted(keys));
        expectScoresInRun(zb, b);
        const { slot, owner } = await expectOnOwner('latest-ids');
        expect(new Set(keys.map((k) => calculateSlot(k)))).toEqual(new Set([slot]));
        expect(Number(await owner.cluster('COUNTKEYSINSLOT', slot)), 'the items and their set share one slot').toBe(301);
      },
      RUN,
    );
  }

  for (const flag of ['--ws', '--sk']) {
    it(
      `${flag} --ns 3 on the cluster: latest-ids:<n> with its items item:{latest-ids:<n>}:<id> in its slot; ${flag} --actual-value (standalone): the set holds the values`,
      async () => {
        await seedStale(C, 'latest-ids:1');
        const [a, b] = await Promise.all([stdRun(300, [flag, '--actual-value']), cluRun(300, [flag, '--ns', '3'])]);
        expectAllAcked(a, 300);
        expectAllAcked(b, 300);

        await expectStaleGone(C, 'latest-ids:1');
        const all = [];
        for (let n = 0; n < 3; n++) {
          const set = `latest-ids:${n}`;
          const keys = range(1, 300)
            .filter((id) => id % 3 === n)
            .map((id) => `item:{${set}}:${id}`);
          all.push(...keys);
          expect(sorted(await C.zrange(set, 0, -1)), set).toEqual(sorted(keys));
          const { slot, owner } = await expectOnOwner(set);
          expect(new Set(keys.map((k) => calculateSlot(k))), `items of ${set} in its slot`).toEqual(new Set([slot]));
          expect(Number(await owner.cluster('COUNTKEYSINSLOT', slot))).toBe(keys.length + 1);
        }
        await expectItemKeys(C, { keys: all, idOf: (k) => Number(k.split(':').pop()) });

        // the Lua scripts write the item keys and index the values themselves
        const z = await zsetEntries(S, 'latest-ids');
        expect(z.map((e) => payloadId(e.member)).sort((x, y) => x - y)).toEqual(range(1, 300));
        expect(z.filter((e) => e.member !== payload(payloadId(e.member), 128).toString('latin1')).length).toBe(0);
        expectScoresInRun(z, a);
        await expectItemKeys(S, { keys: itemNames(range(1, 300)), idOf: (k) => Number(k.slice(5)) });
      },
      RUN,
    );
  }

  it(
    '--extra-sets 1: latest-ids and latest-ids:extra1 both hold Q members (standalone); with --ns 2, latest-ids:<n>:extra1 (cluster); the purge covers the copies',
    async () => {
      await Promise.all([seedStale(S, 'latest-ids:extra1'), seedStale(C, 'latest-ids:1:extra1')]);
      const [a, b] = await Promise.all([stdRun(400, ['--extra-sets', '1']), cluRun(300, ['--extra-sets', '1', '--ns', '2'])]);
      expectAllAcked(a, 400);
      expectAllAcked(b, 300);
      await expectStaleGone(S, 'latest-ids:extra1');
      await expectStaleGone(C, 'latest-ids:1:extra1');
      for (const key of ['latest-ids', 'latest-ids:extra1']) {
        expect(sorted(await S.zrange(key, 0, -1)), key).toEqual(sorted(itemNames(range(1, 400))));
      }
      expect(sorted(await scanKeys(C, 'latest-ids*'))).toEqual(
        sorted(['latest-ids:0', 'latest-ids:1', 'latest-ids:0:extra1', 'latest-ids:1:extra1']),
      );
      for (let n = 0; n < 2; n++) {
        const want = sorted(itemNames(range(1, 300).filter((id) => id % 2 === n)));
        for (const key of [`latest-ids:${n}`, `latest-ids:${n}:extra1`]) {
          expect(sorted(await C.zrange(key, 0, -1)), key).toEqual(want);
          await expectOnOwner(key);
        }
      }
    },
    RUN,
  );

  it(
    "-t 3 -c 2 runs three writer processes that write every id once (standalone); -t 3 -a 2 writes only writer 2's range (cluster)",
    async () => {
      const q = 301;
      const [a, b] = await Promise.all([stdRun(q, ['-t', '3', '-c', '2']), cluRun(q, ['-t', '3', '-a', '2'])]);
      expectAllAcked(a, q);
      expect(a.summary.writers).toBe(3);
      expect(a.manifest.writers).toEqual([1, 2, 3]);
      await expectItemKeys(S, { keys: itemNames(range(1, q)), idOf: (k) => Number(k.slice(5)) });
      const za = await zsetEntries(S, 'latest-ids');
      expect(za.length).toBe(q);
      expect(sorted(za.map((e) => e.member))).toEqual(sorted(itemNames(range(1, q))));

      const w2 = idRange(q, 3, 2);
      expect(w2).toEqual({ min: 101, max: 200, count: 100 });
      expectAllAcked(b, w2.count);
      expect(b.summary.writers).toBe(1);
      expect(b.manifest.writers).toEqual([2]);
      await expectItemKeys(C, { keys: itemNames(range(w2.min, w2.max)), idOf: (k) => Number(k.slice(5)) });
      expect(sorted(await C.zrange('latest-ids', 0, -1))).toEqual(sorted(itemNames(range(w2.min, w2.max))));
    },
    RUN,
  );
});

// ------------------------------------------------------------------ run directory and exit code

let cleanRun;
function getCleanRun() {
  cleanRun ??= stdRun(200);
  return cleanRun;
}

describe('producer run directory', () => {
  it(
    'holds one directory with manifest.json, summary.json (= the JSON on stdout), summary.md, timeline.csv and the hlogs',
    async () => {
      const r = await getCleanRun();
      expectAllAcked(r, 200);
      expect(r.dirs.length, `directories under --out: ${r.dirs}`).toBe(1);
      expect(fs.readdirSync(r.out)).toEqual(r.dirs);
      const files = fs.readdirSync(r.dir);
      for (const f of [
        'manifest.json',
        'summary.json',
        'summary.md',
        'timeline.csv',
        'batch.hlog',
        'setex.hlog',
        'zadd.hlog',
        'lag.hlog',
      ]) {
        expect(files, `${f} in ${r.dir}`).toContain(f);
        expect(fs.statSync(path.join(r.dir, f)).size, `${f} is not empty`).toBeGreaterThan(0);
      }
      expect(
        files.filter((f) => f.endsWith('.tmp')),
        'no temp files left',
      ).toEqual([]);
      expect(JSON.parse(fs.readFileSync(path.join(r.dir, 'summary.json'), 'utf8'))).toEqual(r.summary);
      expect(r.manifest.t0).toBeGreaterThan(r.started - 1000);
      expect(r.manifest.t0).toBeLessThan(r.finishedAt);
      expect(r.manifest.store).toMatchObject({ ttl: 30, valueSize: 128, ns: 1 });
      const timeline = fs.readFileSync(path.join(r.dir, 'timeline.csv'), 'utf8').trim().split('\n');
      expect(timeline.length, 'a header and one row per second').toBe(3);
      expect(fs.readFileSync(path.join(r.dir, 'batch.hlog'), 'utf8')).toMatch(/^#\[StartTime: /m);
    },
    RUN,
  );

  it(
    'a clean run exits 0 and reports no writer errors',
    async () => {
      const r = await getCleanRun();
      expectAllAcked(r, 200);
      expect(r.summary.writerErrors, 'summary.writerErrors of a run where every item was acknowledged').toEqual([]);
      expect(r.code, describeRun(r)).toBe(0);
    },
    RUN,
  );
});

// ------------------------------------------------------------------ secrets and purge (background run)

describe('password and purge (password-protected server, --ttl 1 -d 11, run in the background)', () => {
  it("startRedis({ extraArgs: ['--requirepass', …] }) comes up (its readiness PING must authenticate)", () => {
    expect(extraArgsAttempt, 'attempted in beforeAll').toBeDefined();
    expect(extraArgsAttempt.error ?? null, `startRedis with --requirepass (${extraArgsAttempt.ms} ms)`).toBeNull();
    expect(extraArgsAttempt.ok).toBe(true);
  });

  it('--url redis://:<password>@…: the run works and the password is in no file of the run directory, nor on stdout/stderr', async () => {
    const r = await sideRun;
    expect(r.summary, describeRun(r)).not.toBeNull();
    expect(r.summary.totals.acked, describeRun(r)).toBeGreaterThan(0);
    expect(r.summary.totals.failed).toBe(0);
    expect(r.dir).not.toBeNull();
    const files = listTree(r.out)
      .map((f) => path.join(r.out, f))
      .filter((f) => fs.statSync(f).isFile());
    expect(files.length).toBeGreaterThanOrEqual(8);
    for (const f of files) expect(fs.readFileSync(f, 'latin1').includes(PASSWORD), `${f} contains the password`).toBe(false);
    expect(r.stdout.includes(PASSWORD), 'stdout contains the password').toBe(false);
    expect(r.stderr.includes(PASSWORD), 'stderr contains the password').toBe(false);
    expect(r.args.join(' ')).toContain(PASSWORD); // it was really given
  }, 40_000);

  it('--password with --url redis://host:port/3: the run writes into db 3 and the password is written nowhere', async () => {
    await sideRun; // the background run owns db 0 of this server
    const r = await produce({ url: `redis://127.0.0.1:${side.port}/3`, q: 100, extra: ['--password', PASSWORD] });
    expectAllAcked(r, 100);
    const db3 = await standaloneClient(side.port, { password: PASSWORD, db: 3 });
    try {
      expect(await db3.zcard('latest-ids')).toBe(100);
      expect(await db3.exists('item:1', 'item:100')).toBe(2);
    } finally {
      db3.disconnect();
    }
    const files = listTree(r.out)
      .map((f) => path.join(r.out, f))
      .filter((f) => fs.statSync(f).isFile());
    for (const f of files) expect(fs.readFileSync(f, 'latin1').includes(PASSWORD), `${f} contains the password`).toBe(false);
    expect(r.stdout.includes(PASSWORD) || r.stderr.includes(PASSWORD), 'stdout/stderr contain the password').toBe(false);
  }, 40_000);

  it('the purge removes members older than the TTL at the first send and again 10 s later; fresh and future members stay', async () => {
    const r = await sideRun;
    const q = sideMarks.q;
    expectAllAcked(r, q, 11);
    const t0 = r.t0;
    expect(sideMarks.midError ?? null, 'mid-run insert').toBeNull();
    expect(sideMarks.midScoreAfterInsert, 'stale:mid-run was in the set after its insert').not.toBeNull();
    // it went in after the first purge (t0) and before the second (t0 + 10 s)
    expect(sideMarks.midInsertedAt).toBeGreaterThan(t0);
    expect(sideMarks.midInsertedAt).toBeLessThan(t0 + 9000);

    expect(await P.zscore('latest-ids', 'stale:before-run'), 'removed by the purge at the first send').toBeNull();
    expect(await P.zscore('latest-ids', 'stale:mid-run'), 'removed by the purge 10 s after the first').toBeNull();
    expect(await P.zscore('latest-ids', 'fresh:future'), 'a member newer than the cutoff stays').not.toBeNull();
    expect(await P.zcount('latest-ids', '-inf', t0 + 9000 - 1000)).toBe(0);
    const entries = await zsetEntries(P, 'latest-ids');
    const items = entries.filter((e) => e.member.startsWith('item:'));
    expect(sorted(items.map((e) => e.member))).toEqual(sorted(itemNames(range(1, q))));
    expect(entries.length).toBe(q + 1);
    const lastSend = Math.max(...items.map((e) => e.score));
    expect(lastSend).toBeGreaterThanOrEqual(t0 + 10_000);
    expect(entries.filter((e) => e.score < lastSend - 1000 - 1000)).toEqual([]);
  }, 40_000);
});
