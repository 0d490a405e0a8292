/**
 * HdrHistogram's "Detailed Percentile spectrum" laid out exactly as wrk2 prints it: wrk2 calls
 * the C library's hdr_percentiles_print(h, stdout, 5, 1000.0, CLASSIC) on a µs histogram, so
 * values are in ms with 3 decimals. hdr-histogram-js has outputPercentileDistribution, but it
 * is Java's layout (other column widths, 12-decimal percentiles, no `inf` on the 100% line),
 * so the C iteration and printf formats are reproduced here instead.
 */

const HEADER = ['Value', 'Percentile', 'TotalCount', '1/(1-Percentile)'];

/**
 * @param {import('hdr-histogram-js').Histogram} h values in µs, not empty
 * @param {{ ticksPerHalfDistance?: number, valueScale?: number }} [opts] wrk2: 5 and 1000 (µs → ms)
 * @returns {string} from "  Detailed Percentile spectrum:" to the #[Buckets …] line, newline-terminated
 */
export function percentileSpectrum(h, { ticksPerHalfDistance = 5, valueScale = 1000 } = {}) {
  const x = /** @type {any} */ (h);
  const digits = x.numberOfSignificantValueDigits;
  const lines = ['  Detailed Percentile spectrum:', HEADER.map((s) => s.padStart(12)).join(' '), ''];
  for (const t of percentileTicks(h, ticksPerHalfDistance)) {
    const p = t.percentile / 100;
    lines.push([cf(t.value / valueScale, digits), cf(p, 6), String(t.count).padStart(12), cf(1 / (1 - p), 2)].join(' '));
  }
  const { mean, stdDev, max } = moments(h);
  lines.push(
    `#[Mean    = ${cf(mean / valueScale, 3)}, StdDeviation   = ${cf(stdDev / valueScale, 3)}]`,
    `#[Max     = ${cf(max / valueScale, 3)}, Total count    = ${String(h.totalCount).padStart(12)}]`,
    `#[Buckets = ${String(x.bucketCount).padStart(12)}, SubBuckets     = ${String(x.subBucketCount).padStart(12)}]`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The percentile iterator of wrk2's HdrHistogram_c: steps of 100 / (ticks x 2^k) %, halving
 * each time half the distance to 100% is covered, reporting the highest value equivalent to
 * the bucket where the cumulative count first reaches the step (a bucket can be reported more
 * than once), then one last line at 100%.
 * @param {import('hdr-histogram-js').Histogram} h
 * @param {number} ticksPerHalfDistance
 * @returns {Generator<{ value: number, percentile: number, count: number }>} percentile in %
 */
export function* percentileTicks(h, ticksPerHalfDistance) {
  const x = /** @type {any} */ (h);
  const total = h.totalCount;
  if (total === 0) return;
  let index = -1;
  let countAt = 0;
  let countTo = 0;
  let to = 0;
  const advance = () => {
    if (countTo >= total) return false;
    index++;
    countAt = x.getCountAtIndex(index);
    countTo += countAt;
    return true;
  };
  const at = (percentile) => ({ value: x.highestEquivalentValue(x.valueFromIndex(index)), percentile, count: countTo });
  // one pass of this loop is one call of C's hdr_percentile_iter_next
  while (countTo < total) {
    if (index === -1) advance();
    let reported = false;
    do {
      if (countAt !== 0 && to <= (100 * countTo) / total) {
        yield at(to);
        // C: (int64_t) pow(2, (int64_t) (log(100 / (100.0 - p)) / log(2)) + 1)
        const halfDistance = 2 ** (Math.trunc(Math.log(100 / (100 - to)) / Math.log(2)) + 1);
        to += 100 / (ticksPerHalfDistance * halfDistance);
        reported = true;
        break;
      }
    } while (advance());
    if (!reported) break; // unreachable: the last bucket is at 100%
  }
  yield at(100);
}

/**
 * Mean and standard deviation over each bucket's median equivalent value, and the max as the
 * lowest value equivalent to the highest recorded one: what wrk2's hdr_mean, hdr_stddev and
 * hdr_max return (its max is a bucket's lower edge, below the 100% line's value).
 * @param {import('hdr-histogram-js').Histogram} h
 */
function moments(h) {
  const x = /** @type {any} */ (h);
  let sum = 0;
  let last = 0;
  const buckets = [];
  for (let i = 0; i < x.countsArrayLength; i++) {
    const c = x.getCountAtIndex(i);
    if (!c) continue;
    const v = x.valueFromIndex(i);
    const median = x.medianEquivalentValue(v);
    buckets.push([median, c]);
    sum += c * median;
    last = v;
  }
  const mean = sum / h.totalCount;
  let dev = 0;
  for (const [median, c] of buckets) dev += (median - mean) ** 2 * c;
  return { mean, stdDev: Math.sqrt(dev / h.totalCount), max: x.lowestEquivalentValue(last) };
}

/** printf("%12.<d>f") */
function cf(v, d) {
  return printfFixed(v, d).padStart(12);
}

/**
 * printf("%.<d>f"): toFixed, except that an exact tie rounds to even as glibc's printf does
 * (toFixed rounds it up), and infinity prints as `inf`.
 * @param {number} v
 * @param {number} d decimals
 * @returns {string}
 */
export function printfFixed(v, d) {
  if (v === Infinity) return 'inf';
  if (v === -Infinity) return '-inf';
  if (Number.isNaN(v)) return 'nan';
  const rounded = v.toFixed(d);
  if (!(v >= 0 && v < 1e21)) return rounded;
  // toFixed(100) is the double's exact decimal expansion for the magnitudes printed here
  const exact = v.toFixed(100);
  const cut = exact.indexOf('.') + 1 + d;
  if (!/^50*$/.test(exact.slice(cut))) return rounded;
  const truncated = exact.slice(0, d ? cut : cut - 1);
  return Number(truncated.at(-1)) % 2 === 0 ? truncated : rounded;
}
