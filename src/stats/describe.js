/**
 * One figure over its trials: median, mean, min–max, coefficient of variation, and the
 * distribution-free confidence interval of the median — read off the sorted trials (order
 * statistics), so it assumes nothing about the shape of the noise, only that trials are
 * independent. With n trials the interval [x_(k), x_(n−k+1)] covers the median with probability
 * 1 − 2·P(Binomial(n, ½) ≤ k−1); below 6 trials no k reaches 95 %, and the interval is refused
 * rather than made up.
 */
import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';
import { mean as meanOf, median as medianOf, sampleStandardDeviation } from 'simple-statistics';

/**
 * @typedef {{ n: number, median: number|null, mean: number|null, min: number|null, max: number|null, cv: number|null,
 *   ci: { lo: number, hi: number, level: number } | null, why: string|null }} Described
 */

/**
 * @param {number[]} values one per trial
 * @param {number} [level]
 * @returns {Described}
 */
export function describe(values, level = 0.95) {
  const xs = finite(values).sort((a, b) => a - b);
  const n = xs.length;
  if (!n) return { n, median: null, mean: null, min: null, max: null, cv: null, ci: null, why: 'no trial' };
  const mean = meanOf(xs);
  // over |mean|: a spread is never negative, whatever the sign of the figure
  const cv = n > 1 && mean !== 0 ? sampleStandardDeviation(xs) / Math.abs(mean) : null;
  const k = medianRank(n, level);
  const ci = k ? { lo: xs[k - 1], hi: xs[n - k], level: coverage(n, k) } : null;
  const why = ci ? null : `n=${n}: a ${Math.round(level * 100)}% interval for a median needs at least ${fewestFor(level)} trials`;
  return { n, median: medianOf(xs), mean, min: xs[0], max: xs[n - 1], cv, ci, why };
}

/** The values that are numbers. @param {unknown[]} values @returns {number[]} */
export function finite(values) {
  return /** @type {number[]} */ (values.filter((v) => typeof v === 'number' && Number.isFinite(v)));
}

/** Coverage of [x_(k), x_(n−k+1)]. */
function coverage(n, k) {
  return 1 - 2 * binomialCdf(k - 1, n, 0.5);
}

/**
 * The largest k whose interval still covers `level`, or 0 when none does.
 * @param {number} n
 * @param {number} level
 * @returns {number}
 */
export function medianRank(n, level) {
  let best = 0;
  for (let k = 1; k <= Math.floor((n + 1) / 2); k++) {
    if (coverage(n, k) >= level - 1e-12) best = k;
    else break;
  }
  return best;
}

/** The fewest trials with a median interval at `level` (6 at 95 %). */
function fewestFor(level) {
  let n = 1;
  while (!medianRank(n, level)) n++;
  return n;
}
