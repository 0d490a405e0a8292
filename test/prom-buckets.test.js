// The live metrics' histogram buckets, held to what the issue asks: histogram_quantile (computed
// here as Prometheus computes it) within 10% of the HdrHistogram's own figure at p50, p99 and
// p999, for latency shapes a benchmark sees. Pure computation: no server, no Prometheus (the
// test with a real Prometheus is prometheus.test.js).
import { describe, expect, it } from 'vitest';
import client from 'prom-client';
import { BOUNDS_NS, BOUNDS_S, BOUNDS_US, STEPS_PER_OCTAVE, bucketIndex } from '../src/measure/prom-buckets.js';
import { HdrPromHistogram } from '../src/measure/hdr-prom.js';
import { newHistogram, record } from '../src/measure/histogram.js';
import { settings } from '../src/settings.js';

/**
 * Prometheus 2.42's bucketQuantile (promql/quantile.go): the bucket the rank falls in, then a
 * straight line inside it.
 * @param {number} q
 * @param {Array<[number, number]>} buckets [le, cumulative count], ascending, +Inf last
 */
export function histogramQuantile(q, buckets) {
  const total = buckets.at(-1)[1];
  const rank = q * total;
  let b = buckets.findIndex(([, c]) => c >= rank);
  if (b === buckets.length - 1) return buckets[b - 1][0];
  if (b === 0 && buckets[0][0] <= 0) return buckets[0][0];
  const start = b === 0 ? 0 : buckets[b - 1][0];
  const before = b === 0 ? 0 : buckets[b - 1][1];
  const count = buckets[b][1] - before;
  return start + (buckets[b][0] - start) * ((rank - before) / count);
}

/** The exposition's buckets of one series, as [le, cumulative]. */
async function bucketsOf(metric) {
  return (await metric.get()).values.filter((v) => v.metricName.endsWith('_bucket')).map((v) => [v.labels.le === '+Inf' ? Infinity : v.labels.le, v.value]);
}

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Latency shapes, µs: a tight network round trip, a lognormal with a long tail, a bimodal one (retries), a 250 ms E2E tail. */
const SHAPES = {
  'round trip ~300 µs': (r) => 250 + r() * 100,
  'lognormal, median 2 ms, long tail': (r) => 2000 * Math.exp(1.2 * Math.sqrt(-2 * Math.log(r() || 1e-9)) * Math.cos(2 * Math.PI * r())),
  'bimodal: 1 ms, 5% at 40 ms': (r) => (r() < 0.05 ? 40_000 + r() * 5000 : 900 + r() * 300),
  'E2E, 67 ms median, 250 ms p999': (r) => (r() < 0.002 ? 240_000 + r() * 20_000 : 50_000 + r() * 34_000),
};

describe('log-linear buckets over the HdrHistogram range', () => {
  it('cover 1 µs … 1 h, each at most 1/16 of its lower bound wide from 16 µs up', () => {
    expect(BOUNDS_US[0]).toBe(settings.histogram.lowest);
    expect(BOUNDS_US.at(-2)).toBeLessThan(settings.histogram.highest);
    expect(BOUNDS_US.at(-1)).toBeGreaterThanOrEqual(settings.histogram.highest);
    expect(BOUNDS_US).toHaveLength(459);
    for (let i = 1; i < BOUNDS_US.length; i++) {
      expect(BOUNDS_US[i]).toBeGreaterThan(BOUNDS_US[i - 1]);
      if (BOUNDS_US[i - 1] >= STEPS_PER_OCTAVE) expect((BOUNDS_US[i] - BOUNDS_US[i - 1]) / BOUNDS_US[i - 1]).toBeLessThanOrEqual(1 / STEPS_PER_OCTAVE);
    }
    expect(BOUNDS_S[16]).toBe(0.000017);
    expect(BOUNDS_NS[0]).toBe(1000);
    expect(bucketIndex(BOUNDS_US, 17)).toBe(16);
    expect(bucketIndex(BOUNDS_US, 17.5)).toBe(17);
    expect(bucketIndex(BOUNDS_US, 1e12)).toBe(BOUNDS_US.length);
  });

  for (const [shape, draw] of Object.entries(SHAPES)) {
    it(`${shape}: histogram_quantile within 10% of HdrHistogram at p50, p99, p999 (fed whole, and value by value)`, async () => {
      const r = rng(42);
      const hdr = newHistogram();
      const reg = new client.Registry();
      const fed = new HdrPromHistogram({ name: 'fed_seconds', help: 'x', registry: reg });
      const observed = new client.Histogram({ name: 'observed_us', help: 'x', buckets: [...BOUNDS_US], registers: [reg] });
      // 20 one-second intervals of 5,000 values, added as the live endpoint adds them
      for (let s = 0; s < 20; s++) {
        const second = newHistogram();
        for (let i = 0; i < 5000; i++) {
          const us = Math.max(1, draw(r));
          record(second, us);
          observed.observe(us);
        }
        hdr.add(second);
        fed.add({}, second);
      }
      const fedBuckets = await bucketsOf(fed);
      const observedBuckets = (await bucketsOf(observed)).map(([le, c]) => [le / 1e6, c]);
      for (const q of [0.5, 0.99, 0.999]) {
        const exact = hdr.getValueAtPercentile(q * 100) / 1e6;
        for (const [how, buckets] of [['fed', fedBuckets], ['observed', observedBuckets]]) {
          const got = histogramQuantile(q, buckets);
          if (process.env.SHOW_AGREEMENT) process.stderr.write(`${shape} ${how} p${q * 100}: ${(got * 1e3).toFixed(3)} ms vs ${(exact * 1e3).toFixed(3)} ms (${(((got - exact) / exact) * 100).toFixed(2)}%)\n`);
          expect(Math.abs(got - exact) / exact, `${how} p${q * 100}: ${got} s against HdrHistogram's ${exact} s`).toBeLessThan(0.1);
        }
      }
      expect(fed.get().values.find((v) => v.metricName === 'fed_seconds_count').value).toBe(100_000);
      expect(fed.get().values.find((v) => v.metricName === 'fed_seconds_sum').value).toBeCloseTo(hdr.mean * 100_000 / 1e6, 0);
    });
  }
});
