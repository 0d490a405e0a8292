/**
 * Which item ids a cycle has already seen, one byte per id: a cycle stamps the ids it meets,
 * and an id already carrying this cycle's stamp is a duplicate. (A Set of 300k ids is most of
 * a cycle's garbage; a byte array is reused across cycles and cleared once every 255.)
 */
export class SeenIds {
  constructor() {
    this.marks = new Uint8Array(1024);
    this.stamp = 0;
  }

  /** Starts a new cycle. */
  next() {
    this.stamp = (this.stamp % 255) + 1;
    if (this.stamp === 1) this.marks.fill(0); // stamps wrapped: older marks would read as this cycle's
  }

  /**
   * Marks `id` seen; true when it had already been seen this cycle.
   * @param {number} id
   */
  seen(id) {
    if (id >= this.marks.length) this.#grow(id);
    if (this.marks[id] === this.stamp) return true;
    this.marks[id] = this.stamp;
    return false;
  }

  #grow(id) {
    const bigger = new Uint8Array(Math.max(id + 1, this.marks.length * 2));
    bigger.set(this.marks);
    this.marks = bigger;
  }
}
