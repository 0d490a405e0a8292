/**
 * One connection to one Redis node whose replies are scanned in place (resp-scan.js) instead of
 * parsed into JS values: the consumer's bulk reads (hundreds of thousands of members and values
 * a cycle) cost bytes, not objects. Requests are pipelined; replies go to the request at the
 * head of the queue. Kept apart from RespPipe so the parsed path stays simple.
 */
import { encodeCommand } from './resp.js';
import { handshake, openSocket } from './socket.js';
import { ReplyScanner } from './resp-scan.js';
import { ReplyWatch, silenceError } from './reply-watch.js';

/** Bytes of a new chunk tried first when finishing an element split across chunks. */
const HEAD_BYTES = 4096;

/**
 * @typedef {object} Request
 * @property {ReplyScanner} scanner
 * @property {() => void} resolve
 * @property {(e: Error) => void} reject
 */

export class BytesConn {
  /** @param {import('./redis-pipe.js').PipeOptions} opts */
  constructor(opts) {
    this.opts = opts;
    this.addr = `${opts.host}:${opts.port}`;
    /** @type {Request[]} */
    this.queue = [];
    this.rest = null;
    this.closed = false;
    /** @type {((err: Error) => void)|null} told once when the connection closes without close() */
    this.onClose = null;
    this.closing = false;
    const ms = opts.replyTimeoutMs;
    this.watch = ms
      ? new ReplyWatch(
          ms,
          () => this.queue.length > 0,
          () => this.#fail(silenceError(this.addr, ms)),
        )
      : null;
  }

  /** Connects, authenticates, selects the db and sends READONLY when asked. */
  async connect() {
    const sock = await openSocket(this.opts);
    this.sock = sock;
    sock.on('data', (data) => this.#data(data));
    sock.on('error', (/** @type {NodeJS.ErrnoException} */ e) =>
      this.#fail(new Error(`connection to ${this.addr}: ${e.code || e.message}`)),
    );
    sock.on('close', () => this.#fail(new Error(`connection to ${this.addr} closed`)));
    await handshake(this.opts, this.addr, (what, args) => this.#setup(what, args));
    return this;
  }

  /**
   * Writes `buf` (holding `replies` commands) and scans their replies with `visitor`.
   * Resolves when every reply has been scanned; error replies go to visitor.error.
   * @param {Buffer} buf
   * @param {number} replies
   * @param {import('./resp-scan.js').ScanVisitor} visitor
   * @returns {Promise<void>}
   */
  request(buf, replies, visitor) {
    if (this.closed) return Promise.reject(new Error(`connection to ${this.addr} is closed`));
    return new Promise((resolve, reject) => {
      this.watch?.sent(this.queue.length > 0);
      this.queue.push({ scanner: new ReplyScanner(replies, visitor), resolve, reject });
      this.sock.write(buf);
    });
  }

  close() {
    this.closing = true;
    this.closed = true;
    this.watch?.stop();
    this.sock?.destroy();
  }

  /** A setup command that must answer +OK; on failure the socket is closed, or the process would not exit. */
  async #setup(what, args) {
    let failure;
    await this.request(encodeCommand(args), 1, {
      error: (m) => {
        failure = m;
      },
    });
    if (failure) {
      this.close();
      throw new Error(`${what}: ${failure}`);
    }
  }

  #data(chunk) {
    this.watch?.heard();
    let buf = chunk;
    let pos = 0;
    try {
      if (this.rest) {
        // an element split across chunks: finish it from the chunk's first bytes, without
        // copying the whole chunk (replies arrive in ~700 chunks a cycle)
        const rest = this.rest;
        this.rest = null;
        const head = Buffer.concat([rest, chunk.subarray(0, Math.min(chunk.length, HEAD_BYTES))]);
        const p = this.#scan(head, 0);
        if (p >= rest.length) pos = p - rest.length;
        else buf = Buffer.concat([rest.subarray(p), chunk]); // an element longer than the head
      }
      pos = this.#scan(buf, pos);
    } catch (e) {
      this.#fail(new Error(`connection to ${this.addr}: ${e.message}`));
      return;
    }
    this.rest = pos < buf.length ? Buffer.from(buf.subarray(pos)) : null;
  }

  /** Hands buf to the waiting requests' scanners from `pos`; returns where scanning stopped. */
  #scan(buf, pos) {
    while (this.queue.length) {
      const req = this.queue[0];
      pos = req.scanner.scan(buf, pos);
      if (!req.scanner.done) break;
      this.queue.shift();
      req.resolve();
    }
    return pos;
  }

  #fail(err) {
    if (this.closed && this.queue.length === 0) return;
    this.closed = true;
    this.watch?.stop();
    const pending = this.queue;
    this.queue = [];
    for (const req of pending) req.reject(err);
    this.sock?.destroy();
    if (!this.closing) this.onClose?.(err);
  }
}
