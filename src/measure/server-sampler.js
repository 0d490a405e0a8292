/**
 * Redis CPU per node, once a second: Δ(used_cpu_user + used_cpu_sys) / Δwall from INFO cpu on
 * every master and every replica, over its own connections so the load never delays it. Works
 * on ElastiCache too; it replaces the seed's per-minute CloudWatch screenshots.
 *
 * Two figures per node: the whole process, and its main thread (used_cpu_*_main_thread, Redis 7
 * and later). The main thread runs every command: it is the single-threaded bottleneck a user
 * sizes for (CloudWatch's EngineCPUUtilization). With I/O threads the process can show far more
 * than the main thread, because the I/O threads busy-poll.
 *
 * It heals, because a headline figure that silently stops is worse than none: a connection
 * that was dropped (CLIENT KILL, a restarted server, a failover) is opened again at the next
 * sample, and one that does not answer within the second (a frozen node) is closed and opened
 * again with backoff. A second without a figure is an empty cell (a gap), never a zero; the
 * summary counts the gaps per node. A server that restarted counts its CPU from zero again: no
 * figure for the second it came back.
 *
 * The topology is read again every few seconds and when asked (an --at action, a node that
 * answers again), on a cluster (CLUSTER NODES) and standalone (INFO replication) alike: a node
 * that joins is sampled from then on; a node whose role changed is reported in its new role; a
 * node no longer listed is dropped. Shard numbers stay as first seen, so a column keeps its
 * meaning: a new master takes the next number, a replica its master's. Every change is told to
 * `onChange` in words, for the timeline's events and the summary's disturbances.
 */
import { performance } from 'node:perf_hooks';
import { discover, openPipe, parseClusterNodes, parseInfo } from '../transports/redis.js';
import { diffTopology } from './topology-diff.js';
import { within } from '../transports/bounds.js';

/**
 * @typedef {object} NodeCpu
 * @property {string} addr
 * @property {'master'|'replica'} role
 * @property {number} shard
 * @property {number|null} cpuPct  the whole process, % of one core since the previous sample (null: no answer)
 * @property {number|null} [enginePct]  the main thread, % of one core since the previous sample;
 *   undefined when the server does not report it (before Redis 7, other engines), null for a gap
 */

/** INFO cpu's main-thread fields (Redis 7+). */
const MAIN_USER = 'used_cpu_user_main_thread';
const MAIN_SYS = 'used_cpu_sys_main_thread';

/** Samples between two topology reads. */
const REFRESH_EVERY = 5;
/** A call (or a connect) that takes longer has missed its second. */
const CALL_TIMEOUT_MS = 900;
/** Reconnect backoff after a failed connect: doubling from the first to the last, ms. */
const BACKOFF_MS = [0, 500, 1000, 2000, 4000];
/** Seconds without an answer before a node is reported as not answering. */
const MISSES_TO_REPORT = 2;

export class ServerSampler {
  /**
   * @param {import('../transports/redis.js').RedisConn} conn credentials for every node
   * @param {import('../transports/redis.js').RedisNode[]} nodes
   * @param {{ onChange?: (text: string) => void }} [opts] told of every change seen, in words
   */
  constructor(conn, nodes, { onChange = () => {} } = {}) {
    this.conn = conn;
    this.onChange = onChange;
    this.nodes = nodes.map((n) => ({ addr: n.addr, host: n.host, port: n.port, role: n.role, shard: n.shard, failed: !!n.failed }));
    /** @type {Map<string, { pipe: import('../transports/redis-pipe.js').RespPipe|null, opening: Promise<any>|null, fails: number, nextTryAt: number, misses: number }>} */
    this.links = new Map();
    /** @type {Map<string, { used: number, main: number|null, at: number }>} the previous answer: CPU seconds (process, main thread) at performance.now() */
    this.last = new Map();
    /** @type {Set<string>} nodes whose last answer had the main-thread fields: their gaps are null, not undefined */
    this.reportsEngine = new Set();
    this.samples = 0;
    /** @type {Map<string, number>} every node's shard number, kept when it leaves (it may come back) */
    this.everShard = new Map(this.nodes.map((n) => [n.addr, n.shard]));
    /** @type {Promise<void>|null} */
    this.refreshing = null;
    this.closed = false;
    /** performance.now() of the last answer from any node: how long the target has been silent */
    this.lastAnswerAt = performance.now();
  }

