/**
 * A Prometheus histogram fed whole HdrHistograms at a time: each second the workers' merged
 * histograms are added bucket by bucket, never observed value by value (a writer's second can
 * hold 100k latencies). It is a prom-client metric of its own (name, help, type, get()), so a
 * registry lists and formats it like any other, with the registry's default labels.
 *
 * Every HdrHistogram bucket goes whole into the Prometheus bucket of its highest equivalent
 * value (what HdrHistogram reports a percentile as); the bounds are aligned with HdrHistogram's
 * buckets (prom-buckets.js), so nothing is split. _sum adds each bucket's median equivalent value.
 *
 * So a quantile read back lands in the HdrHistogram's own bucket: HdrHistogram's percentile q is
 * the highest equivalent value of the bucket where the count reaches ceil(q·n), and
 * histogram_quantile's rank q·n first reaches its cumulative count in the Prometheus bucket that
 * holds that HdrHistogram bucket. Both figures are in one Prometheus bucket: they differ by less
 * than its width (the layout's bound, prom-buckets.js), at any quantile and any count.
 */
import { newHistogram } from './histogram.js';
import { bucketIndex, layoutOf } from './prom-buckets.js';

const SHAPE = /** @type {any} */ (newHistogram());
const COUNTS_LEN = SHAPE.countsArrayLength;
/** Each HdrHistogram bucket's value for _sum, worked out once. */
const VALUE_OF = new Float64Array(COUNTS_LEN);
for (let i = 0; i < COUNTS_LEN; i++) VALUE_OF[i] = SHAPE.medianEquivalentValue(SHAPE.valueFromIndex(i));

/** @type {Map<string, Int32Array>} by layout: each HdrHistogram bucket's Prometheus bucket, worked out once */
const promOf = new Map();

/**
 * @param {import('./prom-buckets.js').Layout} layout
 * @returns {Int32Array}
 */
function promIndexes(layout) {
  let p = promOf.get(layout.name);
  if (p) return p;
  p = new Int32Array(COUNTS_LEN);
  for (let i = 0; i < COUNTS_LEN; i++) p[i] = bucketIndex(layout.us, SHAPE.highestEquivalentValue(SHAPE.valueFromIndex(i)));
  promOf.set(layout.name, p);
  return p;
}

/** @typedef {{ labels: Record<string, string>, counts: Float64Array, sum: number, count: number }} Series */

export class HdrPromHistogram {
  /**
   * @param {object} p
   * @param {string} p.name
   * @param {string} p.help
   * @param {string[]} [p.labelNames]
   * @param {number} [p.scale] what one µs is in the metric's unit (1e-6: seconds)
   * @param {string} [p.buckets] the bucket layout (--metrics-buckets: coarse, fine); settings' when left out
   * @param {import('prom-client').Registry} p.registry
   */
  constructor({ name, help, labelNames = [], scale = 1e-6, buckets, registry }) {
    this.name = name;
    this.help = help;
    this.type = 'histogram';
    this.aggregator = 'sum';
    this.labelNames = labelNames;
    const layout = layoutOf(buckets);
    this.layout = layout.name;
    this.les = layout.us.map((b) => b * scale);
    this.promOf = promIndexes(layout);
    this.scale = scale;
    /** @type {Map<string, Series>} */
    this.series = new Map();
    registry.registerMetric(/** @type {any} */ (this));
  }

  /**
   * A series at zero (a histogram that is there from the start, before its first value).
   * @param {Record<string, string>} labels
   */
  zero(labels) {
    this.#of(labels);
  }

  /**
   * @param {Record<string, string>} labels
   * @param {import('hdr-histogram-js').Histogram} h an rqbench histogram (newHistogram's shape), µs
   */
  add(labels, h) {
    if (!h.totalCount) return;
    const s = this.#of(labels);
    const x = /** @type {any} */ (h);
    const counts = x._counts instanceof Float64Array && x.countsArrayLength === COUNTS_LEN ? x._counts : null;
    if (!counts) throw new Error(`${this.name}: a histogram of another shape than newHistogram()'s`);
    const promOf = this.promOf;
    for (let i = 0; i < COUNTS_LEN; i++) {
      const c = counts[i];
      if (c === 0) continue;
      s.counts[promOf[i]] += c;
      s.sum += c * VALUE_OF[i];
      s.count += c;
    }
  }

  /** @param {Record<string, string>} labels */
  #of(labels) {
    const key = this.labelNames.map((n) => labels[n]).join('\u0001');
    let s = this.series.get(key);
    if (!s) {
      s = { labels: { ...labels }, counts: new Float64Array(this.les.length + 1), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    return s;
  }

  /** What prom-client's registry formats: cumulative buckets, +Inf, _sum, _count. */
  get() {
    const values = [];
    for (const s of this.series.values()) {
      let acc = 0;
      for (let j = 0; j < this.les.length; j++) {
        acc += s.counts[j];
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: this.les[j] }, value: acc });
      }
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum * this.scale });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset() {
    this.series.clear();
  }
}
