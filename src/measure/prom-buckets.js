/**
 * Prometheus histogram buckets laid out the way an HdrHistogram lays out its own, only coarser:
 * every value up to STEPS µs is a bucket of its own (exact, as HdrHistogram is below its
 * sub-bucket count), and every power of two above is cut into STEPS equal linear steps, up to the
 * first bound past the HdrHistogram's highest trackable value (settings.histogram: 1 h).
 *
 * Why log-linear: histogram_quantile() finds the bucket a rank falls in and interpolates linearly
 * inside it; the HdrHistogram's own figure is in that same bucket (see hdr-prom.js), so the two
 * differ by less than the bucket's width: 1/STEPS of its lower bound from STEPS µs up, whatever
 * the quantile. The 1-2-5-per-decade buckets this replaced were up to 150% wide (a p999 of 250 ms
 * read as 425 ms). prom-client 15 has no native (sparse) histograms, which would adapt on their
 * own: every bound is a series per label set, so the layout is a choice (--metrics-buckets):
 *   coarse (the default): 8 steps, 238 bounds, no bucket wider than 12.5%;
 *   fine: 16 steps, 459 bounds, no bucket wider than 6.25% (twice the series).
 * Linear interpolation inside a bucket does far better than the width on real latencies (the
 * figures measured are in docs/live-metrics.md); the width is the bound that always holds.
 *
 * STEPS is a power of two, so the bounds are aligned with HdrHistogram's buckets (both are powers
 * of two cut in powers of two): moving a recorded HdrHistogram into these buckets splits none.
 */
import { settings } from '../settings.js';

/** The layouts --metrics-buckets offers: linear steps per power of two (a power of two each). */
export const LAYOUTS = Object.freeze({ coarse: 8, fine: 16 });

/** @typedef {keyof typeof LAYOUTS} LayoutName */

/**
 * @typedef {object} Layout
 * @property {LayoutName} name
 * @property {number} steps per power of two
 * @property {readonly number[]} us the upper bounds in microseconds (rqbench's HdrHistograms' unit)
 * @property {readonly number[]} s in seconds, for rqbench's own histograms (Prometheus's base unit)
 * @property {readonly number[]} ns in nanoseconds, for the seed's metrics kept in ns
 */

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

/** @type {Map<string, Readonly<Layout>>} worked out once per layout a process uses */
const made = new Map();

/**
 * A layout by its --metrics-buckets name.
 * @param {string} [name] coarse or fine; settings.metricsBuckets when left out
 * @returns {Readonly<Layout>}
 */
export function layoutOf(name = settings.metricsBuckets) {
  let l = made.get(name);
  if (l) return l;
  if (!Object.hasOwn(LAYOUTS, name)) throw new Error(`no bucket layout ${name} (${Object.keys(LAYOUTS).join(', ')})`);
  const steps = LAYOUTS[/** @type {LayoutName} */ (name)];
  const us = Object.freeze(logLinearBounds(settings.histogram.lowest, settings.histogram.highest, steps));
  l = Object.freeze({
    name: /** @type {LayoutName} */ (name),
    steps,
    us,
    s: Object.freeze(us.map((b) => b / 1e6)),
    ns: Object.freeze(us.map((b) => b * 1000)),
  });
  made.set(name, l);
  return l;
}

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
