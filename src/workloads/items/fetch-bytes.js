/**
 * The consumer's default read path (`--fetch mget`) done on bytes: the range replies are
 * scanned straight into a MemberList, the MGETs are written from those bytes, and the values
 * are checked where they arrive in the socket's buffer — fetched, missing, mismatched and
 * duplicates are counted there, and no value ever becomes a string. One BytesConn per read node,
 * beside the router's parsed pipes (which keep the small commands: ZCARD, scripts, setup).
 * A reply that is MOVED, ASK, TRYAGAIN, CLUSTERDOWN, LOADING… is followed as cluster-policy.js
 * decides, that command alone (ASK after ASKING), so a cycle reads through a reshard. A replica
 * whose connection is lost or refused is set aside by the router (fallBack) and what it had not
 * answered is read again, in the same cycle, from a node that holds its slots; any other lost
 * connection fails the cycle, and the reader reads the cluster again before the next.
 */
import { BytesConn } from '../../transports/redis-bytes.js';
import { whyDropped } from '../../transports/conn-drops.js';
import { classify, decide } from '../../transports/cluster-policy.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { digits, encodeCommand, writeInt } from '../../transports/resp.js';
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
 * @typedef {{ reply: number, index: number }} Progress  the last element scanned of a request's replies
 *   (index Infinity: that reply was an error): where a connection lost mid-way left off
 */

export class BytesReads {
  /** @param {import('../../transports/redis-router.js').RedisRouter} router */
  constructor(router) {
    this.router = router;
    /** @type {Map<string, Promise<BytesConn>>} */
    this.conns = new Map();
    this.closed = false;
  }

