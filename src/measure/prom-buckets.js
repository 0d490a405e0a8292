/**
 * Prometheus histogram buckets laid out the way an HdrHistogram lays out its own, only coarser:
 * every value below STEPS µs is a bucket of its own (exact, as HdrHistogram is below its
 * sub-bucket count), and every power of two above is cut into STEPS equal linear steps, up to the
 * first bound past the HdrHistogram's highest trackable value (settings.histogram: 1 h).
 *
 * Why log-linear: histogram_quantile() finds the bucket a rank falls in and interpolates linearly
 * inside it, so its error is at most that bucket's width. With 16 steps per octave the widest
 * bucket is 1/16 (6.25%) of its lower bound, so a quantile from 16 µs up lands within 6.25% of
 * the exact one, at p50 and at p999 alike. The 1-2-5-per-decade buckets this replaces were up to
 * 150% wide: a p999 of 250 ms read as 425 ms. prom-client 15 has no native (sparse) histograms,
 * which would adapt on their own; 459 fixed buckets per histogram is the price, paid in series.
 *
 * The bounds are aligned with HdrHistogram's buckets (both are powers of two cut in powers of
 * two), so moving a recorded HdrHistogram into these buckets splits none of its buckets.
 */
import { settings } from '../settings.js';

/** Linear steps per power of two (a power of two itself, for the alignment above). */
export const STEPS_PER_OCTAVE = 16;

/**
 * Upper bounds from `lowest` to the first one at or past `highest`.
 * @param {number} lowest the smallest value recorded (1 µs)
 * @param {number} highest the largest (1 h in µs)
 * @param {number} steps per octave, a power of two
 * @returns {number[]}
 */
export function logLinearBounds(lowest, highest, steps) {
  const out = [];
  for (let b = lowest; b <= steps; b++) out.push(b);
  for (let base = steps; ; base *= 2) {
    const step = base / steps;
    for (let m = 1; m <= steps; m++) {
      const b = base + m * step;
      out.push(b);
      if (b >= highest) return out;
    }
  }
}

/** The bounds in microseconds: 1, 2, … 16, 17, … 32, 34, … 64, 68, … 3,623,878,656. */
export const BOUNDS_US = Object.freeze(logLinearBounds(settings.histogram.lowest, settings.histogram.highest, STEPS_PER_OCTAVE));

/** The same bounds in seconds, for rqbench's own histograms (Prometheus's base unit). */
export const BOUNDS_S = Object.freeze(BOUNDS_US.map((b) => b / 1e6));

/** The same bounds in nanoseconds, for the seed's metrics that are kept in ns. */
export const BOUNDS_NS = Object.freeze(BOUNDS_US.map((b) => b * 1000));

/**
 * The bucket a value falls in (`value <= bound`, as `le` means): the index of the first bound at
 * or above it, or bounds.length for +Inf.
 * @param {readonly number[]} bounds ascending
 * @param {number} value
 */
export function bucketIndex(bounds, value) {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (bounds[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
