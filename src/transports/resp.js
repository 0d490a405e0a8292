/**
 * RESP2 command encoding for the producer's hot path. Commands whose bytes never change
 * (SETEX of a fixed payload, LPUSH of fixed ids) are encoded once and resent as they are;
 * commands that carry a timestamp score are encoded once with fixed-width placeholders and
 * patched per send. That is what lets one Node process keep Redis, not itself, busy.
 */

/** Marks the argument slot that holds the send-time score (13 ASCII digits, ms since epoch). */
export const SCORE = Symbol('score');
export const SCORE_WIDTH = 13;
const SCORE_PLACEHOLDER = Buffer.from('0'.repeat(SCORE_WIDTH));
const CRLF = Buffer.from('\r\n');

/**
 * @param {Array<string|number|Buffer|symbol>} args
 * @returns {{ buf: Buffer, scoreOffsets: number[] }}
 */
export function encodeTemplate(args) {
  /** @type {Buffer[]} */
  const parts = [Buffer.from(`*${args.length}\r\n`)];
  const scoreOffsets = [];
  let offset = parts[0].length;
  for (const arg of args) {
    const bytes = arg === SCORE ? SCORE_PLACEHOLDER : Buffer.isBuffer(arg) ? arg : Buffer.from(String(arg));
    const head = Buffer.from(`$${bytes.length}\r\n`);
    if (arg === SCORE) scoreOffsets.push(offset + head.length);
    parts.push(head, bytes, CRLF);
    offset += head.length + bytes.length + 2;
  }
  return { buf: Buffer.concat(parts, offset), scoreOffsets };
}

/**
 * @param {Array<string|number|Buffer>} args
 * @returns {Buffer}
 */
export function encodeCommand(args) {
  return encodeTemplate(args).buf;
}

/**
 * The 13-digit score for a timestamp.
 * @param {number} ms
 */
export function scoreBytes(ms) {
  const s = String(Math.floor(ms));
  if (s.length !== SCORE_WIDTH) throw new RangeError(`score ${s} is not ${SCORE_WIDTH} digits`);
  return Buffer.from(s);
}

/**
 * Bytes of a template with its score slots filled. Returns a fresh copy when there are slots,
 * because the socket may still hold the previous send's buffer.
 * @param {{ buf: Buffer, scoreOffsets: number[] }} tpl
 * @param {Buffer} score from scoreBytes()
 */
export function render(tpl, score) {
  if (tpl.scoreOffsets.length === 0) return tpl.buf;
  const out = Buffer.allocUnsafe(tpl.buf.length);
  tpl.buf.copy(out);
  for (const off of tpl.scoreOffsets) score.copy(out, off);
  return out;
}

/** Decimal digits of a non-negative integer. @param {number} n */
export function digits(n) {
  return n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10000 ? 4 : n < 100000 ? 5 : n < 1000000 ? 6 : String(n).length;
}

/**
 * Writes a non-negative integer in decimal at buf[at] (a RESP length, a count): no string made.
 * @param {Buffer} buf
 * @param {number} at
 * @param {number} n
 * @returns {number} the offset after it
 */
export function writeInt(buf, at, n) {
  const d = digits(n);
  for (let i = at + d - 1; i >= at; i--) {
    buf[i] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  return at + d;
}

/** @param {string|Buffer} a */
const argBytes = (a) => (typeof a === 'string' ? Buffer.byteLength(a) : a.length);

/**
 * Several commands in one buffer, and where each starts (a ClusterSender batch): one allocation
 * per batch, no buffer per argument, as a client that sends commands one by one at a high rate
 * (the kv workload) needs.
 * @param {Array<Array<string|Buffer>>} cmds
 * @returns {{ buf: Buffer, starts: number[] }}
 */
export function encodeBatch(cmds) {
  let size = 0;
  for (const args of cmds) {
    size += 3 + digits(args.length);
    for (const a of args) {
      const n = argBytes(a);
      size += 5 + digits(n) + n;
    }
  }
  const buf = Buffer.allocUnsafe(size);
  const starts = new Array(cmds.length + 1);
  let at = 0;
  for (let i = 0; i < cmds.length; i++) {
    starts[i] = at;
    const args = cmds[i];
    buf[at++] = 42; // *
    at = writeInt(buf, at, args.length);
    buf[at++] = 13;
    buf[at++] = 10;
    for (const a of args) {
      buf[at++] = 36; // $
      at = writeInt(buf, at, argBytes(a));
      buf[at++] = 13;
      buf[at++] = 10;
      at += typeof a === 'string' ? buf.write(a, at) : a.copy(buf, at);
      buf[at++] = 13;
      buf[at++] = 10;
    }
  }
  starts[cmds.length] = at;
  return { buf, starts };
}
