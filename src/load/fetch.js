/**
 * Fetching the values behind a list of item keys, three ways:
 * - `mget` (default): keys grouped by slot, one MGET per slot (per batch when standalone), all
 *   in flight at once on the raw pipes of the read nodes;
 * - `pipeline`: one GET per key, grouped per node, each node's GETs written as one buffer;
 * - `get`: the seed's way — one ioredis `get()` promise per key (auto-pipelined), awaited together.
 * Every strategy returns values aligned with the keys, null where the key has expired.
 */
import calculateSlot from 'cluster-key-slot';
import { Redis, Cluster } from 'ioredis';

export const FETCH_MODES = ['mget', 'pipeline', 'get'];
const STANDALONE_MGET_BATCH = 1000;

/** RESP bytes of `verb` over keys[from..to) (keys are ASCII: rqbench names them). */
function encodeKeys(verb, keys, idx) {
  let s = `*${idx.length + 1}\r\n$${verb.length}\r\n${verb}\r\n`;
  for (const i of idx) s += `$${keys[i].length}\r\n${keys[i]}\r\n`;
  return s;
}

function encodeGets(keys, idx) {
  let s = '';
  for (const i of idx) s += `*2\r\n$3\r\nGET\r\n$${keys[i].length}\r\n${keys[i]}\r\n`;
  return s;
}

export class Fetcher {
  /**
   * @param {import('../targets/redis-router.js').RedisRouter} router the read router
   * @param {'mget'|'pipeline'|'get'} mode
   * @param {import('ioredis').Redis|import('ioredis').Cluster} [seedClient] for `get`
   */
  constructor(router, mode, seedClient) {
    this.router = router;
    this.mode = mode;
    this.seedClient = seedClient;
    /** key → slot, kept across cycles: the same keys come back every second */
    this.slots = new Map();
  }

  /**
   * @param {string[]} keys
   * @returns {Promise<Array<string|null>>}
   */
  fetch(keys) {
    if (keys.length === 0) return Promise.resolve([]);
    if (this.mode === 'get') return Promise.all(keys.map((k) => this.seedClient.get(k)));
    return this.mode === 'mget' ? this.#mget(keys) : this.#pipeline(keys);
  }

  #slot(key) {
    let s = this.slots.get(key);
    if (s === undefined) {
      if (this.slots.size > 4_000_000) this.slots.clear();
      s = calculateSlot(key);
      this.slots.set(key, s);
    }
    return s;
  }

  /** Groups key indexes: by slot on a cluster, in fixed batches when standalone. */
  #groups(keys, bySlot) {
    const groups = new Map();
    for (let i = 0; i < keys.length; i++) {
      const g = bySlot ? this.#slot(keys[i]) : Math.floor(i / STANDALONE_MGET_BATCH);
      let list = groups.get(g);
      if (!list) groups.set(g, (list = []));
      list.push(i);
    }
    return groups;
  }

  /** One MGET per slot group, all of a node's MGETs written as one buffer. */
  #mget(keys) {
    const cluster = this.router.conn.cluster;
    const byNode = new Map();
    for (const [group, idx] of this.#groups(keys, cluster)) {
      const addr = this.router.addrFor(cluster ? group : 0);
      let node = byNode.get(addr);
      if (!node) byNode.set(addr, (node = { text: '', groups: [] }));
      node.text += encodeKeys('MGET', keys, idx);
      node.groups.push(idx);
    }
    const out = new Array(keys.length).fill(null);
    const sends = [];
    for (const [addr, { text, groups }] of byNode) {
      sends.push(this.#send(addr, Buffer.from(text, 'latin1'), groups.length, (g, reply) => {
        const idx = groups[g];
        for (let j = 0; j < idx.length; j++) out[idx[j]] = reply[j];
      }));
    }
    return Promise.all(sends).then(() => out);
  }

  #pipeline(keys) {
    const cluster = this.router.conn.cluster;
    const byNode = new Map();
    for (let i = 0; i < keys.length; i++) {
      const addr = this.router.addrFor(cluster ? this.#slot(keys[i]) : 0);
      let list = byNode.get(addr);
      if (!list) byNode.set(addr, (list = []));
      list.push(i);
    }
    const out = new Array(keys.length).fill(null);
    const sends = [];
    for (const [addr, idx] of byNode) {
      sends.push(this.#send(addr, Buffer.from(encodeGets(keys, idx), 'latin1'), idx.length, (i, reply) => { out[idx[i]] = reply; }));
    }
    return Promise.all(sends).then(() => out);
  }

  /** Writes n commands to one node; rejects on the first error reply. */
  async #send(addr, buf, n, onValue) {
    const pipe = this.router.ready(addr) ?? (await this.router.pipe(addr));
    return new Promise((resolve, reject) => {
      let failure;
      pipe.send(buf, {
        n,
        value: (_s, i, v) => onValue(i, v),
        error: (_s, _i, err) => { failure ??= err; },
        done: () => (failure ? reject(failure) : resolve()),
      });
    });
  }
}

/**
 * The seed's client: ioredis with auto-pipelining, reading from replicas on a cluster.
 * @param {import('../targets/redis.js').RedisConn} conn
 * @param {'master'|'replica'} readFrom
 * @param {string} standaloneAddr the node a standalone reader reads from
 */
export function seedClient(conn, readFrom, standaloneAddr) {
  const auth = { username: conn.username, password: conn.password, tls: conn.tls || undefined };
  if (!conn.cluster) {
    const cut = standaloneAddr.lastIndexOf(':');
    return new Redis({ host: standaloneAddr.slice(0, cut), port: Number(standaloneAddr.slice(cut + 1)), db: conn.db, enableAutoPipelining: true, ...auth });
  }
  return new Cluster([{ host: conn.host, port: conn.port }], {
    scaleReads: readFrom === 'replica' ? 'slave' : 'master',
    enableAutoPipelining: true,
    redisOptions: auth,
  });
}
