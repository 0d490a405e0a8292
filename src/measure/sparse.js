/**
 * Histograms in transit between a writer and the parent: only the non-empty buckets, as
 * (bucket index, count) pairs. Every rqbench histogram has the same shape, so rebuilding records
 * each count into the same bucket: the transfer is exact, and costs a scan, not a compression.
 */
import { newHistogram } from './histogram.js';

/**
 * @param {import('hdr-histogram-js').Histogram} h a histogram from newHistogram()
 * @returns {number[]} flat [index, count, index, count, …]
 */
export function toSparse(h) {
  const x = /** @type {any} */ (h);
  const out = [];
  if (h.totalCount === 0) return out;
  // the counts array itself when the build exposes it (a plain scan), else the accessor
  const counts = x._counts instanceof Float64Array ? x._counts : null;
  const n = x.countsArrayLength;
  for (let i = 0; i < n; i++) {
    const c = counts ? counts[i] : x.getCountAtIndex(i);
    if (c > 0) out.push(i, c);
  }
  return out;
}

/**
 * @param {number[]} pairs from toSparse()
 * @returns {import('hdr-histogram-js').Histogram}
 */
export function fromSparse(pairs) {
  const h = newHistogram();
  const x = /** @type {any} */ (h);
  for (let i = 0; i < pairs.length; i += 2) h.recordValueWithCount(x.valueFromIndex(pairs[i]), pairs[i + 1]);
  return h;
}
