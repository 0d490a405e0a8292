/**
 * Scanning RESP2 replies in place, for the consumer's hot path: a reply that is an array of
 * bulk strings (ZRANGEBYSCORE, LRANGE, MGET) is handed to a visitor element by element as
 * (buffer, start, end) — no string and no object per element. Top-level simple strings,
 * integers and errors are reported too (AUTH, READONLY, an error instead of an array).
 * The scanner is incremental: it stops where the bytes run out and resumes on the next chunk.
 */

/**
 * @typedef {object} ScanVisitor
 * @property {(buf: Buffer, start: number, end: number, reply: number, index: number) => void} [item] a bulk string
 * @property {(reply: number, index: number) => void} [nil]   a nil element
 * @property {(message: string, reply: number) => void} [error]  a top-level error reply
 * @property {(text: string, reply: number) => void} [simple]   a top-level +string, :integer or $bulk
 */

const CR = 13;

/** ASCII decimal (optionally negative) in buf[from, to). */
function intAt(buf, from, to) {
  let i = from;
  let neg = false;
  if (buf[i] === 45) {
    neg = true;
    i++;
  } // '-'
  let n = 0;
  for (; i < to; i++) n = n * 10 + (buf[i] - 48);
  return neg ? -n : n;
}

export class ReplyScanner {
  /**
   * @param {number} replies top-level replies expected
   * @param {ScanVisitor} visitor
   */
  constructor(replies, visitor) {
    this.left = replies;
    this.visitor = visitor;
    this.reply = 0;
    this.index = 0;
    this.items = 0; // elements left in the current array
  }

  get done() {
    return this.left === 0;
  }

  /**
   * Scans buf from `pos`; returns where it stopped (the first byte it still needs, or the end of
   * the last reply it was waiting for). Throws on replies it does not understand.
   * @param {Buffer} buf
   * @param {number} pos
   */
  scan(buf, pos) {
    const end = buf.length;
    const v = this.visitor;
    while (this.left > 0) {
      if (pos >= end) return pos;
      const cr = buf.indexOf(CR, pos);
      if (cr < 0 || cr + 1 >= end) return pos;
      const type = buf[pos];
      if (this.items > 0) {
        if (type !== 36) throw new Error(`unexpected RESP element type '${String.fromCharCode(type)}' in an array`);
        const len = intAt(buf, pos + 1, cr);
        if (len < 0) {
          v.nil?.(this.reply, this.index);
          pos = cr + 2;
        } else {
          const start = cr + 2;
          if (start + len + 2 > end) return pos;
          v.item?.(buf, start, start + len, this.reply, this.index);
          pos = start + len + 2;
        }
        this.index++;
        if (--this.items === 0) this.#replyDone();
        continue;
      }
      if (type === 42) {
        // '*'
        const n = intAt(buf, pos + 1, cr);
        pos = cr + 2;
        this.index = 0;
        if (n > 0) this.items = n;
        else this.#replyDone();
      } else if (type === 36) {
        // a top-level bulk string
        const len = intAt(buf, pos + 1, cr);
        if (len < 0) {
          v.nil?.(this.reply, 0);
          pos = cr + 2;
        } else {
          if (cr + 2 + len + 2 > end) return pos;
          v.simple?.(buf.toString('utf8', cr + 2, cr + 2 + len), this.reply);
          pos = cr + 2 + len + 2;
        }
        this.#replyDone();
      } else if (type === 45) {
        // '-'
        v.error?.(buf.toString('utf8', pos + 1, cr), this.reply);
        pos = cr + 2;
        this.#replyDone();
      } else if (type === 43 || type === 58) {
        // '+' ':'
        v.simple?.(buf.toString('utf8', pos + 1, cr), this.reply);
        pos = cr + 2;
        this.#replyDone();
      } else {
        throw new Error(`unexpected RESP reply type '${String.fromCharCode(type)}'`);
      }
    }
    return pos;
  }

  #replyDone() {
    this.reply++;
    this.left--;
  }
}
