/**
 * What a reader should see beside a figure, never a silent drop: a trial far from the others (by
 * the median absolute deviation, which one wild trial cannot inflate), a trend across rounds
 * (Kendall's τ against the round: drift that interleaving spreads over every step but that still
 * widens the spread), and a coefficient of variation above 5 %.
 */
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';
import { medianAbsoluteDeviation, median } from 'simple-statistics';
import { describe } from './describe.js';

const FAR = 3.5;
const CV_LIMIT = 0.05;
const TREND_P = 0.05;
const TREND_MIN_N = 6;

/**
 * @param {number[]} values in trial order
 * @param {number[]} [rounds] each trial's round (default 1, 2, …)
 * @returns {string[]}
 */
export function trialWarnings(values, rounds = values.map((_, i) => i + 1)) {
  const out = [];
  if (values.length < 2) return out;
  const med = median(values);
  const mad = medianAbsoluteDeviation(values) * 1.4826;
  if (mad > 0) {
    values.forEach((v, i) => {
      const z = Math.abs(v - med) / mad;
      if (z > FAR) out.push(`trial ${i + 1} (${sig(v)}) is far from the others (robust z ${sig(z)})`);
    });
  }
  if (values.length >= TREND_MIN_N) {
    const t = kendall(rounds, values);
    if (t.p < TREND_P) out.push(`${t.tau > 0 ? 'rises' : 'falls'} across rounds (Kendall τ ${sig(t.tau)}, p ${sig(t.p)})`);
  }
  const { cv } = describe(values);
  if (cv !== null && cv > CV_LIMIT) out.push(`CV ${sig(cv * 100)}% (above ${CV_LIMIT * 100}%)`);
  return out;
}

/**
 * Kendall's τ-b and its two-sided p by the normal approximation (with the variance's tie terms).
 * @param {number[]} x
 * @param {number[]} y
 * @returns {{ tau: number, p: number }}
 */
export function kendall(x, y) {
  const n = x.length;
  let s = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) s += Math.sign(x[i] - x[j]) * Math.sign(y[i] - y[j]);
  const ties = (v) => [...v.reduce((m, a) => m.set(a, (m.get(a) ?? 0) + 1), new Map()).values()];
  const tx = ties(x);
  const ty = ties(y);
  const n0 = (n * (n - 1)) / 2;
  const n1 = tx.reduce((a, t) => a + (t * (t - 1)) / 2, 0);
  const n2 = ty.reduce((a, t) => a + (t * (t - 1)) / 2, 0);
  const tau = n0 - n1 > 0 && n0 - n2 > 0 ? s / Math.sqrt((n0 - n1) * (n0 - n2)) : 0;
  const v0 = n * (n - 1) * (2 * n + 5);
  const vt = (ts) => ts.reduce((a, t) => a + t * (t - 1) * (2 * t + 5), 0);
  const var1 =
    (v0 - vt(tx) - vt(ty)) / 18 +
    (tx.reduce((a, t) => a + t * (t - 1) * (t - 2), 0) * ty.reduce((a, t) => a + t * (t - 1) * (t - 2), 0)) / (9 * n * (n - 1) * (n - 2)) +
    (tx.reduce((a, t) => a + t * (t - 1), 0) * ty.reduce((a, t) => a + t * (t - 1), 0)) / (2 * n * (n - 1));
  const p = var1 > 0 ? 2 * (1 - normalCdf(Math.abs(s) / Math.sqrt(var1), 0, 1)) : 1;
  return { tau, p };
}

function sig(v) {
  return String(Number(v.toPrecision(3)));
}
