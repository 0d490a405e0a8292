/**
 * One raw pipelined connection to one Redis node. Bytes go out as they are (pre-encoded by
 * resp.js); replies come back in order and are matched to the segment that asked for them.
 * This is memtier_benchmark's model: the client keeps no per-command objects on the hot path.
 */
import { performance } from 'node:perf_hooks';
import RedisParser from 'redis-parser';
import { encodeCommand } from './resp.js';
import { handshake, openSocket } from './socket.js';
import { ReplyWatch, silenceError } from './reply-watch.js';

/**
 * A run of `n` commands written together whose replies belong to one owner.
 * @typedef {object} Segment
 * @property {number} n             replies expected
 * @property {number} [got]         replies received so far (set by the pipe)
 * @property {number} [pendingOk]   successful replies not yet handed to `progress` (set by the pipe)
 * @property {(seg: Segment, k: number, now: number) => void} [progress] k more successful replies arrived at `now`
 * @property {(seg: Segment, index: number, err: Error, now: number) => void} [error] reply `index` (0-based) was an error
 * @property {(seg: Segment, now: number) => void} [done]  all n replies are in
 * @property {(seg: Segment, index: number, value: any) => void} [value] receives each successful reply's value (only when set)
 */

/**
 * @typedef {object} PipeOptions
 * @property {string} host
 * @property {number} port
 * @property {boolean|object} [tls]   true or tls.connect options
 * @property {string} [username]
 * @property {string} [password]
 * @property {number} [db]
 * @property {boolean} [readonly]     send READONLY (reads from cluster replicas)
 * @property {number} [connectTimeoutMs]
 * @property {number} [replyTimeoutMs]  give up on the connection when its node owes a reply and has said
 *   nothing for this long (reply-watch.js): its requests fail as a lost connection. 0 or unset: wait
 */

export class RespPipe {
  /** @param {PipeOptions} opts */
  constructor(opts) {
    this.opts = opts;
    this.addr = `${opts.host}:${opts.port}`;
    /** @type {Segment[]} */
    this.queue = [];
    this.head = 0;
    this.closed = false;
    this.now = 0;
    /** @type {Set<Segment>} */
    this.touched = new Set();
    this.onClose = null;
    this.watch = opts.replyTimeoutMs
      ? new ReplyWatch(
          opts.replyTimeoutMs,
          () => this.pending > 0,
          () => this.#fail(silenceError(this.addr, opts.replyTimeoutMs)),
        )
      : null;
    this.parser = new RedisParser({
      returnReply: (reply) => this.#reply(reply, null),
      returnError: (err) => this.#reply(null, err),
      returnFatalError: (err) => this.#fail(err),
    });
  }

  /** Connects, authenticates and selects the db; rejects naming host:port. */
  async connect() {
    const sock = await openSocket(this.opts);
    this.sock = sock;
    sock.on('data', (data) => this.#data(data));
    sock.on('error', (e) => this.#fail(e));
    sock.on('close', () => this.#fail(new Error(`connection to ${this.addr} closed`)));
    await handshake(this.opts, this.addr, (what, args) => this.#setup(what, args));
    return this;
  }

  /** A setup command; on failure the socket is closed (nothing would, and the process would not exit). */
  async #setup(what, args) {
    try {
      await this.call(args);
    } catch (e) {
      this.close();
      throw new Error(`${what}: ${e.message}`, { cause: e });
    }
  }

  /**
   * Writes pre-encoded bytes holding seg.n commands.
   * @param {Buffer} buf
   * @param {Segment} seg
   * @returns {boolean} false when the socket is buffering (backpressure) or closed
   */
  send(buf, seg) {
    seg.got = 0;
    if (this.closed) {
      const err = new Error(`connection to ${this.addr} is closed`);
      for (let i = 0; i < seg.n; i++) seg.error?.(seg, i, err, performance.now());
      seg.done?.(seg, performance.now());
      return false;
    }
    this.watch?.sent(this.pending > 0);
    this.queue.push(seg);
    return this.sock.write(buf);
  }

  /**
   * One command, awaited (setup, SCRIPT LOAD, verification); not for the hot path.
   * @param {Array<string|number|Buffer>} args
   */
  call(args) {
    return new Promise((resolve, reject) => {
      let out;
      this.send(encodeCommand(args), {
        n: 1,
        value: (_s, _i, v) => {
          out = v;
        },
        error: (_s, _i, err) => reject(err),
        done: () => resolve(out),
      });
    });
  }

  /** Bytes waiting in the socket's buffer. */
  get buffered() {
    return this.sock ? this.sock.writableLength : 0;
  }

  get pending() {
    return this.queue.length - this.head;
  }

  close() {
    this.watch?.stop();
    if (!this.sock) return;
    this.sock.end();
    this.sock.destroy();
  }

  #data(data) {
    this.now = performance.now();
    this.watch?.heard(this.now);
    this.parser.execute(data);
    this.#flush();
  }

  #flush() {
    for (const seg of this.touched) {
      if (seg.pendingOk) {
        const k = seg.pendingOk;
        seg.pendingOk = 0;
        seg.progress?.(seg, k, this.now);
      }
      if (seg.got === seg.n) seg.done?.(seg, this.now);
    }
    this.touched.clear();
  }

  #reply(value, err) {
    const seg = this.queue[this.head];
    if (!seg) return; // reply without a request: cannot happen with a well-behaved server
    const index = seg.got++;
    this.touched.add(seg);
    if (err) seg.error?.(seg, index, err, this.now);
    else {
      seg.pendingOk = (seg.pendingOk || 0) + 1;
      if (seg.value) seg.value(seg, index, value);
    }
    if (seg.got === seg.n) {
      this.queue[this.head++] = undefined;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
    }
  }

  /** Connection lost: every outstanding reply becomes an error, once. */
  #fail(e) {
    if (this.closed) return;
    this.closed = true;
    this.watch?.stop();
    this.now = performance.now();
    const err = /** @type {NodeJS.ErrnoException} */ (e instanceof Error ? e : new Error(String(e)));
    if (!/connection to/.test(err.message)) err.message = `connection to ${this.addr}: ${err.code || err.message}`;
    while (this.head < this.queue.length) {
      const seg = this.queue[this.head];
      this.touched.add(seg);
      while (seg.got < seg.n) seg.error?.(seg, seg.got++, err, this.now);
      this.head++;
    }
    this.queue = [];
    this.head = 0;
    this.#flush();
    this.sock?.destroy();
    this.onClose?.(err);
  }
}
