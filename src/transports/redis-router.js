/**
 * Routes commands to the node that serves their slot — its master, or for readers one of its
 * replicas — over one raw pipe per node, and follows the cluster when it changes: MOVED updates
 * the slot and triggers a topology refresh (cluster-sender.js answers ASK with ASKING on the named node).
 */
import { keySlot } from './slot.js';
import { UNOWNED } from './cluster-policy.js';
import { within } from './bounds.js';
import { discover, openPipe, slotTable } from './redis.js';

export class RedisRouter {
  /**
   * @param {import('./redis.js').RedisConn} conn
   * @param {{ readFrom?: 'master'|'replica', spread?: number }} [opts] reads from replicas:
   *   each slot goes to one replica of its master, picked by `spread` (e.g. the reader's number)
   *   so several readers share the replicas; a master without replicas serves its own reads
   */
  constructor(conn, { readFrom = 'master', spread = 0 } = {}) {
    this.conn = conn;
    this.readFrom = readFrom;
    this.spread = spread;
    /** @type {Map<string, import('./redis-pipe.js').RespPipe>} */
    this.pipes = new Map();
    /** @type {Map<string, Promise<import('./redis-pipe.js').RespPipe>>} */
    this.opening = new Map();
    /** Bumped whenever slot ownership changes: cached per-node plans are rebuilt. */
    this.epoch = 0;
    this.nodes = [];
    this.table = [];
    this.refreshing = null;
    this.onOpen = null;
  }

  /** Connects to the seed node and every node commands are routed to. */
  async open() {
    const seed = await this.pipe(`${this.conn.host}:${this.conn.port}`);
    await this.#load(seed);
    await Promise.all(this.targets().map((addr) => this.pipe(addr)));
    return this;
  }

  /** Every address commands are routed to. */
  targets() {
    return [...new Set(this.conn.cluster ? this.table.filter(Boolean) : [this.addrFor(0)])];
  }

  masters() {
    return this.nodes.filter((n) => n.role === 'master' && !n.failed && n.slots.length > 0);
  }

  /**
   * Address of the node that serves `slot` (the only one when standalone).
   * @param {number} slot
   */
  addrFor(slot) {
    return this.conn.cluster ? this.table[slot] : this.standalone;
  }

  /**
   * The open pipe to `addr`, connecting (once) when needed. A closed pipe is reopened.
   * @param {string} addr
   */
  async pipe(addr) {
    // a slot whose master just failed has no known owner until a replica takes over
    if (!addr) throw new Error(UNOWNED);
    const open = this.pipes.get(addr);
    if (open && !open.closed) return open;
    if (!this.opening.has(addr)) {
      const cut = addr.lastIndexOf(':');
      // cluster replicas serve reads only after READONLY (standalone replicas always do)
      const readonly = this.readFrom === 'replica' && this.conn.cluster;
      const p = openPipe(this.conn, addr.slice(0, cut), Number(addr.slice(cut + 1)), { readonly })
        .then(async (pipe) => {
          this.pipes.set(addr, pipe);
          await this.onOpen?.(pipe);
          return pipe;
        })
        .finally(() => this.opening.delete(addr));
      this.opening.set(addr, p);
    }
    return this.opening.get(addr);
  }

  /** Cluster slot of a key. */
  slotOf(key) {
    return keySlot(key);
  }

  /** Open pipe for `addr` or undefined (hot path: no promise). */
  ready(addr) {
    const p = this.pipes.get(addr);
    return p && !p.closed ? p : undefined;
  }

  /**
   * A MOVED reply: the slot lives at `addr` now. The rest of the map is refreshed soon after.
   * @param {number} slot
   * @param {string} addr
   */
  moved(slot, addr) {
    if (this.table[slot] !== addr) {
      this.table[slot] = addr;
      this.epoch++;
    }
    this.refreshSoon();
  }

  /** Re-reads the topology, at most one refresh at a time. */
  refreshSoon() {
    if (!this.refreshing) {
      this.refreshing = this.refresh().catch(() => {}).finally(() => { this.refreshing = null; });
    }
    return this.refreshing;
  }

  async refresh() {
    for (const m of [...this.masters(), { addr: `${this.conn.host}:${this.conn.port}` }]) {
      try {
        const p = await this.pipe(m.addr);
        await this.#load(p);
        await Promise.all(this.targets().map((addr) => this.pipe(addr)));
        return;
      } catch {
        // that node is gone: ask the next one
      }
    }
    throw new Error('no node answered CLUSTER NODES');
  }

  async #load(pipe) {
    // a node that accepts the connection but never answers (frozen) fails like one that refuses it
    const nodes = await within(discover(pipe, this.conn), this.conn.connectTimeoutMs ?? 3000, `cannot connect to ${pipe.addr}`).catch((e) => {
      pipe.close();
      throw e;
    });
    const table = this.conn.cluster ? slotTable(nodes) : [];
    const seed = `${this.conn.host}:${this.conn.port}`;
    this.standalone = this.readFrom === 'replica' ? this.#replicaOf(nodes, nodes.find((n) => n.role === 'master')?.id) ?? seed : seed;
    if (this.readFrom === 'replica') {
      const byAddr = new Map(nodes.map((n) => [n.addr, n]));
      const pick = new Map();
      for (let s = 0; s < table.length; s++) {
        const master = byAddr.get(table[s]);
        if (!master) continue;
        if (!pick.has(master.addr)) pick.set(master.addr, this.#replicaOf(nodes, master.id) ?? master.addr);
        table[s] = pick.get(master.addr);
      }
    }
    const changed = table.some((addr, s) => addr !== this.table[s]) || nodes.length !== this.nodes.length;
    this.nodes = nodes;
    this.table = table;
    if (changed) this.epoch++;
  }

  /** One replica of master `id` (by `spread`), or undefined when it has none. */
  #replicaOf(nodes, id) {
    const replicas = nodes.filter((n) => n.role === 'replica' && n.masterId === id && !n.failed).sort((a, b) => a.addr.localeCompare(b.addr));
    return replicas.length ? replicas[this.spread % replicas.length].addr : undefined;
  }

  close() {
    for (const p of this.pipes.values()) p.close();
    this.pipes.clear();
  }
}