  /**
   * Runs range commands whose replies, concatenated, are the live members; adds them to `list`.
   * @param {{ key: string, args: Array<string|number> }[]} cmds
   * @param {import('./member-list.js').MemberList} list
   */
  async range(cmds, list) {
    await Promise.all(
      cmds.map(async ({ key, args }) => {
        const slot = this.router.conn.cluster ? keySlot(key) : 0;
        const bytes = encodeCommand(args);
        // members added over every attempt: a reply read again elsewhere after a connection lost
        // mid-way adds only those it had not (other commands add to the list meanwhile: no undo)
        let added = 0;
        let at = 0;
        const visitor = {
          item: (b, s, e) => {
            if (at++ >= added) {
              list.add(b, s, e);
              added++;
            }
          },
        };
        let failure = null;
        await this.router.read(
          () => this.router.addrFor(slot),
          async (addr) => {
            at = 0;
            const conn = await this.#conn(addr);
            await conn.request(bytes, 1, {
              ...visitor,
              error: (m) => {
                failure = m;
              },
            });
          },
        );
        // a reply that is an error added no member: sent again where the cluster says, it adds them then
        if (failure) await this.#follow({ slot, bytes: () => bytes, visitor }, failure);
      }),
    );
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
    /**
     * @param {ArrayLike<number>} from where reply r's keys start in `order`
     * @param {Progress} at the last element scanned, kept up to date
     */
    const visitorOf = (from, at = { reply: 0, index: 0 }) => ({
      item: (b, s, e, reply, index) => {
        at.reply = reply;
        at.index = index;
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
      nil: (reply, index) => {
        at.reply = reply;
        at.index = index;
        counts.missing++;
      },
    });
    await this.#mgetRuns(list, order, runs, visitorOf, 0);
    return counts;
  }

  /**
   * The MGETs of `runs`, each node's in one write. A replica that stops answering is set aside:
   * what it had not answered (from the element after the last one scanned) is sent again where
   * the router reads those slots now, so nothing is counted twice.
   * @param {import('./member-list.js').MemberList} list
   * @param {Int32Array} order
   * @param {import('./slot-runs.js').SlotRun[]} runs
   * @param {(from: ArrayLike<number>, at?: Progress) => ScanVisitor} visitorOf
   * @param {number} attempts
   */
  async #mgetRuns(list, order, runs, visitorOf, attempts) {
    await Promise.all(
      [...runsByNode(this.router, runs)].map(async ([addr, nodeRuns]) => {
        /** @type {Array<[number, string]>} the MGETs whose reply was an error: [run, message] */
        const failed = [];
        /** @type {Progress} */
        const at = { reply: -1, index: -1 };
        const visitor = {
          ...visitorOf(
            Int32Array.from(nodeRuns, (r) => r.from),
            at,
          ),
          error: (m, reply) => {
            at.reply = reply;
            at.index = Infinity;
            failed.push([reply, m]);
          },
        };
        try {
          const conn = await this.#conn(this.router.countRead(addr));
          await conn.request(mgetBytes(list, order, nodeRuns), nodeRuns.length, visitor);
        } catch (e) {
          this.router.readAgain(addr, e, attempts);
          await this.#mgetRuns(list, order, unanswered(nodeRuns, at), visitorOf, attempts + 1);
        }
        // an MGET answered with an error counted nothing: sent again on its own where the cluster says
        await Promise.all(
          failed.map(([r, m]) =>
            this.#follow(
              {
                slot: nodeRuns[r].slot,
                bytes: () => mgetBytes(list, order, [nodeRuns[r]]),
                visitor: visitorOf([nodeRuns[r].from]),
              },
              m,
            ),
          ),
        );
      }),
    );
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
      const visitor = asking
        ? {
            item: (b, s, e, reply, index) => cmd.visitor.item?.(b, s, e, reply - 1, index),
            nil: (reply, index) => cmd.visitor.nil?.(reply - 1, index),
            error: (m) => {
              failure = m;
            },
          }
        : {
            ...cmd.visitor,
            error: (m) => {
              failure = m;
            },
          };
      await conn.request(asking ? Buffer.concat([ASKING, cmd.bytes()]) : cmd.bytes(), asking ? 2 : 1, visitor);
      if (failure === null) return;
      message = failure;
    }
  }

  close() {
    this.closed = true;
    for (const p of this.conns.values())
      p.then(
        (c) => c.close(),
        () => {},
      );
    this.conns.clear();
  }

  /** The open connection to `addr`, opened once (again after it closed: a drop the router's log ends). */
  #conn(addr) {
    const known = this.conns.get(addr);
    if (known) {
      return known.then(
        (c) => (c.closed ? this.#reopen(addr) : c),
        () => this.#reopen(addr),
      );
    }
    return this.#reopen(addr);
  }

  #reopen(addr) {
    const cut = addr.lastIndexOf(':');
    const { conn, readFrom } = this.router;
    // cluster replicas serve reads only after READONLY
    const c = new BytesConn({
      ...conn,
      host: addr.slice(0, cut),
      port: Number(addr.slice(cut + 1)),
      readonly: readFrom === 'replica' && conn.cluster,
      replyTimeoutMs: this.router.replyTimeoutMs,
    });
    const p = c.connect().then(() => {
      if (this.router.watchDrops) {
        this.router.drops.reconnected(addr, 'bytes');
        c.onClose = (err) => this.#dropped(addr, p, err);
      }
      return c;
    });
    this.conns.set(addr, p);
    return p;
  }

  /** A connection closed unasked: logged, and reopened at once (how long the node was out of reach, not the wait for the next cycle). */
  #dropped(addr, p, err) {
    if (this.closed || this.conns.get(addr) !== p) return;
    this.router.drops.dropped(addr, 'bytes', Date.now(), whyDropped(err));
    this.#reopen(addr).catch(() => {}); // a node that is gone: a later open ends the drop
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

/**
 * The runs (or their tails) a request lost mid-way had not answered: every run after the one
 * scanned last, and that one from the element after the last scanned (an error reply is whole).
 * @param {import('./slot-runs.js').SlotRun[]} runs
 * @param {Progress} at
 */
export function unanswered(runs, at) {
  const rest = [];
  for (let r = Math.max(0, at.reply); r < runs.length; r++) {
    const from = r === at.reply ? runs[r].from + at.index + 1 : runs[r].from;
    if (from < runs[r].to) rest.push({ ...runs[r], from });
  }
  return rest;
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
