/**
 * The members a range read returned, kept as bytes: one growing buffer and the start and end of
 * each member in typed arrays, reused cycle after cycle. 300k members cost no JS object each.
 */
export class MemberList {
  constructor() {
    this.buf = Buffer.allocUnsafe(1 << 20);
    this.used = 0;
    this.start = new Int32Array(1 << 14);
    this.end = new Int32Array(1 << 14);
    this.count = 0;
  }

  clear() {
    this.used = 0;
    this.count = 0;
  }

  /** Copies the member buf[s, e). @param {Buffer} b */
  add(b, s, e) {
    const len = e - s;
    if (this.used + len > this.buf.length) this.#growBytes(this.used + len);
    if (this.count === this.start.length) this.#growIndex();
    const buf = this.buf;
    let w = this.used;
    this.start[this.count] = w;
    // members are short: a byte loop beats Buffer#copy's per-call cost
    if (len < 64) for (let k = s; k < e; k++) buf[w++] = b[k];
    else w += b.copy(buf, w, s, e);
    this.used = w;
    this.end[this.count++] = w;
  }

  /** Member i as a string (tests, diagnostics; not the hot path). */
  at(i) {
    return this.buf.toString('utf8', this.start[i], this.end[i]);
  }

  #growBytes(need) {
    const bigger = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    this.buf.copy(bigger, 0, 0, this.used);
    this.buf = bigger;
  }

  #growIndex() {
    const grow = (a) => {
      const b = new Int32Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.start = grow(this.start);
    this.end = grow(this.end);
  }
}
