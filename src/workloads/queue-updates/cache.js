/**
 * Where a consumer applies updates, and what it remembers of the messages it applied: every
 * publisher's sequence numbers (received, duplicates, missing). `memory` is a Map in this
 * process; `redis` writes pipelined SETs to the node owning each key's slot (cluster-aware:
 * targets/cluster-sender.js follows redirects and retries) and keeps the sequence numbers in Redis bitmaps,
 * so a consumer started after another one died knows what the first one applied.
 */
import { RedisRouter } from '../../transports/redis-router.js';
import { encodeCommand } from '../../transports/resp.js';
import { ClusterSender } from '../../transports/cluster-sender.js';

/**
 * @typedef {{ publisher: string, seq: number, final: boolean }} Mark one message's identity
 * @typedef {import('../../runs/queue-consume/queue-progress.js').PublisherProgress} PublisherProgress
 *   received: distinct sequence numbers applied (by any consumer sharing the cache); last: the
 *   publisher's final seq once its last message arrived; missing: seqs below last (or highest)
 *   never applied; duplicates: deliveries this consumer saw of a seq already applied
 */

const MISSING_SAMPLE = 10;

/** A growable bitmap of sequence numbers. */
class SeqBits {
  constructor() {
    this.bits = new Uint8Array(1024);
    this.count = 0;
    this.highest = 0;
  }

  /** @returns {boolean} true when seq was already set */
  set(seq) {
    const byte = seq >>> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (seq & 7);
    if (this.bits[byte] & mask) return true;
    this.bits[byte] |= mask;
    this.count++;
    if (seq > this.highest) this.highest = seq;
    return false;
  }

  has(seq) {
    return ((this.bits[seq >>> 3] ?? 0) & (1 << (seq & 7))) !== 0;
  }
}

/** Per-publisher bookkeeping both caches share: duplicates seen here, the last seq. */
class Progress {
  constructor() {
    /** @type {Map<string, { duplicates: number, last: number|null, highest: number }>} */
    this.pubs = new Map();
  }

  /** @param {Mark} m @param {boolean} duplicate */
  note(m, duplicate) {
    let p = this.pubs.get(m.publisher);
    if (!p) this.pubs.set(m.publisher, (p = { duplicates: 0, last: null, highest: 0 }));
    if (duplicate) p.duplicates++;
    if (m.final) p.last = m.seq;
    if (m.seq > p.highest) p.highest = m.seq;
  }
}

export class MemoryCache {
  constructor() {
    /** @type {Map<string, string>} */
    this.map = new Map();
    /** @type {Map<string, SeqBits>} */
    this.seqs = new Map();
    this.progressOf = new Progress();
    this.kind = 'memory';
  }

  /**
   * Applies the updates of some messages and records the messages.
   * @param {Array<[string, string]>} updates
   * @param {Mark[]} marks
   * @returns {Promise<number>} how many of the marks had been applied before (duplicates)
   */
  async apply(updates, marks) {
    for (const [k, v] of updates) this.map.set(k, v);
    let dups = 0;
    for (const m of marks) {
      let bits = this.seqs.get(m.publisher);
      if (!bits) this.seqs.set(m.publisher, (bits = new SeqBits()));
      const dup = bits.set(m.seq);
      if (dup) dups++;
      this.progressOf.note(m, dup);
    }
    return dups;
  }

  /** @returns {Promise<PublisherProgress[]>} */
  async progress() {
    return [...this.progressOf.pubs].map(([publisher, p]) => {
      const bits = /** @type {SeqBits} */ (this.seqs.get(publisher));
      const upTo = p.last ?? bits.highest;
      const missingSample = [];
      let missing = 0;
      for (let s = 1; s <= upTo; s++) {
        if (bits.has(s)) continue;
        missing++;
        if (missingSample.length < MISSING_SAMPLE) missingSample.push(s);
      }
      return { publisher, received: bits.count, duplicates: p.duplicates, last: p.last, highest: bits.highest, missing, missingSample };
    });
  }

  async close() {}
}

/** Tracking keys live a day: long enough for any run, gone without anyone purging them. */
const TRACK_TTL_S = 86_400;
const seenKey = (pub) => `rqbench:seen:{${pub}}`;
const lastKey = (pub) => `rqbench:last:{${pub}}`;

