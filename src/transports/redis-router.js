/**
 * Routes commands to the node that serves their slot — its master, or for readers one of its
 * replicas — over one raw pipe per node, and follows the cluster when it changes: MOVED updates
 * the slot and triggers a topology refresh (cluster-sender.js answers ASK with ASKING on the named node).
 * A replica that stops answering a reader is set aside (fallBack): its slots are read from
 * another replica of its master, or the master, until the cluster no longer flags it and it
 * answers, in sync with its master, again. A pipe that closes unasked is reopened at once, and
 * the drop logged (conn-drops.js).
 */
import { keySlot } from './slot.js';
import { classify, UNOWNED } from './cluster-policy.js';
import { within } from './bounds.js';
import { DropLog, whyDropped } from './conn-drops.js';
import { discover, openPipe, parseInfo, slotTable } from './redis.js';
import { readTable, replicaOf } from './read-table.js';

/** How often a replica set aside is looked at again, ms. */
const RECHECK_MS = 1000;
/** Nodes one read moves to, at most, when the one it went to stops answering (a replica, another, the master). */
const MAX_FALLBACKS = 3;

export class RedisRouter {
  /**
   * @param {import('./redis.js').RedisConn} conn
   * @param {{ readFrom?: 'master'|'replica', spread?: number, watchDrops?: boolean, replyTimeoutMs?: number }} [opts] reads from replicas:
   *   each slot goes to one replica of its master, picked by `spread` (e.g. the reader's number)
   *   so several readers share the replicas; a master without replicas serves its own reads.
   *   watchDrops: a pipe that closes unasked is logged in `drops` and reopened at once.
   *   replyTimeoutMs: a node silent this long while it owes a reply is given up on (reply-watch.js)
   */
  constructor(conn, { readFrom = 'master', spread = 0, watchDrops = false, replyTimeoutMs = 0 } = {}) {
    this.conn = conn;
    this.watchDrops = watchDrops;
    this.replyTimeoutMs = replyTimeoutMs;
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
    /** @type {string[]} slot → its master, as the cluster last said (table: where reads go) */
    this.masterTable = [];
    /** @type {Map<string, number>} replicas set aside (addr → since when, epoch ms) */
    this.down = new Map();
    /** @type {Set<string>} nodes reading in place of a replica set aside */
    this.standIns = new Set();
    /** Reads sent to a stand-in since the reader last took the count. */
    this.fallbacks = 0;
    this.drops = new DropLog();
    /** MOVED replies told (moved()) since the reader last took the count: without --cluster, the sign of a cluster node */
    this.movedReplies = 0;
    this.closing = false;
    this.recheckTimer = null;
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
      const p = openPipe(this.conn, addr.slice(0, cut), Number(addr.slice(cut + 1)), { readonly, replyTimeoutMs: this.replyTimeoutMs })
        .then(async (pipe) => {
          try {
            await this.onOpen?.(pipe);
          } catch (e) {
            // a node that answers but cannot be set up yet (LOADING, as a restarted server reads its
            // data back): closed here (by us: no drop), not kept half-ready, so that the next use
            // opens another and the drop ends once a connection is ready. Kept, it served reads for
            // the rest of the run while its drop was never over ("not reconnected before the end")
            // and its own close was not watched.
            pipe.close();
            throw e;
          }
          this.pipes.set(addr, pipe);
          if (this.watchDrops) {
            pipe.onClose = (err) => this.#dropped(addr, pipe, err);
            this.drops.reconnected(addr, 'pipe');
          }
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
    this.movedReplies++;
    // the masters' table learns it too: the read table is rebuilt from it when a replica is set
    // aside (#route), and must not send the slot back to its old master before the refresh
    if (this.conn.cluster) this.masterTable[slot] = addr;
    if (this.table[slot] !== addr) {
      this.table[slot] = addr;
      this.epoch++;
    }
    this.refreshSoon();
  }

  /**
   * A read about to go to `addr`, counted as a fallback when `addr` stands in for a replica set
   * aside (once per request — a node's share of a phase — not per key); returns `addr`.
   * @param {string} addr
   */
  countRead(addr) {
    if (this.standIns.has(addr)) this.fallbacks++;
    return addr;
  }

  /**
   * A read sent to `addr` failed with `err`; true says to send it again where addrFor says now.
   * Only a lost, refused or silent connection (cluster-policy.js: `connection`) is sent again;
   * a reply cluster-policy.js handles (MOVED, LOADING…) is not: false. A replica, when reading
   * replicas of a cluster, is set aside: its slots go to another replica of its master, or to the
   * master. Any other node (a master, a standalone server) is asked again on a new connection:
   * a CLIENT KILL or a restart cut the request, not the node (one that fell silent would only be
   * waited for again: false).
   * @param {string} addr
   * @param {unknown} err
   */
  fallBack(addr, err) {
    const e = /** @type {{ message?: string, silent?: boolean }} */ (err);
    if (classify(String(e?.message)).kind !== 'connection') return false;
    // another read found it first: the table already points elsewhere
    if (this.down.has(addr)) return true;
    const replica = this.readFrom === 'replica' && this.conn.cluster && this.nodes.find((n) => n.addr === addr)?.role === 'replica';
    if (!replica) return !e?.silent;
    this.down.set(addr, Date.now());
    if (this.#route()) this.epoch++;
    this.#recheckLater();
    return true;
  }

  /**
   * The rule every read's resend follows: a read to `addr` failed with `err` after `attempts`
   * resends; returns when it is to be sent again where addrFor says now (fallBack: a replica set
   * aside, a master's connection cut), throws `err` when not, or after MAX_FALLBACKS resends.
   * @param {string} addr
   * @param {unknown} err
   * @param {number} attempts
   */
  readAgain(addr, err, attempts) {
    if (attempts >= MAX_FALLBACKS || !this.fallBack(addr, err)) throw err;
  }

  /**
   * One read to the node `where()` names (counted by countRead), sent again under readAgain's rule.
   * @template T
   * @param {() => string} where
   * @param {(addr: string) => Promise<T>} send
   * @returns {Promise<T>}
   */
  async read(where, send) {
    for (let attempts = 0; ; attempts++) {
      const addr = this.countRead(where());
      try {
        return await send(addr);
      } catch (e) {
        this.readAgain(addr, e, attempts);
      }
    }
  }

  /** MOVED replies told since the last call. */
  takeMoved() {
    const n = this.movedReplies;
    this.movedReplies = 0;
    return n;
  }

  /** Reads taken from a stand-in since the last call. */
  takeFallbacks() {
    const n = this.fallbacks;
    this.fallbacks = 0;
    return n;
  }

  /** Re-reads the topology, at most one refresh at a time. */
  refreshSoon() {
    if (!this.refreshing) {
      this.refreshing = this.refresh()
        .catch(() => {})
        .finally(() => {
          this.refreshing = null;
        });
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
    const nodes = await within(discover(pipe, this.conn), this.conn.connectTimeoutMs ?? 3000, `cannot connect to ${pipe.addr}`).catch(
      (e) => {
        pipe.onClose = null; // closed by us: not a drop
        pipe.close();
        throw e;
      },
    );
    const seed = `${this.conn.host}:${this.conn.port}`;
    this.standalone =
      this.readFrom === 'replica' ? (replicaOf(nodes, nodes.find((n) => n.role === 'master')?.id, this.spread) ?? seed) : seed;
    const grew = nodes.length !== this.nodes.length;
    this.nodes = nodes;
    this.masterTable = this.conn.cluster ? slotTable(nodes) : [];
    if (this.#route() || grew) this.epoch++;
  }

  /** Where each slot is read (read-table.js), the replicas set aside left out; true when that changed. */
  #route() {
    const { table, standIns } = readTable({
      masterTable: this.masterTable,
      nodes: this.nodes,
      readFrom: this.readFrom,
      spread: this.spread,
      down: this.down,
    });
    const changed = table.length !== this.table.length || table.some((addr, s) => addr !== this.table[s]);
    this.table = table;
    this.standIns = standIns;
    return changed;
  }

  /** Looks at the replicas set aside again in a while, as long as there are any. */
  #recheckLater() {
    if (this.recheckTimer || this.closing) return;
    this.recheckTimer = setTimeout(async () => {
      await this.refreshSoon();
      await this.#recheck();
      this.recheckTimer = null;
      if (this.down.size) this.#recheckLater();
    }, RECHECK_MS);
    this.recheckTimer.unref?.();
  }

  /**
   * A replica set aside is back when the cluster no longer flags it (fail, fail?) and it answers
   * with its link to its master up: a replica restarted but not yet in sync would read as
   * missing items. One that the cluster forgot is dropped from the list.
   */
  async #recheck() {
    const back = await Promise.all(
      [...this.down.keys()].map(async (addr) => {
        const node = this.nodes.find((n) => n.addr === addr);
        if (!node) return addr;
        if (node.failed || node.suspect || this.closing) return null;
        try {
          const pipe = await within(this.pipe(addr), this.conn.connectTimeoutMs ?? 3000, `cannot connect to ${addr}`);
          const info = parseInfo(
            String(await within(pipe.call(['INFO', 'replication']), this.conn.connectTimeoutMs ?? 3000, `${addr} did not answer`)),
          );
          return info.master_link_status === 'up' ? addr : null;
        } catch {
          return null;
        }
      }),
    );
    let changed = false;
    for (const addr of back) if (addr && this.down.delete(addr)) changed = true;
    if (changed && this.#route()) this.epoch++;
  }

  /** A pipe closed unasked: logged, and reopened at once (the time to reconnect is the node's, not the next cycle's). */
  #dropped(addr, pipe, err) {
    if (this.closing || this.pipes.get(addr) !== pipe) return;
    this.drops.dropped(addr, 'pipe', Date.now(), whyDropped(err));
    this.pipe(addr).catch(() => {}); // a node that is gone stays in the log until a later open succeeds
  }

  close() {
    this.closing = true;
    clearTimeout(this.recheckTimer);
    for (const p of this.pipes.values()) {
      p.onClose = null;
      p.close();
    }
    this.pipes.clear();
  }
}
