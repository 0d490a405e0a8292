/**
 * A node that stops answering without closing its connection (a process frozen by SIGSTOP, a
 * machine that hangs, a network that drops packets silently) leaves TCP waiting for ever: the
 * kernel still accepts the bytes written to it. ReplyWatch gives up on such a connection once
 * its node has owed a reply for `ms` without sending a single byte, so that the caller can read
 * from another node. Silence is what counts, not a request's whole time: a node streaming a
 * large reply is heard from all along, however long the reply takes.
 *
 * One timer per connection, not per request. When it fires, the verdict waits for one turn of
 * the event loop (setImmediate runs after the poll phase), so that bytes that arrived while
 * this process was busy (a long synchronous scan, a GC pause) are read first and count.
 */
import { performance } from 'node:perf_hooks';

/**
 * The default of `consume --reply-timeout`, ms (0 turns the watch off): a healthy node never stays
 * silent this long while it owes a reply to the commands a reader sends (the largest, a
 * ZRANGEBYSCORE of 300k members, answers in ~100 ms on a 2-core machine: bench/RESULTS.md),
 * a false alarm costs one read from the shard's master (the replica is looked at again every
 * second, redis-router.js), and a frozen replica costs at most one seed period (1 s) of a cycle.
 */
export const REPLY_TIMEOUT_MS = 1000;

export class ReplyWatch {
  /**
   * @param {number} ms
   * @param {() => boolean} owed a reply is still owed
   * @param {(silentMs: number) => void} onSilent the node said nothing for `ms` while it owed one
   */
  constructor(ms, owed, onSilent) {
    this.ms = ms;
    this.owed = owed;
    this.onSilent = onSilent;
    /** perf time of the last byte read, or of the request that ended a time when nothing was owed */
    this.heardAt = 0;
    /** @type {NodeJS.Timeout|null} */
    this.timer = null;
    this.stopped = false;
  }

  /**
   * A request was written.
   * @param {boolean} owedBefore replies were already owed: the silence goes on from the last byte
   */
  sent(owedBefore) {
    if (!owedBefore) this.heardAt = performance.now();
    if (!this.timer && !this.stopped) this.#arm(this.ms);
  }

  /** Bytes arrived. */
  heard(now = performance.now()) {
    this.heardAt = now;
  }

  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  #arm(ms) {
    this.timer = setTimeout(() => setImmediate(() => this.#check()), ms);
    // the connection's socket keeps the process alive while it matters; the watch alone must not
    this.timer.unref?.();
  }

  #check() {
    this.timer = null;
    if (this.stopped || !this.owed()) return;
    const silent = performance.now() - this.heardAt;
    if (silent >= this.ms) this.onSilent(silent);
    else this.#arm(this.ms - silent);
  }
}

/**
 * The error a connection given up on fails its requests with: it reads as a lost connection
 * (cluster-policy.js: `connection …`), so a reader treats it as one.
 * @param {string} addr
 * @param {number} ms
 */
export function silenceError(addr, ms) {
  return Object.assign(new Error(`connection to ${addr}: no reply within ${ms} ms`), { silent: true });
}
