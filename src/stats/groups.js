/**
 * Two groups of trials compared the way Go's benchstat compares benchmark runs: the medians with
 * their intervals, the change with its interval, the exact Mann–Whitney p, and "~" when the
 * difference is not significant. With one trial a side there is a delta but no interval, and
 * nothing is ever called significant.
 */
import { describe, finite } from './describe.js';
import { changeInterval } from './change.js';
import { mannWhitney, nullCounts } from './mann-whitney.js';

/**
 * @typedef {{ a: import('./describe.js').Described, b: import('./describe.js').Described, change: import('./change.js').Change,
 *   p: number|null, significant: boolean, beyondNoise: boolean, direction: 'up'|'down'|'~', note: string|null }} Compared
 */

/**
 * @param {number[]} a the baseline's trials
 * @param {number[]} b
 * @param {{ alpha?: number, threshold?: number }} [o] threshold: relative noise, 0.02 = ±2 %
 * @returns {Compared}
 */
export function compareGroups(a, b, { alpha = 0.05, threshold = 0.02 } = {}) {
  const xs = finite(a);
  const ys = finite(b);
  const change = changeInterval(xs, ys);
  const da = describe(xs);
  const db = describe(ys);
  if (xs.length < 2 || ys.length < 2) {
    return {
      a: da,
      b: db,
      change,
      p: null,
      significant: false,
      beyondNoise: false,
      direction: /** @type {'~'} */ ('~'),
      note: xs.length && ys.length ? 'n=1: no interval' : 'a side has no trial',
    };
  }
  const { p } = mannWhitney(xs, ys);
  const significant = p < alpha;
  const t = threshold * 100;
  const beyondNoise = change.pctLo !== null && change.pctHi !== null && (change.pctLo > t || change.pctHi < -t);
  const up = change.estimate !== null && (change.kind === 'ratio' ? change.estimate > 1 : change.estimate > 0);
  const direction = /** @type {'up'|'down'|'~'} */ (!significant ? '~' : up ? 'up' : 'down');
  const least = smallestP(xs.length, ys.length);
  const note = least >= alpha ? `${xs.length} vs ${ys.length} trials: the smallest possible p is ${Number(least.toPrecision(2))}` : null;
  return { a: da, b: db, change, p, significant, beyondNoise, direction, note };
}

/**
 * The smallest two-sided exact p with m and n trials: 2 / C(m+n, m).
 * @param {number} m
 * @param {number} n
 * @returns {number}
 */
export function smallestP(m, n) {
  const counts = nullCounts(m, n);
  return Math.min(1, (2 * counts[0]) / counts.reduce((s, c) => s + c, 0));
}

/**
 * What the noise rule found for a change that is not wholly beyond the threshold, in words: its
 * whole interval inside ±t ("within"), or only part of it ("reaches inside"). An interval of
 * [0 %, +19 %] with an estimate of +4.8 % is not "within ±2 %": most of it lies outside.
 * @param {number} lo the interval's low end, in the threshold's unit
 * @param {number} hi
 * @param {number} t the threshold, > 0
 * @param {string} shown the threshold as printed ("2%")
 */
export function noiseWords(lo, hi, t, shown) {
  return lo >= -t && hi <= t ? `within ±${shown}` : `its interval reaches inside ±${shown}`;
}
