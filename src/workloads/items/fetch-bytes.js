/**
 * The consumer's default read path (`--fetch mget`) done on bytes: the range replies are
 * scanned straight into a MemberList, the MGETs are written from those bytes, and the values
 * are checked where they arrive in the socket's buffer — fetched, missing, mismatched and
 * duplicates are counted there, and no value ever becomes a string. One BytesConn per read node,
 * beside the router's parsed pipes (which keep the small commands: ZCARD, scripts, setup).
 * A reply that is MOVED, ASK, TRYAGAIN, CLUSTERDOWN, LOADING… is followed as cluster-policy.js
 * decides, that command alone (ASK after ASKING), so a cycle reads through a reshard; a lost
 * connection still fails the cycle, and the reader reads the cluster again before the next.
 */
import { BytesConn } from '../../transports/redis-bytes.js';
import { classify, decide } from '../../transports/cluster-policy.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeCommand } from '../../transports/resp.js';
import { keySlot, slotOfBytes } from '../../transports/slot.js';
import { leadingIdOf, trailingIdOf } from './item-ids.js';
import { runsByNode, slotRuns } from './slot-runs.js';

const MGET_HEAD = Buffer.from('\r\n$4\r\nMGET\r\n');
const ASKING = Buffer.from('*1\r\n$6\r\nASKING\r\n');

/**
 * @typedef {{ fetched: number, missing: number, mismatched: number, duplicates: number }} FetchCounts
 * @typedef {import('../../transports/resp-scan.js').ScanVisitor} ScanVisitor
 * @typedef {{ slot: number, bytes: () => Buffer, visitor: ScanVisitor }} OneCommand  one command, its slot, and
 *   how its one reply is scanned (as reply 0)
 */

export class BytesReads {
  /** @param {import('../../transports/redis-router.js').RedisRouter} router */
  constructor(router) {
    this.router = router;
    /** @type {Map<string, Promise<BytesConn>>} */
    this.conns = new Map();
  }

  /**
   * Runs range commands whose replies, concatenated, are the live members; adds them to `list`.
   * @param {{ key: string, args: Array<string|number> }[]} cmds
   * @param {import('./member-list.js').MemberList} list
   */
  async range(cmds, list) {
    const visitor = { item: (b, s, e) => list.add(b, s, e) };
    await Promise.all(cmds.map(async ({ key, args }) => {
      const slot = this.router.conn.cluster ? keySlot(key) : 0;
      const bytes = encodeCommand(args);
      let failure = null;
      const conn = await this.#conn(this.router.addrFor(slot));
      await conn.request(bytes, 1, { ...visitor, error: (m) => { failure = m; } });
      // a reply that is an error added no member: sent again where the cluster says, it adds them then
      if (failure) await this.#follow({ slot, bytes: () => bytes, visitor }, failure);
    }));
  }

