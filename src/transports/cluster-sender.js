/**
 * Sends pre-encoded commands to the node that serves them and follows the cluster when it
 * changes, once, for every client that writes through raw pipes (the producer's writers, the
 * load sink, the queue cache): a command whose reply is MOVED, ASK, TRYAGAIN, CLUSTERDOWN,
 * LOADING, NOSCRIPT…, or whose connection was lost or refused, is sent again on its own as
 * cluster-policy.js decides (ASK with ASKING before it, on the same connection); the caller hears
 * of answers as they come, of a command only once it has failed for good, and of the batch once
 * every command in it, retries included, is settled. What was followed is counted in `tally`.
 */
import { performance } from 'node:perf_hooks';
import { countersOf, decide } from './cluster-policy.js';

const ASKING = Buffer.from('*1\r\n$6\r\nASKING\r\n');

/**
 * @typedef {object} Batch  n commands written together, and what to tell whom
 * @property {number} n
 * @property {Buffer} buf  the n commands' RESP bytes
 * @property {ArrayLike<number>} starts  where command i starts in buf (n + 1 entries)
 * @property {(i: number) => number} slotOf  the slot of command i: where a retry goes
 * @property {(k: number, now: number) => void} [ok]  k more commands were answered
 * @property {(i: number, value: any) => void} [value]  command i's answer (only when set: parsing costs)
 * @property {(i: number, err: Error, now: number) => void} [fail]  command i failed for good
 * @property {(now: number) => void} [done]  every command answered or failed, retries included
 */

/**
 * The smallest connection this needs (RespPipe is one; tests use a fake).
 * @typedef {object} Pipe
 * @property {(buf: Buffer, seg: import('./redis-pipe.js').Segment) => boolean} send
 */

/**
 * The router's part: which node serves a slot, the pipe to a node, and learning of changes.
 * @typedef {object} Routes
 * @property {(slot: number) => string} addrFor
 * @property {(addr: string) => Pipe|undefined} ready  an open pipe without waiting (hot path)
 * @property {(addr: string) => Promise<Pipe>} pipe  opening one when needed
 * @property {(slot: number, addr: string) => void} moved
 * @property {() => unknown} refreshSoon
 * @property {((pipe: any) => Promise<void>)|null} [onOpen]  what a new connection needs (scripts): NOSCRIPT runs it again
 */

export class ClusterSender {
  /**
   * @param {Routes} router
   * @param {{ [counter: string]: any }} tally counters incremented by name: moved, ask, retries, tryagain, clusterdown,
   *   connRetries (a Counters object, or a plain one)
   */
  constructor(router, tally) {
    this.router = router;
    this.tally = tally;
  }

  /**
   * @param {string} addr the node `batch`'s commands belong to now
   * @param {Batch} batch
   */
  send(addr, batch) {
    this.#write(addr, batch.buf, batch, null, 0, false, { pending: 1 });
  }

  /**
   * @param {string} addr
   * @param {Buffer} buf
   * @param {Batch} batch
   * @param {number|null} only the one command of a retry (its index in the batch), or null: all
   * @param {number} attempts times these commands were sent again already
   * @param {boolean} asking buf starts with ASKING, whose reply is not one of the batch's
   * @param {{ pending: number }} state writes of the batch not settled yet
   */
  #write(addr, buf, batch, only, attempts, asking, state) {
    const at = (j) => (only === null ? j : only);
    let skip = asking ? 1 : 0;
    /** @type {import('./redis-pipe.js').Segment} */
    const seg = {
      n: (only === null ? batch.n : 1) + skip,
      progress: (_s, k, now) => {
        if (skip) {
          const d = Math.min(skip, k);
          skip -= d;
          k -= d;
          if (k === 0) return;
        }
        batch.ok?.(k, now);
      },
      error: (_s, i, err, now) => {
        if (asking && i === 0) {
          skip = 0; // ASKING itself failed: the command's own reply tells
          return;
        }
        this.#failed(err, at(asking ? i - 1 : i), batch, attempts, state, now);
      },
      done: (_s, now) => {
        if (--state.pending === 0) batch.done?.(now);
      },
    };
    if (batch.value)
      seg.value = (_s, i, v) => {
        if (!(asking && i === 0)) batch.value(at(asking ? i - 1 : i), v);
      };
    const pipe = this.router.ready(addr);
    if (pipe) {
      pipe.send(buf, seg);
      return;
    }
    // a node not opened yet (a slot moved there), one that closed, or a slot with no owner
    this.router.pipe(addr).then(
      (p) => p.send(buf, seg),
      (err) => {
        const now = performance.now();
        seg.got = seg.n;
        for (let i = 0; i < seg.n; i++) seg.error(seg, i, err, now);
        seg.done(seg, now);
      },
    );
  }

  /** Command `i` of `batch` was not answered: sent again as the policy says, or failed for good. */
  #failed(err, i, batch, attempts, state, now) {
    const d = decide(err.message || '', attempts);
    if (d.action === 'fail') {
      batch.fail?.(i, err, now);
      return;
    }
    for (const name of countersOf(d.kind)) this.tally[name] = (this.tally[name] || 0) + 1;
    const bytes = batch.buf.subarray(batch.starts[i], batch.starts[i + 1]);
    state.pending++;
    if (d.action === 'redirect') {
      this.router.moved(d.slot, d.addr);
      this.#write(d.addr, bytes, batch, i, attempts + 1, false, state);
      return;
    }
    if (d.action === 'ask') {
      // ASKING holds for the next command on that connection only: both in one write
      this.#write(d.addr, Buffer.concat([ASKING, bytes]), batch, i, attempts + 1, true, state);
      return;
    }
    const where = () => this.router.addrFor(batch.slotOf(i));
    if (d.kind === 'noscript') {
      // the node lost its scripts (restarted, or a replica promoted without them): load them again
      const open = this.router.onOpen;
      if (open)
        this.router
          .pipe(where())
          .then((p) => open(p))
          .catch(() => {});
    } else this.router.refreshSoon();
    setTimeout(() => this.#write(where(), bytes, batch, i, attempts + 1, false, state), d.delayMs);
  }
}
