/**
 * Redis CPU per node, once a second: Δ(used_cpu_user + used_cpu_sys) / Δwall from INFO cpu on
 * every master and every replica, over its own connections so the load never delays it. Works
 * on ElastiCache too; it replaces the seed's per-minute CloudWatch screenshots.
 */
import { performance } from 'node:perf_hooks';
import { openPipe, parseInfo } from '../targets/redis.js';

/**
 * @typedef {object} NodeCpu
 * @property {string} addr
 * @property {'master'|'replica'} role
 * @property {number} shard
 * @property {number|null} cpuPct  % of one core since the previous sample (null: no answer)
 */

export class ServerSampler {
  /**
   * @param {import('../targets/redis.js').RedisConn} conn credentials for every node
   * @param {import('../targets/redis.js').RedisNode[]} nodes
   */
  constructor(conn, nodes) {
    this.conn = conn;
    this.nodes = nodes.map((n) => ({ addr: n.addr, host: n.host, port: n.port, role: n.role, shard: n.shard }));
    this.pipes = new Map();
    this.last = new Map();
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
    return Promise.all(this.nodes.map(async (n) => {
      const pipe = this.pipes.get(n.addr);
      let cpuPct = null;
      try {
        const info = parseInfo(await withTimeout(pipe.call(['INFO', 'cpu']), 900));
        const at = performance.now();
        const used = Number(info.used_cpu_user) + Number(info.used_cpu_sys);
        const prev = this.last.get(n.addr);
        if (prev && at > prev.at) cpuPct = Math.round(((used - prev.used) / ((at - prev.at) / 1000)) * 1000) / 10;
        this.last.set(n.addr, { used, at });
      } catch {
        // a node that does not answer within the second shows as an empty cell, not a zero
      }
      return { addr: n.addr, role: n.role, shard: n.shard, cpuPct };
    }));
  }

  close() {
    for (const p of this.pipes.values()) p.close();
  }
}

function withTimeout(p, ms) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error('timeout')), ms); })]).finally(() => clearTimeout(t));
}
