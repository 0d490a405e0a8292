/**
 * How much B differs from A, with an interval: the Hodges–Lehmann estimate (the median of every
 * pairwise difference between a trial of B and a trial of A) and its exact distribution-free
 * interval from the Mann–Whitney null distribution (Moses' construction, as R's
 * `wilcox.test(conf.int = TRUE)` gives it). When every figure is positive the differences are
 * taken of logarithms, so the answer is a ratio B/A: benchmark figures are positive and their
 * spread grows with their size, so a change is relative. The interval is exact and deterministic
 * at the few trials a benchmark affords (a bootstrap from 6 trials is too narrow and moves with its
 * seed), and it agrees with the test: it leaves out "no change" when the test is significant.
 */
import { median } from 'simple-statistics';
import { nullCounts } from './mann-whitney.js';

/**
 * @typedef {{ kind: 'ratio'|'shift', estimate: number|null, lo: number|null, hi: number|null, pct: number|null,
 *   pctLo: number|null, pctHi: number|null, level: number|null, why: string|null }} Change
 *   pct*: the change in % of A (a ratio's − 1; a shift's over |median A|, null when that is 0)
 */

/**
 * @param {number[]} a the baseline's trials
 * @param {number[]} b
 * @param {number} [level]
 * @returns {Change}
 */
export function changeInterval(a, b, level = 0.95) {
  const ratio = a.length > 0 && b.length > 0 && [...a, ...b].every((x) => x > 0);
  const f = ratio ? Math.log : (x) => x;
  const diffs = [];
  for (const y of b) for (const x of a) diffs.push(f(y) - f(x));
  diffs.sort((p, q) => p - q);
  const back = ratio ? Math.exp : (x) => x;
  const base = ratio ? 1 : a.length ? Math.abs(median(a)) : 0;
  const toPct = (v) => (v === null ? null : ratio ? (v - 1) * 100 : base ? (v / base) * 100 : null);
  const estimate = diffs.length ? back(median(diffs)) : null;
  const k = diffs.length ? rankFor(a.length, b.length, level) : null;
  const lo = k ? back(diffs[k.k - 1]) : null;
  const hi = k ? back(diffs[diffs.length - k.k]) : null;
  const why = !diffs.length
    ? 'a side has no trial'
    : k
      ? null
      : `${a.length} vs ${b.length} trials: too few for a ${Math.round(level * 100)}% interval of the change`;
  return {
    kind: ratio ? 'ratio' : 'shift',
    estimate,
    lo,
    hi,
    pct: toPct(estimate),
    pctLo: toPct(lo),
    pctHi: toPct(hi),
    level: k ? k.level : null,
    why,
  };
}

/**
 * The largest k with P(U ≤ k−1) ≤ (1 − level)/2, and the coverage it gives; null when even k = 1 misses.
 * @param {number} m
 * @param {number} n
 * @param {number} level
 */
function rankFor(m, n, level) {
  const counts = nullCounts(m, n);
  const total = counts.reduce((s, c) => s + c, 0);
  let cdf = 0;
  let k = 0;
  for (let u = 0; u < counts.length; u++) {
    // cdf is P(U ≤ u − 1) when k = u would be taken
    if (cdf / total > (1 - level) / 2 + 1e-12) break;
    k = u;
    cdf += counts[u];
  }
  if (k < 1) return null;
  const below = counts.slice(0, k).reduce((s, c) => s + c, 0) / total;
  return { k, level: 1 - 2 * below };
}
