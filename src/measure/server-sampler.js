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
 * @property {number|null} [cpuS] the process's CPU seconds since the previous sample, unrounded (null: no figure)
 * @property {number|null} [engineS] the main thread's, likewise (undefined when not reported)
 * @property {number|null} [usedMemory] INFO memory's used_memory now, less the replication backlog and the
 *   clients' buffers (they grow with traffic, not with the data), bytes (null: no answer)
 * @property {number|null} [netIn] bytes the node read from its clients since the previous sample, less
 *   the sampler's own request and replication's bytes (null: no figure, as for CPU; a second after a
 *   gap covers both seconds)
 * @property {number|null} [netOut] bytes it wrote to its clients since the previous sample, less the
 *   sampler's own replies and replication's bytes
 * @property {number|null} [replIn] replication bytes it read (a replica: its master's stream)
 * @property {number|null} [replOut] replication bytes it wrote (a master: to its replicas)
 */

/**
 * What a node held when the sampler first reached it: the baseline memory per item is counted from.
 * @typedef {{ usedMemory: number, keys: number }} NodeStart
 */

/** INFO cpu's main-thread fields (Redis 7+). */
const MAIN_USER = 'used_cpu_user_main_thread';
const MAIN_SYS = 'used_cpu_sys_main_thread';

/**
 * One call for every figure: CPU, memory, network bytes (and the keys, for the first reading).
 * A server before Redis 7 takes one section only: it is asked for all of them (INFO) instead.
 */
const INFO_ARGS = ['INFO', 'cpu', 'memory', 'stats', 'keyspace'];
/** The bytes of the sampler's own request, taken off the node's input bytes. */
const INFO_REQUEST_BYTES = Buffer.byteLength(`*${INFO_ARGS.length}\r\n${INFO_ARGS.map((a) => `$${a.length}\r\n${a}\r\n`).join('')}`);

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
    /** @type {Map<string, { used: number, main: number|null, at: number, net: number[], replyBytes: number }>} the previous answer: CPU
     *  seconds (process, main thread) at performance.now(), the network counters, the size of the reply that carried them */
    this.last = new Map();
    /** @type {Map<string, NodeStart>} each node's first reading */
    this.firstSeen = new Map();
    /** @type {Set<string>} nodes that refused INFO with several sections (before Redis 7) */
    this.oneSection = new Set();
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
        const { cpuPct, enginePct, ...more } = await this.#cpuOf(n);
        /** @type {NodeCpu} */
        const out = { addr: n.addr, role: n.role, shard: n.shard, cpuPct };
        if (enginePct !== undefined) out.enginePct = enginePct;
        return Object.assign(out, more);
      }),
    );
  }

  /** Milliseconds since any node last answered. */
  silentForMs() {
    return performance.now() - this.lastAnswerAt;
  }

  /**
   * @param {{ addr: string, host: string, port: number, role: string, shard: number }} n
   * @returns {Promise<Omit<NodeCpu, 'addr'|'role'|'shard'>>}
   */
  async #cpuOf(n) {
    const link = this.#link(n.addr);
    let text;
    try {
      // connect (when needed) and answer within one budget: the sample is due again in a second
      text = await within(
        this.#pipe(n, link).then((pipe) => this.#info(pipe, n.addr)),
        CALL_TIMEOUT_MS,
        `INFO on ${n.addr}`,
      );
    } catch {
      // a frozen node's replies would come later and queue behind the next calls: a fresh connection instead
      link.pipe?.close();
      link.pipe = null;
      if (++link.misses === MISSES_TO_REPORT) this.onChange(`${n.addr} (${n.role}, shard ${n.shard}) is not answering`);
      const none = { cpuPct: null, usedMemory: null, netIn: null, netOut: null, replIn: null, replOut: null };
      return this.reportsEngine.has(n.addr) ? { ...none, enginePct: null } : none;
    }
    const info = parseInfo(text);
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
    const net = NET_FIELDS.map((f) => Number(info[f]));
    // the reply's bytes as the node wrote them: its text and the bulk string's header
    const replyBytes = Buffer.byteLength(text) + String(Buffer.byteLength(text)).length + 5;
    this.last.set(n.addr, { used, main, at, net, replyBytes });
    // what the data holds: used_memory less the buffers that grow with traffic, not with items (the
    // replication backlog fills to its size as writes flow; the clients' query and output buffers)
    const usedMemory = Number(info.used_memory) - BUFFERS.reduce((n, f) => n + (Number(info[f]) || 0), 0);
    if (!this.firstSeen.has(n.addr) && Number.isFinite(usedMemory)) this.firstSeen.set(n.addr, { usedMemory, keys: keysOf(info) });
    const cpuPct = pctOf(prev?.used, used, prev?.at, at);
    // a counter that went back (a restart) has no figure, as for CPU; the sampler's own call is
    // taken off: the request it sent and the previous reply, counted since the previous reading
    const delta = (i) => (prev && net[i] >= prev.net[i] ? net[i] - prev.net[i] : null);
    const replIn = delta(2);
    const replOut = delta(3);
    // INFO's totals include replication's bytes (Redis 7 counts those apart too): the clients' are the rest
    const clients = (d, repl, own) => (d === null ? null : Math.max(0, d - (repl ?? 0) - own));
    const more = {
      // the CPU seconds themselves, unrounded: a cost per item at a light load needs more than a % to 0.1
      cpuS: prev && used >= prev.used ? used - prev.used : null,
      ...(main !== null && { engineS: prev?.main !== null && prev?.main !== undefined && main >= prev.main ? main - prev.main : null }),
      usedMemory: Number.isFinite(usedMemory) ? usedMemory : null,
      netIn: clients(delta(0), replIn, INFO_REQUEST_BYTES),
      netOut: clients(delta(1), replOut, prev?.replyBytes ?? 0),
      replIn,
      replOut,
    };
    if (main === null) return { cpuPct, ...more };
    return { cpuPct, enginePct: pctOf(prev?.main ?? undefined, main, prev?.at, at), ...more };
  }

  /**
   * INFO's text: every section in one call, or all of INFO from a server that takes one section only.
   * @param {import('../transports/redis-pipe.js').RespPipe} pipe
   * @param {string} addr
   * @returns {Promise<string>}
   */
  async #info(pipe, addr) {
    if (this.oneSection.has(addr)) return pipe.call(['INFO']);
    try {
      return await pipe.call(INFO_ARGS);
    } catch (e) {
      // an error reply (a syntax error before Redis 7), not a lost connection
      if (pipe.closed) throw e;
      this.oneSection.add(addr);
      return pipe.call(['INFO']);
    }
  }

  /**
   * Each node's first reading: its memory and keys before the run wrote anything.
   * @returns {Map<string, NodeStart>}
   */
  starts() {
    return new Map(this.firstSeen);
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

/** INFO memory's buffers, taken off used_memory (Redis 4+; absent fields count 0). */
const BUFFERS = ['mem_replication_backlog', 'mem_clients_slaves', 'mem_clients_normal'];

/** INFO stats' byte counters, in the order the samples use them (clients' in and out, then replication's). */
const NET_FIELDS = ['total_net_input_bytes', 'total_net_output_bytes', 'total_net_repl_input_bytes', 'total_net_repl_output_bytes'];

/**
 * Keys in every database, from INFO keyspace (`db0:keys=12,expires=3,avg_ttl=0`).
 * @param {Record<string, string>} info
 */
function keysOf(info) {
  return Object.entries(info)
    .filter(([k]) => /^db\d+$/.test(k))
    .reduce((n, [, v]) => n + (Number(/keys=(\d+)/.exec(v)?.[1]) || 0), 0);
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
