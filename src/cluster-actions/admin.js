/**
 * Administrative connections to the nodes of one cluster, opened on demand with the run's
 * credentials and TLS settings. ioredis rather than the raw pipe: it returns keys as Buffers
 * (binary-safe migration) and times commands out, and nothing here is on a hot path.
 */
import { parseClusterNodes } from '../transports/redis.js';

/** A node that does not answer within this is treated as down (MIGRATE has its own, shorter, timeout). */
const COMMAND_TIMEOUT_MS = 20_000;

/**
 * The addresses each cluster (by seed host:port) had when an earlier action last looked, so an
 * action after one that killed or removed the seed node still finds the cluster.
 * @type {Map<string, string[]>}
 */
const lastKnown = new Map();

export class ClusterAdmin {
  /** @param {import('../transports/redis.js').RedisConn} conn */
  constructor(conn) {
    this.conn = conn;
    /** @type {Map<string, Promise<import('ioredis').Redis>>} */
    this.clients = new Map();
    this.seed = `${conn.host}:${conn.port}`;
    /** Addresses that served a full view last time, asked first: the seed may be the node just killed. */
    this.known = lastKnown.get(this.seed) ?? [];
  }

  /**
   * A connected client for `addr`; a client whose connection ended is replaced.
   * @param {string} addr host:port
   * @returns {Promise<import('ioredis').Redis>}
   */
  async client(addr) {
    // loaded here, not at the top: a run without cluster actions never pays for ioredis
    const { Redis } = await import('ioredis');
    const cached = this.clients.get(addr);
    if (cached) {
      const c = await cached.catch(() => null);
      if (c && c.status === 'ready') return c;
      this.clients.delete(addr);
      c?.disconnect();
    }
    const cut = addr.lastIndexOf(':');
    const c = new Redis({
      host: addr.slice(0, cut),
      port: Number(addr.slice(cut + 1)),
      tls: this.conn.tls || undefined,
      connectTimeout: this.conn.connectTimeoutMs ?? 3000,
      commandTimeout: COMMAND_TIMEOUT_MS,
      lazyConnect: true,
      retryStrategy: () => null,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      enableReadyCheck: false,
    });
    c.on('error', () => {}); // failures surface on the command that hit them
    const { username, password } = this.conn;
    const p = c
      .connect()
      .then(async () => {
        // AUTH by hand: ioredis reports a refused AUTH only as a closed stream on the next command
        if (password)
          await c.call('AUTH', ...(username ? [username, password] : [password])).catch((err) => {
            throw new Error(`${addr} refused AUTH: ${err.message}`);
          });
        return c;
      })
      .catch((err) => {
        this.clients.delete(addr);
        c.disconnect();
        throw /refused AUTH/.test(err.message) ? err : new Error(`cannot connect to ${addr}: ${err.code ?? err.message}`);
      });
    this.clients.set(addr, p);
    return p;
  }

  /**
   * One command on one node; replies as strings.
   * @param {string} addr
   * @param {...(string|number|Buffer)} args
   */
  async call(addr, ...args) {
    return whileLoading(async () => (await this.client(addr)).call(String(args[0]), ...args.slice(1)));
  }

  /**
   * One command on one node; replies as Buffers (keys).
   * @param {string} addr
   * @param {...(string|number|Buffer)} args
   */
  async callBuffer(addr, ...args) {
    return whileLoading(async () => (await this.client(addr)).callBuffer(String(args[0]), ...args.slice(1)));
  }

  /**
   * Commands written to one node at once; each reply or error in its place. One write means the
   * node handles them in one go (one nodes.conf rewrite for a run of SETSLOTs, not one each).
   * @param {string} addr
   * @param {Array<Array<string|number|Buffer>>} commands
   * @param {{ buffers?: boolean }} [opts] replies as Buffers (keys)
   * @returns {Promise<Array<{ err?: Error, value?: any }>>}
   */
  async pipeline(addr, commands, { buffers = false } = {}) {
    const client = await this.client(addr);
    const method = buffers ? 'callBuffer' : 'call';
    const replies = await client.pipeline(commands.map(([name, ...args]) => [method, String(name), ...args])).exec();
    return (replies ?? []).map(([err, value]) => (err ? { err } : { value }));
  }

  /**
   * The cluster as the first node that answers sees it: nodes known to serve slots first,
   * then the seed. A view in which no master serves a slot (a node reset out of the
   * cluster) is passed over.
   * @returns {Promise<import('../transports/redis.js').RedisNode[]>}
   */
  async topology() {
    let last = 'no node to ask';
    for (const addr of new Set([...this.known, this.seed])) {
      try {
        const nodes = parseClusterNodes(/** @type {string} CLUSTER NODES replies with text */ (await this.call(addr, 'CLUSTER', 'NODES')));
        if (!nodes.some((n) => n.role === 'master' && n.slots.length > 0)) {
          last = `${addr} knows no master serving slots`;
          continue;
        }
        this.known = nodes
          .filter((n) => !n.failed)
          .sort((a, b) => b.slots.length - a.slots.length)
          .map((n) => n.addr);
        lastKnown.set(this.seed, this.known);
        return nodes;
      } catch (err) {
        if (/cluster support disabled/i.test(err.message))
          throw new Error(`${addr} is not a Redis Cluster node (cluster support disabled)`, { cause: err });
        last = `${addr}: ${err.message}`;
      }
    }
    throw new Error(`no cluster node answered CLUSTER NODES (${last})`);
  }

  /**
   * Closes the connection to a node and stops asking it for the topology (it left the cluster).
   * @param {string} addr
   */
  drop(addr) {
    this.#disconnect(addr);
    this.known = this.known.filter((a) => a !== addr);
    lastKnown.set(this.seed, this.known);
  }

  /** Closes every connection; what it learnt of the cluster stays for the next action. */
  close() {
    for (const addr of [...this.clients.keys()]) this.#disconnect(addr);
  }

  #disconnect(addr) {
    this.clients.get(addr)?.then(
      (c) => c.disconnect(),
      () => {},
    );
    this.clients.delete(addr);
  }
}

/** How long a node may answer LOADING (a replica reloading after a resync) before it is an error. */
const LOADING_WAIT_MS = 15_000;

/**
 * Runs `fn` again while the node answers LOADING: a replica that just resynced from its master
 * (slots arrived, a failover) refuses every command until its dataset is loaded.
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function whileLoading(fn) {
  const giveUp = Date.now() + LOADING_WAIT_MS;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!/^LOADING/.test(err.message) || Date.now() > giveUp) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
