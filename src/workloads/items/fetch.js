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
 * `get` leaves the routing to ioredis, told to pass over a replica whose connection ended
 * (usableReplica): that shard is read from its master, a fallback like the others; a replica
 * that falls silent while it owes replies is closed for it (ioredis-watch.js), as the reader's
 * own connections are given up on (reply-watch.js).
 */
import { keySlot } from '../../transports/slot.js';
import { tlsFor } from '../../transports/redis.js';
import { encodeCommand } from '../../transports/resp.js';
import { logDrops, watchReplicaSilence } from '../../transports/ioredis-watch.js';
import { silenceError } from '../../transports/reply-watch.js';
import { whyDropped } from '../../transports/conn-drops.js';
import { runsByNode, slotRuns } from './slot-runs.js';

export const FETCH_MODES = ['mget', 'pipeline', 'get'];

/** What ioredis rejects a command with when its node's connection went under it. */
const LOST = /^Connection is closed|ECONNRESET|ECONNREFUSED|EPIPE/;

/** No replica set aside. */
const NONE = new Map();

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
    if (this.mode === 'get') {
      const gets = () => Promise.all(keys.map((k) => (args ? this.#seedCall(args(k)) : this.seedClient.get(k))));
      // a connection lost under the reads (a replica that died while a batch was on its way):
      // every key once more, where ioredis sends them now; once for the lot, not a catch per GET
      return gets().catch((e) => {
        if (!LOST.test(String(e?.message))) throw e;
        return gets();
      });
    }
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
      return this.#send(addr, buf, idx.length, (i, reply) => {
        out[idx[i]] = reply;
      });
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
    await Promise.all(
      [...runsByNode(this.router, runs)].map(async ([addr, nodeRuns]) => {
        try {
          await send(this.router.countRead(addr), nodeRuns);
        } catch (e) {
          this.router.readAgain(addr, e, attempts);
          await this.#eachNode(nodeRuns, send, attempts + 1);
        }
      }),
    );
  }

  /** Writes n commands to one node; rejects on the first error reply. */
  async #send(addr, buf, n, onValue) {
    const pipe = this.router.ready(addr) ?? (await this.router.pipe(addr));
    return new Promise((resolve, reject) => {
      let failure;
      pipe.send(buf, {
        n,
        value: (_s, i, v) => onValue(i, v),
        error: (_s, _i, err) => {
          failure ??= err;
        },
        done: () => (failure ? reject(failure) : resolve()),
      });
    });
  }
}

/**
 * The seed's client for a reader, beside its router: what ioredis reads from a master whose
 * shard had a replica when the router last read the cluster is a replica fallback, counted with
 * the router's own.
 * @param {import('../../transports/redis-router.js').RedisRouter} router
 */
export async function seedClientFor(router) {
  const served = servedMasters(router);
  const client = await seedClient(
    router.conn,
    router.readFrom,
    router.addrFor(0),
    (master) => {
      if (served.has(master)) router.fallbacks++;
    },
    () => router.down,
  );
  // its connections' drops are the run's, beside the router's (ioredis-watch.js)
  logDrops(client, router.drops, 'seed');
  if (!router.conn.cluster) return client;
  // a node whose connection ended: a replica is set aside as for the router's own reads, until the
  // cluster no longer flags it and it answers (ioredis alone would open it again at its next slot
  // refresh, while the cluster still lists it, and its reads would wait out the node timeout)
  client.on('-node', (/** @type {{ options: { host: string, port: number } }} */ redis) => {
    const addr = `${redis.options.host}:${redis.options.port}`;
    if (!router.closing) router.fallBack(addr, new Error(`connection to ${addr} closed`));
  });
  // a replica silent while it owes replies is closed, so the above reads it elsewhere, and logged as given up
  const ms = router.replyTimeoutMs;
  if (router.readFrom === 'replica' && ms > 0) {
    const stop = watchReplicaSilence(/** @type {import('ioredis').Cluster} */ (client), ms, (addr) =>
      router.drops.dropped(addr, 'seed', Date.now(), whyDropped(silenceError(addr, ms))),
    );
    client.once('end', stop);
  }
  return client;
}

