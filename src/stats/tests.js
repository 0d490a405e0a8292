/**
 * The small tests a verdict needs beside Mann–Whitney: the exact sign test of a median against a
 * constant, and Holm's step-down correction when one check makes several comparisons (each must
 * clear a stricter bar, so several chances at 0.05 do not add up to a false finding).
 */
import binomialCdf from '@stdlib/stats-base-dists-binomial-cdf';

/**
 * @param {number[]} values
 * @param {number} c
 * @returns {{ p: number, above: number, below: number, equal: number }}
 */
export function signTest(values, c) {
  const above = values.filter((v) => v > c).length;
  const below = values.filter((v) => v < c).length;
  const equal = values.length - above - below;
  const n = above + below;
  const p = n ? Math.min(1, 2 * binomialCdf(Math.min(above, below), n, 0.5)) : 1;
  return { p, above, below, equal };
}

/**
 * @param {number[]} ps
 * @param {number} [alpha]
 * @returns {{ adjusted: number[], significant: boolean[] }} in the order given
 */
export function holm(ps, alpha = 0.05) {
  const m = ps.length;
  const order = ps.map((p, i) => [p, i]).sort((x, y) => x[0] - y[0]);
  const adjusted = new Array(m);
  let running = 0;
  order.forEach(([p, i], j) => {
    running = Math.max(running, Math.min(1, (m - j) * p));
    adjusted[i] = running;
  });
  return { adjusted, significant: adjusted.map((p) => p < alpha) };
}
