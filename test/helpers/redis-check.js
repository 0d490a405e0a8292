// Looks at what a Redis (standalone or cluster) holds, with ordinary ioredis clients that
// share nothing with the producer under test.
import { Redis, Cluster } from 'ioredis';

const HOST = '127.0.0.1';

/** @param {number} port @param {{ password?: string, db?: number }} [o] */
export async function standaloneClient(port, o = {}) {
  const c = new Redis({ host: HOST, port, password: o.password, db: o.db ?? 0, lazyConnect: true, maxRetriesPerRequest: 2 });
  c.on('error', () => {});
  await c.connect();
  return c;
}

/** @param {number} port a cluster node */
export async function clusterClient(port) {
  const c = new Cluster([{ host: HOST, port }], { redisOptions: { maxRetriesPerRequest: 2 } });
  c.on('error', () => {});
  await new Promise((resolve, reject) => {
    c.once('ready', resolve);
    c.once('end', () => reject(new Error(`cluster client for ${HOST}:${port} ended before ready`)));
  });
  return c;
}

/** @param {Redis|Cluster} c */
export function mastersOf(c) {
  return c instanceof Cluster ? c.nodes('master') : [c];
}

/** FLUSHALL on every master (replicas follow). */
export async function flushAll(c) {
  await Promise.all(mastersOf(c).map((m) => m.flushall()));
}

/** Every key matching `pattern` on every master. */
export async function scanKeys(c, pattern) {
  return [...(await scanKeysByMaster(c, pattern)).values()].flat();
}

/** Keys matching `pattern` per master: Map port → keys. */
export async function scanKeysByMaster(c, pattern) {
  const out = new Map();
  for (const m of mastersOf(c)) {
    const keys = [];
    let cursor = '0';
    do {
      const [next, batch] = await m.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
    out.set(m.options.port, keys);
  }
  return out;
}

/** Runs one command per key (e.g. 'getBuffer', 'ttl') and returns key → result. */
export async function perKey(c, method, keys) {
  const values = await Promise.all(keys.map((k) => c[method](k)));
  return new Map(keys.map((k, i) => [k, values[i]]));
}

/** Sorted set as [{ member, score }] (ZRANGE 0 -1 WITHSCORES). */
export async function zsetEntries(c, key) {
  const flat = await c.zrange(key, 0, -1, 'WITHSCORES');
  const out = [];
  for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i], score: Number(flat[i + 1]) });
  return out;
}

/**
 * Master owning each slot range, from CLUSTER SLOTS: (slot) => port.
 * @param {Cluster} c
 */
export async function slotOwners(c) {
  const ranges = await c.cluster('SLOTS');
  return (slot) => {
    for (const [from, to, [, port]] of ranges) if (slot >= from && slot <= to) return port;
    return undefined;
  };
}

/** The master client of a cluster listening on `port`. */
export function masterOnPort(c, port) {
  return mastersOf(c).find((m) => m.options.port === port);
}

export function range(lo, hi) {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

/**
 * CLIENT KILL TYPE normal on every node (each admin connection itself left out: it is of TYPE
 * normal too), from outside, as a proxy or a failover would cut them.
 * @param {Array<{ port: number }>} nodes
 * @returns {Promise<number>} how many connections went
 */
/**
 * CLIENT KILL of every connection named `name` (CLIENT SETNAME) on each node; how many went.
 * @param {Array<{ port: number }>} nodes
 * @param {string} name
 */
export async function dropConnectionsNamed(nodes, name) {
  let dropped = 0;
  for (const n of nodes) {
    const admin = await standaloneClient(n.port);
    const ids = String(await admin.client('LIST'))
      .split('\n')
      .filter((l) => l.includes(` name=${name} `))
      .map((l) => l.match(/^id=(\d+)/)?.[1]);
    for (const id of ids) dropped += Number(await admin.client('KILL', 'ID', String(id)));
    admin.disconnect();
  }
  return dropped;
}

export async function dropEveryConnection(nodes) {
  let dropped = 0;
  for (const n of nodes) {
    const admin = await standaloneClient(n.port);
    dropped += Number(await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes'));
    admin.disconnect();
  }
  return dropped;
}
