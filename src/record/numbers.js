/** The arithmetic summaries share: NaN for no values, null for a figure that is not a number. */

/** @param {number[]} xs */
export function avg(xs) {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

/** @param {number[]} xs */
export function max(xs) {
  return xs.length ? xs.reduce((a, b) => (b > a ? b : a), -Infinity) : NaN;
}

/**
 * @param {number} x
 * @param {number} [d] decimals
 * @returns {number|null} null when x is not a finite number (JSON has no NaN)
 */
export function round(x, d = 1) {
  if (!Number.isFinite(x)) return null;
  const f = 10 ** d;
  return Math.round(x * f) / f;
}
