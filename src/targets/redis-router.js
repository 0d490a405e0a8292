/**
 * Routes pre-encoded commands to the master that owns their slot, over one raw pipe per
 * master, and follows the cluster when it changes: MOVED updates the slot and triggers a
 * topology refresh, ASK is answered with ASKING on the named node.
 */
import { discover, openPipe, slotTable } from './redis.js';

export class RedisRouter {
  /**
   * @param {import('./redis.js').RedisConn} conn
   */
  constructor(conn) {
    this.conn = conn;
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

  /** Connects to the seed node and every master. */
  async open() {
    const seed = await this.pipe(`${this.conn.host}:${this.conn.port}`);
    await this.#load(seed);
    await Promise.all(this.masters().map((m) => this.pipe(m.addr)));
    return this;
  }

  masters() {
    return this.nodes.filter((n) => n.role === 'master' && !n.failed && n.slots.length > 0);
  }

  /**
   * Address of the master that owns `slot` (the only one when standalone).
   * @param {number} slot
   */
  addrFor(slot) {
    return this.conn.cluster ? this.table[slot] : `${this.conn.host}:${this.conn.port}`;
  }

  /**
   * The open pipe to `addr`, connecting (once) when needed. A closed pipe is reopened.
   * @param {string} addr
   */
  async pipe(addr) {
    const open = this.pipes.get(addr);
    if (open && !open.closed) return open;
    if (!this.opening.has(addr)) {
      const cut = addr.lastIndexOf(':');
      const p = openPipe(this.conn, addr.slice(0, cut), Number(addr.slice(cut + 1)))
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
        await Promise.all(this.masters().map((n) => this.pipe(n.addr)));
        return;
      } catch {
        // that node is gone: ask the next one
      }
    }
    throw new Error('no node answered CLUSTER NODES');
  }

  async #load(pipe) {
    const nodes = await discover(pipe, this.conn);
    const table = this.conn.cluster ? slotTable(nodes) : [];
    const changed = table.some((addr, s) => addr !== this.table[s]) || nodes.length !== this.nodes.length;
    this.nodes = nodes;
    this.table = table;
    if (changed) this.epoch++;
  }

  close() {
    for (const p of this.pipes.values()) p.close();
    this.pipes.clear();
  }
}
