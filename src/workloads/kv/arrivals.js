/**
 * When each operation is due (its intended start, which latency is measured from): an open-loop
 * schedule at a rate that may change over the run. The rate is a piecewise-linear curve through
 * points (t seconds, rate a second), held at its last rate after the last point, as k6's
 * ramping-arrival-rate stages; one point is a constant rate. Arrivals are
 * - `constant`: evenly spaced in the curve's own time (the k-th when the curve's integral reaches k);
 * - `poisson`: exponential gaps at the same mean rate (the integral reaches a sum of Exp(1) draws),
 *   the arrivals of many independent clients.
 * Both are the time-rescaling of one sequence by the inverse of Λ(t) = ∫ rate, so a ramp changes
 * the rate without changing the process.
 */

/** @typedef {import('./random.js').Uniform} Uniform */
/** @typedef {{ t: number, rate: number }} RatePoint */

export const RAMP_FORMS = 'T:RATE,T:RATE,… (seconds from the start, rates a second; times increasing from 0, rates 0 or more, one above 0)';

/**
 * `--ramp 0:1000,30:5000` → its points, or what is wrong.
 * @param {string} text
 * @returns {RatePoint[]|string}
 */
export function parseRamp(text) {
  const points = String(text)
    .split(',')
    .map((p) => /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(p))
    .map((m) => (m ? { t: Number(m[1]), rate: Number(m[2]) } : null));
  if (!points.length || points.some((p) => !p)) return RAMP_FORMS;
  const ps = /** @type {RatePoint[]} */ (points);
  if (ps[0].t !== 0 || ps.some((p, i) => i > 0 && p.t <= ps[i - 1].t) || !ps.some((p) => p.rate > 0)) return RAMP_FORMS;
  return ps;
}

/**
 * Λ⁻¹: the time (s) by which the rate curve's integral reaches `u` operations.
 * @param {RatePoint[]} points
 * @returns {(u: number) => number}
 */
export function inverseCumulative(points) {
  // the integral at each point, then per segment a quadratic in the time since its start
  const at = [0];
  for (let i = 1; i < points.length; i++) {
    const [a, b] = [points[i - 1], points[i]];
    at.push(at[i - 1] + ((a.rate + b.rate) / 2) * (b.t - a.t));
  }
  const last = points[points.length - 1];
  return (u) => {
    let i = at.length - 1;
    while (i > 0 && at[i] > u) i--;
    const p = points[i];
    const left = u - at[i];
    if (i === points.length - 1) return last.rate > 0 ? p.t + left / last.rate : Infinity;
    const q = points[i + 1];
    const slope = (q.rate - p.rate) / (q.t - p.t);
    // p.rate·x + slope·x²/2 = left
    if (Math.abs(slope) < 1e-12) return p.t + left / p.rate;
    const disc = p.rate * p.rate + 2 * slope * left;
    return p.t + (Math.sqrt(Math.max(0, disc)) - p.rate) / slope;
  };
}

/**
 * The intended start of each operation in turn, seconds from the run's start. One of several
 * clients sharing a constant schedule takes every `every`-th arrival from the `from`-th (so the
 * clients' operations interleave, evenly spaced together); Poisson clients each take the curve
 * scaled by 1/clients instead (independent Poisson processes add up to one at the sum of rates).
 * @param {'constant'|'poisson'} process
 * @param {RatePoint[]} points
 * @param {Uniform} random
 * @param {{ every?: number, from?: number }} [share]
 * @returns {() => number}
 */
export function arrivals(process, points, random, { every = 1, from = 0 } = {}) {
  const inv = inverseCumulative(points);
  let u = 0;
  let k = 0;
  if (process === 'constant') return () => inv(from + every * k++);
  return () => inv((u += -Math.log(1 - random())));
}