export class RedisCache {
  /** @param {import('../../transports/redis.js').RedisConn} conn */
  static async open(conn) {
    const router = new RedisRouter(conn);
    await router.open();
    return new RedisCache(router);
  }

  /** @param {RedisRouter} router */
  constructor(router) {
    this.router = router;
    /** what the transport followed (moved, ask, retries…) */
    this.followed = {};
    this.sender = new ClusterSender(router, this.followed);
    this.progressOf = new Progress();
    /** publishers whose tracking keys got their TTL from this process */
    this.expiring = new Set();
    this.kind = 'redis';
  }

  /**
   * SET per update and SETBIT per message in one pipelined round per node; the SETBIT reply
   * (the bit's old value) says whether any consumer had applied that message before.
   * @param {Array<[string, string]>} updates
   * @param {Mark[]} marks
   * @returns {Promise<number>} duplicates among the marks
   */
  async apply(updates, marks) {
    const cmds = updates.map(([k, v]) => ['SET', k, v]);
    const bitAt = [];
    for (const m of marks) {
      bitAt.push(cmds.length);
      cmds.push(['SETBIT', seenKey(m.publisher), String(m.seq), '1']);
      if (m.final) cmds.push(['SET', lastKey(m.publisher), String(m.seq), 'EX', String(TRACK_TTL_S)]);
      if (!this.expiring.has(m.publisher)) {
        this.expiring.add(m.publisher);
        cmds.push(['EXPIRE', seenKey(m.publisher), String(TRACK_TTL_S)]);
      }
    }
    const replies = await this.exec(cmds);
    let dups = 0;
    marks.forEach((m, k) => {
      const dup = replies[bitAt[k]] === 1;
      if (dup) dups++;
      this.progressOf.note(m, dup);
    });
    return dups;
  }

  /**
   * Runs commands (each names its key second), grouped by the node owning the key's slot, one
   * pipelined write per node, through the shared cluster transport (redirects, TRYAGAIN,
   * CLUSTERDOWN, lost connections followed as for the producer's writers).
   * @param {string[][]} cmds
   * @returns {Promise<unknown[]>} replies in order
   */
  async exec(cmds) {
    const replies = new Array(cmds.length);
    const byAddr = new Map();
    cmds.forEach((cmd, i) => {
      const addr = this.router.addrFor(this.router.slotOf(cmd[1]));
      if (!byAddr.has(addr)) byAddr.set(addr, []);
      byAddr.get(addr).push(i);
    });
    let failed = 0;
    /** @type {Error|undefined} */
    let lastErr;
    await Promise.all(
      [...byAddr].map(
        ([addr, idx]) =>
          new Promise((resolve) => {
            const parts = idx.map((i) => encodeCommand(cmds[i]));
            const starts = [0];
            for (const p of parts) starts.push(starts[starts.length - 1] + p.length);
            this.sender.send(addr, {
              n: idx.length,
              buf: Buffer.concat(parts),
              starts,
              slotOf: (k) => this.router.slotOf(cmds[idx[k]][1]),
              value: (k, v) => {
                replies[idx[k]] = v;
              },
              fail: (_k, err) => {
                failed++;
                lastErr = err;
              },
              done: () => resolve(undefined),
            });
          }),
      ),
    );
    if (failed) throw new Error(`cache: ${failed} writes failed: ${lastErr?.message}`);
    return replies;
  }

  /** @returns {Promise<PublisherProgress[]>} read from Redis: what every consumer of this cache applied */
  async progress() {
    const out = [];
    for (const [publisher, p] of this.progressOf.pubs) {
      const [count, lastRaw] = await this.exec([
        ['BITCOUNT', seenKey(publisher)],
        ['GET', lastKey(publisher)],
      ]);
      const last = lastRaw === null || lastRaw === undefined ? p.last : Number(lastRaw);
      const upTo = last ?? p.highest;
      // seq starts at 1 and none is above the last: the unset bits below it are the missing ones
      const received = Number(count);
      const missing = Math.max(0, upTo - received);
      out.push({ publisher, received, duplicates: p.duplicates, last, highest: Math.max(p.highest, upTo), missing, missingSample: [] });
    }
    return out;
  }

  async close() {
    this.router.close();
  }
}
