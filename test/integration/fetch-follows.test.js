// The consumer's default read path on bytes (fetch-bytes.js) follows the cluster as the writer
// does: an MGET or a range answered with MOVED is sent again where the slot lives (and the router
// learns it), one answered with ASK is sent after ASKING to the node importing the slot. A real
// 3-master cluster on 127.0.0.1; the slot is moved by hand with CLUSTER SETSLOT and MIGRATE.
import { afterAll, beforeAll, expect, it } from 'vitest';
import calculateSlot from 'cluster-key-slot';
import { startRedis } from '../../src/local/local-redis.js';
import { RedisRouter } from '../../src/transports/redis-router.js';
import { BytesReads } from '../../src/workloads/items/fetch-bytes.js';
import { MemberList } from '../../src/workloads/items/member-list.js';
import { SeenIds } from '../../src/workloads/items/seen-ids.js';
import { payload } from '../../src/workloads/items/stores/payload.js';
import { clusterClient, standaloneClient } from '../helpers/redis-check.js';

/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let clu;
/** @type {import('ioredis').Cluster} */ let C;
const TAG = 'follow';
const SLOT = calculateSlot(TAG);
const IDS = Array.from({ length: 200 }, (_, i) => i + 1);
const keyOf = (id) => `item:{${TAG}}:${id}`;

beforeAll(async () => {
  clu = await startRedis({ cluster: true, replicas: 0 });
  C = await clusterClient(clu.port);
  const p = C.pipeline();
  for (const id of IDS) p.set(keyOf(id), payload(id, 64));
  p.zadd(`latest-ids{${TAG}}`, ...IDS.flatMap((id) => [id, keyOf(id)]));
  await p.exec();
}, 60_000);

afterAll(async () => {
  C?.disconnect();
  await clu?.stop();
});

/** Every master as { addr, id, client }, and which one owns SLOT. */
async function masters() {
  const out = [];
  for (const n of clu.nodes) {
    const client = await standaloneClient(n.port);
    out.push({ addr: `127.0.0.1:${n.port}`, id: await client.call('CLUSTER', 'MYID'), client });
  }
  const owner = C.slots[SLOT][0];
  return { all: out, owner: out.find((m) => m.addr === owner), others: out.filter((m) => m.addr !== owner) };
}

/** A cycle's reads on bytes: the live range, then every value; what came back. */
async function readAll(reads) {
  const list = new MemberList();
  await reads.range([{ key: `latest-ids{${TAG}}`, args: ['ZRANGEBYSCORE', `latest-ids{${TAG}}`, '-inf', '+inf'] }], list);
  const seen = new SeenIds();
  seen.next();
  const counts = await reads.mget(list, seen);
  return { members: list.count, ...counts };
}

it('a stale slot map: the range and the MGET meet MOVED, follow it, read everything, and the router learns', async () => {
  const conn = { host: '127.0.0.1', port: clu.port, cluster: true };
  const router = new RedisRouter(conn);
  await router.open();
  const reads = new BytesReads(router);
  const m = await masters();
  try {
    // the router believes another master serves the slot
    const wrong = m.others[0].addr;
    router.table[SLOT] = wrong;
    expect(router.addrFor(SLOT)).toBe(wrong);
    expect(await readAll(reads)).toEqual({ members: 200, fetched: 200, missing: 0, mismatched: 0, duplicates: 0 });
    expect(router.addrFor(SLOT), 'MOVED taught the router where the slot lives').toBe(m.owner.addr);
  } finally {
    reads.close();
    router.close();
    for (const x of m.all) x.client.disconnect();
  }
}, 30_000);

it('a slot half way through a migration: the source answers ASK, the read follows it with ASKING', async () => {
  const conn = { host: '127.0.0.1', port: clu.port, cluster: true };
  const m = await masters();
  const [src, dst] = [m.owner, m.others[0]];
  const router = new RedisRouter(conn);
  await router.open();
  const reads = new BytesReads(router);
  try {
    await dst.client.call('CLUSTER', 'SETSLOT', SLOT, 'IMPORTING', src.id);
    await src.client.call('CLUSTER', 'SETSLOT', SLOT, 'MIGRATING', dst.id);
    // every key of the slot moves: the source no longer has them and answers ASK for all of them
    const keys = [...IDS.map(keyOf), `latest-ids{${TAG}}`];
    await src.client.call('MIGRATE', '127.0.0.1', dst.addr.split(':')[1], '', 0, 5000, 'KEYS', ...keys);
    expect(router.addrFor(SLOT), 'the router still sends the slot to its source').toBe(src.addr);
    expect(await readAll(reads)).toEqual({ members: 200, fetched: 200, missing: 0, mismatched: 0, duplicates: 0 });
    expect(router.addrFor(SLOT), "ASK teaches nothing: the slot is still the source's").toBe(src.addr);
  } finally {
    // the migration finished: the slot is the destination's everywhere
    for (const x of m.all) await x.client.call('CLUSTER', 'SETSLOT', SLOT, 'NODE', dst.id).catch(() => {});
    reads.close();
    router.close();
    for (const x of m.all) x.client.disconnect();
  }
}, 30_000);