  /** Connects to every node it can and takes the baseline reading. */
  async start() {
    await this.sample();
    return this;
  }

  /** @returns {Promise<NodeCpu[]>} */
  async sample() {
    if (++this.samples % REFRESH_EVERY === 0) this.refreshSoon();
    return Promise.all(
      this.nodes.map(async (n) => {
        const { cpuPct, enginePct } = await this.#cpuOf(n);
        /** @type {NodeCpu} */
        const out = { addr: n.addr, role: n.role, shard: n.shard, cpuPct };
        if (enginePct !== undefined) out.enginePct = enginePct;
        return out;
      }),
    );
  }

  /** Milliseconds since any node last answered. */
  silentForMs() {
    return performance.now() - this.lastAnswerAt;
  }

  /**
   * @param {{ addr: string, host: string, port: number, role: string, shard: number }} n
   * @returns {Promise<{ cpuPct: number|null, enginePct?: number|null }>}
   */
  async #cpuOf(n) {
    const link = this.#link(n.addr);
    let info;
    try {
      // connect (when needed) and answer within one budget: the sample is due again in a second
      info = parseInfo(
        await within(
          this.#pipe(n, link).then((pipe) => pipe.call(['INFO', 'cpu'])),
          CALL_TIMEOUT_MS,
          `INFO cpu on ${n.addr}`,
        ),
      );
    } catch {
      // a frozen node's replies would come later and queue behind the next calls: a fresh connection instead
      link.pipe?.close();
      link.pipe = null;
      if (++link.misses === MISSES_TO_REPORT) this.onChange(`${n.addr} (${n.role}, shard ${n.shard}) is not answering`);
      return this.reportsEngine.has(n.addr) ? { cpuPct: null, enginePct: null } : { cpuPct: null };
    }
    const at = performance.now();
    this.lastAnswerAt = at;
    if (link.misses >= MISSES_TO_REPORT) {
      this.onChange(`${n.addr} answers again`);
      // it may come back in another role (a frozen master is a replica after the failover)
      this.refreshSoon();
    }
    link.misses = 0;
    const used = Number(info.used_cpu_user) + Number(info.used_cpu_sys);
    const main = MAIN_USER in info && MAIN_SYS in info ? Number(info[MAIN_USER]) + Number(info[MAIN_SYS]) : null;
    if (main === null) this.reportsEngine.delete(n.addr);
    else this.reportsEngine.add(n.addr);
    const prev = this.last.get(n.addr);
    this.last.set(n.addr, { used, main, at });
    const cpuPct = pctOf(prev?.used, used, prev?.at, at);
    if (main === null) return { cpuPct };
    return { cpuPct, enginePct: pctOf(prev?.main ?? undefined, main, prev?.at, at) };
  }

  #link(addr) {
    let link = this.links.get(addr);
    if (!link) this.links.set(addr, (link = { pipe: null, opening: null, fails: 0, nextTryAt: 0, misses: 0 }));
    return link;
  }

  /** The node's open connection, or a new one when its backoff allows (one at a time); throws otherwise. */
  #pipe(n, link) {
    if (link.pipe && !link.pipe.closed) return Promise.resolve(link.pipe);
    // the sample and a topology read may both find the connection gone: they share one reconnect
    if (link.opening) return link.opening;
    if (performance.now() < link.nextTryAt) return Promise.reject(new Error('backing off'));
    link.opening = openPipe(this.conn, n.host, n.port, { connectTimeoutMs: CALL_TIMEOUT_MS / 2 })
      .then(
        (pipe) => {
          if (this.closed) {
            pipe.close();
            throw new Error('closed');
          }
          link.pipe = pipe;
          link.fails = 0;
          return pipe;
        },
        (e) => {
          link.nextTryAt = performance.now() + BACKOFF_MS[Math.min(link.fails++, BACKOFF_MS.length - 1)];
          throw e;
        },
      )
      .finally(() => {
        link.opening = null;
      });
    return link.opening;
  }

  /** Reads the topology again in the background (one read at a time); sample() never waits for it. */
  refreshSoon() {
    if (!this.closed)
      this.refreshing ??= this.refresh()
        .catch(() => {})
        .finally(() => {
          this.refreshing = null;
        });
  }

  /** The nodes as the target lists them now, then nodes, roles and shards brought up to date. */
  async refresh() {
    const listed = await this.#listed();
    if (!listed || this.closed) return;
    const before = this.nodes.map((n) => ({ ...n }));
    // a node the target no longer lists (a removed shard, reset or shut down) is no longer
    // sampled: an idle ex-master would pull the masters' average down
    const listedAddrs = new Set(listed.map((f) => f.addr));
    for (const n of this.nodes.filter((x) => !listedAddrs.has(x.addr))) {
      this.links.get(n.addr)?.pipe?.close();
      this.links.delete(n.addr);
      this.last.delete(n.addr);
      this.reportsEngine.delete(n.addr);
    }
    this.nodes = this.nodes.filter((x) => listedAddrs.has(x.addr));
    const shardById = new Map();
    const known = new Map(this.nodes.map((n) => [n.addr, n]));
    for (const n of this.nodes) this.everShard.set(n.addr, n.shard);
    let nextShard = Math.max(0, ...this.everShard.values()) + 1;
    // masters first, so a replica finds its master's number
    for (const f of [...listed.filter((x) => x.role === 'master'), ...listed.filter((x) => x.role !== 'master')]) {
      let n = known.get(f.addr);
      const prior = n?.shard ?? this.everShard.get(f.addr);
      const shard = f.role === 'master' ? (prior ?? nextShard++) : (shardById.get(f.masterId) ?? prior ?? 0);
      if (!n) {
        n = { addr: f.addr, host: f.host, port: f.port, role: f.role, shard, failed: !!f.failed };
        this.nodes.push(n);
        known.set(n.addr, n);
      } else Object.assign(n, { role: f.role, shard, failed: !!f.failed });
      shardById.set(f.id, n.shard);
      this.everShard.set(n.addr, n.shard);
    }
    for (const text of diffTopology(before, this.nodes)) this.onChange(text);
  }

  /** CLUSTER NODES from the first node that answers (cluster), or INFO replication from the target (standalone). */
  async #listed() {
    const seed = { addr: `${this.conn.host}:${this.conn.port}`, host: this.conn.host, port: this.conn.port };
    const candidates = this.conn.cluster ? [...this.nodes.filter((n) => !n.failed), seed] : [seed];
    for (const n of candidates) {
      try {
        const ask = (pipe) => (this.conn.cluster ? pipe.call(['CLUSTER', 'NODES']).then(parseClusterNodes) : discover(pipe, this.conn));
        const view = await within(this.#pipe(n, this.#link(n.addr)).then(ask), CALL_TIMEOUT_MS, `the topology from ${n.addr}`);
        this.lastAnswerAt = performance.now();
        if (!this.conn.cluster) return view;
        // a node just reset (remove-shard) knows only itself, with no slots: ask another
        if (view.some((f) => f.role === 'master' && f.slots.length > 0 && !f.failed)) return view;
      } catch {
        // the next node
      }
    }
    return null;
  }

  close() {
    this.closed = true;
    for (const link of this.links.values()) link.pipe?.close();
  }
}

/**
 * % of one core between two readings of a CPU-seconds counter; null without an earlier reading,
 * or when the counter went back (a restarted node counts from zero again: no figure for the
 * second it came back).
 * @param {number|undefined} before
 * @param {number} now
 * @param {number|undefined} beforeAt performance.now() of the earlier reading
 * @param {number} at
 * @returns {number|null}
 */
function pctOf(before, now, beforeAt, at) {
  if (before === undefined || beforeAt === undefined || !(at > beforeAt) || !(now >= before)) return null;
  return Math.round(((now - before) / ((at - beforeAt) / 1000)) * 1000) / 10;
}