/**
 * The masters (host:port) the router saw a replica of.
 * @param {import('../../transports/redis-router.js').RedisRouter} router
 * @returns {Set<string>}
 */
export function servedMasters(router) {
  const { nodes } = router;
  return new Set(
    nodes
      .filter((n) => n.role === 'replica')
      .map((r) => nodes.find((m) => m.id === r.masterId)?.addr)
      .filter((a) => a !== undefined),
  );
}

/**
 * The seed's client: ioredis with auto-pipelining, reading from replicas on a cluster.
 * @param {import('../../transports/redis.js').RedisConn} conn
 * @param {'master'|'replica'} readFrom
 * @param {string} standaloneAddr the node a standalone reader reads from
 * @param {(master: string) => void} [onFallback] a read went to the master at host:port, as no replica of its
 *   slot was left (ioredis drops a failed replica from its slot map at its next refresh: the caller knows whether
 *   the shard had one)
 * @param {() => ReadonlyMap<string, unknown>} [setAside] the replicas (host:port) not to be read now (set aside by the caller)
 */
export async function seedClient(conn, readFrom, standaloneAddr, onFallback = () => {}, setAside = () => NONE) {
  // loaded here, not at the top: only --fetch get reads through ioredis, and loading it is a good
  // part of what starting a reader (or the producer's verification) costs
  const { Redis, Cluster } = await import('ioredis');
  const auth = { username: conn.username, password: conn.password };
  if (!conn.cluster) {
    const cut = standaloneAddr.lastIndexOf(':');
    const host = standaloneAddr.slice(0, cut);
    return new Redis({
      host,
      port: Number(standaloneAddr.slice(cut + 1)),
      db: conn.db,
      enableAutoPipelining: true,
      ...auth,
      tls: tlsFor(conn, host) || undefined,
    });
  }
  // one set of options for every node ioredis discovers: verified as the seed's name, or by IP
  return new Cluster([{ host: conn.host, port: conn.port }], {
    scaleReads: readFrom === 'replica' ? usableReplica(onFallback, setAside) : 'master',
    enableAutoPipelining: true,
    redisOptions: { ...auth, tls: tlsFor(conn, conn.host) || undefined },
  });
}

/**
 * ioredis's `scaleReads: 'slave'` (a replica of the slot, at random), except that a replica
 * whose connection was lost is passed over, and the master reads when none is left. ioredis
 * opens node connections lazily and never reopens a lost one (it waits for a slot refresh):
 * a replica not yet used is fine (`wait`), one that ended or closed is not. 'slave'
 * itself keeps picking a replica that died (its slot map still names it until the next
 * refresh), finds it gone from its pool and sends the read to a random replica instead: MOVED,
 * which an auto-pipelined batch of reads for several slots does not follow, and every cycle
 * failed until the end of the run.
 * @param {(master: string) => void} onFallback
 * @param {() => ReadonlyMap<string, unknown>} [setAside] read at each pick: an address is only made when it holds any
 * @returns {(nodes: Array<{ status: string, options: { host?: string, port?: number } }|undefined>) => any}
 */
export function usableReplica(onFallback, setAside = () => NONE) {
  return (nodes) => {
    const down = setAside();
    let pick = null;
    let usable = 0;
    // nodes[0] is the slot's master, the rest its replicas (CLUSTER SLOTS' order); one usable
    // replica picked at random without building an array (auto-pipelined: once per batch of GETs)
    for (let i = 1; i < nodes.length; i++) {
      const status = nodes[i]?.status;
      if (
        !status ||
        status === 'end' ||
        status === 'close' ||
        (down.size > 0 && down.has(`${nodes[i].options.host}:${nodes[i].options.port}`))
      )
        continue;
      usable++;
      if (Math.random() * usable < 1) pick = nodes[i];
    }
    if (pick) return pick;
    const master = nodes[0];
    if (master) onFallback(`${master.options.host}:${master.options.port}`);
    return master;
  };
}
