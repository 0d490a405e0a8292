/**
 * One interval's latency histograms per operation, each from the intended start and from the
 * actual start: what writers and readers record into and hand over once a second.
 */
import { newHistogram } from './histogram.js';
import { toSparse } from './sparse.js';

export class OpHistograms {
  constructor() {
    /** @type {Map<string, { intended: import('hdr-histogram-js').Histogram, sent: import('hdr-histogram-js').Histogram }>} */
    this.ops = new Map();
  }

  /** @param {string} op */
  of(op) {
    let h = this.ops.get(op);
    if (!h) {
      h = { intended: newHistogram(), sent: newHistogram() };
      this.ops.set(op, h);
    }
    return h;
  }

  /** Hands over this interval's histograms and starts afresh. */
  take() {
    const ops = this.ops;
    this.ops = new Map();
    return ops;
  }
}

/**
 * Histograms taken from OpHistograms as sparse arrays named '<op>.intended' and '<op>.sent',
 * the empty ones left out.
 * @param {OpHistograms['ops']} ops
 * @param {Record<string, number[]>} [into]
 */
export function sparseOps(ops, into = {}) {
  for (const [op, h] of ops) {
    if (h.intended.totalCount) into[`${op}.intended`] = toSparse(h.intended);
    if (h.sent.totalCount) into[`${op}.sent`] = toSparse(h.sent);
  }
  return into;
}
