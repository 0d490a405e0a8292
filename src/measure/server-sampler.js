/**
 * Redis CPU per node, once a second: Δ(used_cpu_user + used_cpu_sys) / Δwall from INFO cpu on
 * every master and every replica, over its own connections so the load never delays it. Works
 * on ElastiCache too; it replaces the seed's per-minute CloudWatch screenshots.
 *
 * A cluster may change under the run (--at actions, a failover, someone resharding): every few
 * seconds, and when asked, CLUSTER NODES is read again. A node that joins is sampled from then
 * on; a node whose role changed is reported in its new role; a node no longer listed is dropped;
 * a lost connection to a node that is still listed is opened again. Shard numbers stay as first seen, so a column keeps its meaning:
 * a new master takes the next number, a replica its master's.
 */
import { performance } from 'node:perf_hooks';
import { openPipe, parseClusterNodes, parseInfo } from '../targets/redis.js';

/**
 * @typedef {object} NodeCpu
 * @property {string} addr
 * @property {'master'|'replica'} role
 * @property {number} shard
 * @property {number|null} cpuPct  % of one core since the previous sample (null: no answer)
 */

/** Samples between two topology reads in a cluster. */
const REFRESH_EVERY = 5;
const CALL_TIMEOUT_MS = 900;

export class ServerSampler {
  /**
   * @param {import('../targets/redis.js').RedisConn} conn credentials for every node
   * @param {import('../targets/redis.js').RedisNode[]} nodes
   */
  constructor(conn, nodes) {
    this.conn = conn;
    this.nodes = nodes.map((n) => ({ addr: n.addr, host: n.host, port: n.port, role: n.role, shard: n.shard }));
    /** @type {Map<string, import('../targets/redis-pipe.js').RespPipe>} */
    this.pipes = new Map();
    this.last = new Map();
    this.samples = 0;
    /** @type {Map<string, number>} every node's shard number, kept when it leaves (it may come back) */
    this.everShard = new Map(this.nodes.map((n) => [n.addr, n.shard]));
    /** @type {Promise<void>|null} */
    this.refreshing = null;
    this.closed = false;
  }

  /** Connects to every node and takes the baseline reading. */
  async start() {
    await Promise.all(this.nodes.map(async (n) => {
      this.pipes.set(n.addr, await openPipe(this.conn, n.host, n.port));
    }));
    await this.sample();
    return this;
  }

  /** @returns {Promise<NodeCpu[]>} */
  async sample() {
    if (this.conn.cluster && ++this.samples % REFRESH_EVERY === 0) this.refreshSoon();
    return Promise.all(this.nodes.map(async (n) => {
      const pipe = this.pipes.get(n.addr);
      let cpuPct = null;
      try {
        if (!pipe || pipe.closed) throw new Error('not connected');
        const info = parseInfo(await withTimeout(pipe.call(['INFO', 'cpu']), CALL_TIMEOUT_MS));
        const at = performance.now();
        const used = Number(info.used_cpu_user) + Number(info.used_cpu_sys);
        const prev = this.last.get(n.addr);
        // a restarted node counts from zero again: no figure for the second it came back
        if (prev && at > prev.at && used >= prev.used) cpuPct = Math.round(((used - prev.used) / ((at - prev.at) / 1000)) * 1000) / 10;
        this.last.set(n.addr, { used, at });
      } catch {
        // a node that does not answer within the second shows as an empty cell, not a zero
      }
      return { addr: n.addr, role: n.role, shard: n.shard, cpuPct };
    }));
  }

  /** Reads the topology again in the background (one read at a time); sample() never waits for it. */
  refreshSoon() {
    if (this.conn.cluster && !this.closed) this.refreshing ??= this.refresh().catch(() => {}).finally(() => { this.refreshing = null; });
  }

  /** CLUSTER NODES from the first node that answers, then nodes, roles, shards and connections brought up to date. */
  async refresh() {
    let listed = null;
    for (const n of this.nodes) {
      const pipe = this.pipes.get(n.addr);
      if (!pipe || pipe.closed) continue;
      try {
        const view = parseClusterNodes(await withTimeout(pipe.call(['CLUSTER', 'NODES']), CALL_TIMEOUT_MS));
        // a node just reset (remove-shard) knows only itself, with no slots: ask another
        if (!view.some((f) => f.role === 'master' && f.slots.length > 0 && !f.failed)) continue;
        listed = view;
        break;
      } catch {
        // the next node
      }
    }
    if (!listed || this.closed) return;
    // a node the cluster no longer lists (a removed shard, reset or shut down) is no longer
    // sampled: an idle ex-master would pull the masters' average down
    const listedAddrs = new Set(listed.map((f) => f.addr));
    for (const n of this.nodes.filter((x) => !listedAddrs.has(x.addr))) {
      this.pipes.get(n.addr)?.close();
      this.pipes.delete(n.addr);
      this.last.delete(n.addr);
    }
    this.nodes = this.nodes.filter((x) => listedAddrs.has(x.addr));
    const shardById = new Map();
    const known = new Map(this.nodes.map((n) => [n.addr, n]));
    for (const n of this.nodes) this.everShard.set(n.addr, n.shard);
    let nextShard = Math.max(0, ...this.everShard.values()) + 1;
    // masters first, so a replica finds its master's number
    for (const f of [...listed.filter((x) => x.role === 'master'), ...listed.filter((x) => x.role !== 'master')]) {
      let n = known.get(f.addr);
      const before = n?.shard ?? this.everShard.get(f.addr);
      const shard = f.role === 'master' ? before ?? nextShard++ : shardById.get(f.masterId) ?? before ?? 0;
      if (!n) {
        n = { addr: f.addr, host: f.host, port: f.port, role: f.role, shard };
        this.nodes.push(n);
        known.set(n.addr, n);
      } else {
        n.role = f.role;
        n.shard = shard;
      }
      shardById.set(f.id, n.shard);
      this.everShard.set(n.addr, n.shard);
      if (!f.failed && !(this.pipes.get(n.addr)?.closed === false)) await this.#connect(n);
    }
  }

  async #connect(n) {
    try {
      const pipe = await openPipe(this.conn, n.host, n.port, { connectTimeoutMs: CALL_TIMEOUT_MS });
      if (this.closed) pipe.close();
      else {
        this.pipes.get(n.addr)?.close();
        this.pipes.set(n.addr, pipe);
      }
    } catch {
      // not reachable yet: the next refresh tries again
    }
  }

  close() {
    this.closed = true;
    for (const p of this.pipes.values()) p.close();
  }
}

function withTimeout(p, ms) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error('timeout')), ms); })]).finally(() => clearTimeout(t));
}