  /**
   * MGETs the value of every member (an item key), one MGET per slot, each node's MGETs in one
   * write, and checks each value's id against its key's.
   * @param {import('./member-list.js').MemberList} list
   * @param {import('./seen-ids.js').SeenIds} seen
   * @returns {Promise<FetchCounts>}
   */
  async mget(list, seen) {
    const counts = { fetched: 0, missing: 0, mismatched: 0, duplicates: 0 };
    if (list.count === 0) return counts;
    const { buf: keys, start, end } = list;
    const { order, runs } = slotRuns(list.count, (i) => slotOfBytes(keys, start[i], end[i]), this.router.conn.cluster);
    /** @param {ArrayLike<number>} from where reply r's keys start in `order` */
    const visitorOf = (from) => ({
      item: (b, s, e, reply, index) => {
        const i = order[from[reply] + index];
        counts.fetched++;
        const id = leadingIdOf(b, s, e);
        if (id < 0) {
          counts.mismatched++;
          return;
        }
        if (seen.seen(id)) counts.duplicates++;
        if (trailingIdOf(keys, start[i], end[i]) !== id) counts.mismatched++;
      },
      nil: () => { counts.missing++; },
    });
    const sends = [];
    for (const [addr, nodeRuns] of runsByNode(this.router, runs)) {
      /** @type {Array<[number, string]>} the MGETs whose reply was an error: [run, message] */
      const failed = [];
      const visitor = { ...visitorOf(Int32Array.from(nodeRuns, (r) => r.from)), error: (m, reply) => { failed.push([reply, m]); } };
      sends.push(this.#conn(addr)
        .then((conn) => conn.request(mgetBytes(list, order, nodeRuns), nodeRuns.length, visitor))
        // an MGET answered with an error counted nothing: sent again on its own where the cluster says
        .then(() => Promise.all(failed.map(([r, m]) => this.#follow({
          slot: nodeRuns[r].slot, bytes: () => mgetBytes(list, order, [nodeRuns[r]]), visitor: visitorOf([nodeRuns[r].from]),
        }, m)))));
    }
    await Promise.all(sends);
    return counts;
  }

  /**
   * One command whose reply was `message` (an error), sent again as cluster-policy.js decides
   * until it is answered; a reply the policy does not follow, or too many, fails the cycle.
   * @param {OneCommand} cmd
   * @param {string} message
   */
  async #follow(cmd, message) {
    for (let attempts = 0; ; attempts++) {
      const d = decide(message, attempts);
      if (d.action === 'fail') throw this.#replyError(message);
      let addr = d.addr;
      if (d.action === 'redirect') this.router.moved(d.slot, d.addr);
      if (d.action === 'retry') {
        await sleep(d.delayMs);
        this.router.refreshSoon();
        addr = this.router.addrFor(cmd.slot);
      }
      const asking = d.action === 'ask';
      let failure = null;
      const conn = await this.#conn(addr);
      /** @type {ScanVisitor} ASKING's own +OK is reply 0: the command's is reply 1 */
      const visitor = asking ? {
        item: (b, s, e, reply, index) => cmd.visitor.item?.(b, s, e, reply - 1, index),
        nil: (reply, index) => cmd.visitor.nil?.(reply - 1, index),
        error: (m) => { failure = m; },
      } : { ...cmd.visitor, error: (m) => { failure = m; } };
      await conn.request(asking ? Buffer.concat([ASKING, cmd.bytes()]) : cmd.bytes(), asking ? 2 : 1, visitor);
      if (failure === null) return;
      message = failure;
    }
  }

  close() {
    for (const p of this.conns.values()) p.then((c) => c.close(), () => {});
    this.conns.clear();
  }

  /** The open connection to `addr`, opened once (again after it closed). */
  #conn(addr) {
    const known = this.conns.get(addr);
    if (known) {
      return known.then((c) => (c.closed ? this.#reopen(addr) : c), () => this.#reopen(addr));
    }
    return this.#reopen(addr);
  }

  #reopen(addr) {
    const cut = addr.lastIndexOf(':');
    const { conn, readFrom } = this.router;
    // cluster replicas serve reads only after READONLY
    const p = new BytesConn({ ...conn, host: addr.slice(0, cut), port: Number(addr.slice(cut + 1)), readonly: readFrom === 'replica' && conn.cluster }).connect();
    this.conns.set(addr, p);
    return p;
  }

  /**
   * An error reply as an Error (the cycle fails, and the reader reads the cluster again before
   * the next); MOVED also tells the router where the slot lives now. ASK does not: the slot is
   * only migrating, and its owner is still the node asked.
   */
  #replyError(message) {
    const c = classify(message);
    if (c.kind === 'moved') this.router.moved(c.slot, c.addr);
    return new Error(message);
  }
}

/** Decimal digits of a non-negative integer. */
function digits(n) {
  let d = 1;
  while (n >= 10) { n = Math.floor(n / 10); d++; }
  return d;
}

/** Writes n in decimal at buf[at]; returns the offset after it. */
function writeInt(buf, at, n) {
  const d = digits(n);
  for (let i = at + d - 1; i >= at; i--) {
    buf[i] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  return at + d;
}

/** One node's MGETs (one per run) as RESP bytes, keys copied from the member list. */
function mgetBytes(list, order, runs) {
  const { buf: keys, start, end } = list;
  let size = 0;
  for (const run of runs) {
    size += 1 + digits(run.to - run.from + 1) + MGET_HEAD.length;
    for (let j = run.from; j < run.to; j++) {
      const len = end[order[j]] - start[order[j]];
      size += 1 + digits(len) + 2 + len + 2;
    }
  }
  const out = Buffer.allocUnsafe(size);
  let w = 0;
  for (const run of runs) {
    out[w++] = 42; // '*'
    w = writeInt(out, w, run.to - run.from + 1);
    w += MGET_HEAD.copy(out, w);
    for (let j = run.from; j < run.to; j++) {
      const i = order[j];
      out[w++] = 36; // '$'
      w = writeInt(out, w, end[i] - start[i]);
      out[w++] = 13;
      out[w++] = 10;
      // keys are short: a byte loop beats Buffer#copy's per-call cost 300k times a cycle
      for (let k = start[i], e = end[i]; k < e; k++) out[w++] = keys[k];
      out[w++] = 13;
      out[w++] = 10;
    }
  }
  return out;
}
