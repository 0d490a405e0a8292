/**
 * Fetching the values behind a list of item keys, three ways:
 * - `mget` (default): keys grouped by slot, one MGET per slot (per batch when standalone), all
 *   in flight at once on the raw pipes of the read nodes (fetch-bytes.js does the same on bytes
 *   when the data model's range replies can be scanned in place);
 * - `pipeline`: one GET per key, grouped per node, each node's GETs written as one buffer;
 * - `get`: the seed's way — one ioredis `get()` promise per key (auto-pipelined), awaited together.
 * Every strategy returns values aligned with the keys, null where the key has expired. A data
 * model whose values are not strings (a hash) names the command reading one value (valueArgs):
 * then `mget` and `pipeline` both send that command per key, `get` sends it through ioredis.
 * `mget` and `pipeline` read a node's keys again from another node holding their slots when it
 * is a replica that stopped answering (the router sets it aside); a value read twice is the same.
 */
import { keySlot } from '../../transports/slot.js';
import { tlsFor } from '../../transports/redis.js';
import { encodeCommand } from '../../transports/resp.js';
import { Redis, Cluster } from 'ioredis';
import { MAX_FALLBACKS } from '../../transports/redis-router.js';
import { runsByNode, slotRuns } from './slot-runs.js';

export const FETCH_MODES = ['mget', 'pipeline', 'get'];

export class Fetcher {
  /**
   * @param {import('../../transports/redis-router.js').RedisRouter} router the read router
   * @param {'mget'|'pipeline'|'get'} mode
   * @param {import('ioredis').Redis|import('ioredis').Cluster} [seedClient] for `get`
   * @param {(key: string) => Array<string|number>} [valueArgs] the command reading one value, when not GET
   */
  constructor(router, mode, seedClient, valueArgs) {
    this.router = router;
    this.mode = mode;
    this.seedClient = seedClient;
    this.valueArgs = valueArgs;
  }

  /**
   * @param {string[]} keys
   * @returns {Promise<Array<string|null>>}
   */
  fetch(keys) {
    if (keys.length === 0) return Promise.resolve([]);
    const args = this.valueArgs;
    if (this.mode === 'get') return Promise.all(keys.map((k) => (args ? this.#seedCall(args(k)) : this.seedClient.get(k))));
    return this.mode === 'mget' && !args ? this.#mget(keys) : this.#pipeline(keys);
  }

  /**
   * One valueArgs command through the seed's ioredis client.
   * @param {Array<string|number>} argv
   * @returns {Promise<string|null>}
   */
  #seedCall([command, ...rest]) {
    return /** @type {Promise<string|null>} */ (this.seedClient.call(String(command), ...rest.map(String)));
  }

  /** One MGET per slot, all of a node's MGETs written as one buffer. */
  #mget(keys) {
    const { order, runs } = slotRuns(keys.length, (i) => keySlot(keys[i]), this.router.conn.cluster);
    const out = new Array(keys.length).fill(null);
    return this.#eachNode(runs, (addr, nodeRuns) => {
      let text = '';
      for (const run of nodeRuns) {
        text += `*${run.to - run.from + 1}\r\n$4\r\nMGET\r\n`;
        for (let j = run.from; j < run.to; j++) {
          const k = keys[order[j]];
          text += `$${k.length}\r\n${k}\r\n`;
        }
      }
      return this.#send(addr, Buffer.from(text, 'latin1'), nodeRuns.length, (r, reply) => {
        const { from } = nodeRuns[r];
        for (let j = 0; j < reply.length; j++) out[order[from + j]] = reply[j];
      });
    }).then(() => out);
  }

  /** One GET (or valueArgs command) per key, each node's commands written as one buffer. */
  #pipeline(keys) {
    const args = this.valueArgs;
    const { order, runs } = slotRuns(keys.length, (i) => keySlot(keys[i]), this.router.conn.cluster);
    const out = new Array(keys.length).fill(null);
    return this.#eachNode(runs, (addr, nodeRuns) => {
      let text = '';
      const bufs = [];
      const idx = [];
      for (const run of nodeRuns) {
        for (let j = run.from; j < run.to; j++) {
          const k = keys[order[j]];
          if (args) bufs.push(encodeCommand(args(k)));
          else text += `*2\r\n$3\r\nGET\r\n$${k.length}\r\n${k}\r\n`;
          idx.push(order[j]);
        }
      }
      const buf = args ? Buffer.concat(bufs) : Buffer.from(text, 'latin1');
      return this.#send(addr, buf, idx.length, (i, reply) => { out[idx[i]] = reply; });
    }).then(() => out);
  }

  /**
   * `send` for each node's runs, all at once; a replica that stops answering is set aside and its
   * runs sent again where the router reads their slots now.
   * @param {import('./slot-runs.js').SlotRun[]} runs
   * @param {(addr: string, nodeRuns: import('./slot-runs.js').SlotRun[]) => Promise<void>} send
   * @returns {Promise<void>}
   */
  async #eachNode(runs, send, attempts = 0) {
    await Promise.all([...runsByNode(this.router, runs)].map(async ([addr, nodeRuns]) => {
      try {
        await send(this.router.countRead(addr), nodeRuns);
      } catch (e) {
        if (attempts >= MAX_FALLBACKS || !this.router.fallBack(addr, e)) throw e;
        await this.#eachNode(nodeRuns, send, attempts + 1);
      }
    }));
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
 * @param {import('../../transports/redis.js').RedisConn} conn
 * @param {'master'|'replica'} readFrom
 * @param {string} standaloneAddr the node a standalone reader reads from
 */
export function seedClient(conn, readFrom, standaloneAddr) {
  const auth = { username: conn.username, password: conn.password };
  if (!conn.cluster) {
    const cut = standaloneAddr.lastIndexOf(':');
    const host = standaloneAddr.slice(0, cut);
    return new Redis({ host, port: Number(standaloneAddr.slice(cut + 1)), db: conn.db, enableAutoPipelining: true, ...auth, tls: tlsFor(conn, host) || undefined });
  }
  // one set of options for every node ioredis discovers: verified as the seed's name, or by IP
  return new Cluster([{ host: conn.host, port: conn.port }], {
    scaleReads: readFrom === 'replica' ? 'slave' : 'master',
    enableAutoPipelining: true,
    redisOptions: { ...auth, tls: tlsFor(conn, conn.host) || undefined },
  });
}
