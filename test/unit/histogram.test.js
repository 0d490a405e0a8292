import { inflateSync } from 'node:zlib';
import { describe, it, expect } from 'vitest';
import hdr from 'hdr-histogram-js';
import { newHistogram, record, encode, decode, mergeAll, stats, HIGHEST_US, FAST_RECORD } from '../../src/measure/histogram.js';

/** 3 significant digits: a value is within 0.1% of the true one (1 µs exact below 2048 µs). */
const within = (actual, expected) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(expected / 1000 + 1e-9);

/** Deterministic pseudo-random latencies (µs), log-spread from 1 µs to ~10 s. */
function latencies(n, seed = 42) {
  let s = seed;
  const out = [];
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out.push(Math.exp((s / 2147483648) * 16));
  }
  return out;
}

function histogramOf(values) {
  const h = newHistogram();
  for (const v of values) record(h, v);
  return h;
}

const percentiles = (h) => [0, 1, 10, 50, 75, 90, 99, 99.9, 99.99, 100].map((p) => h.getValueAtPercentile(p));

describe('newHistogram / record', () => {
  it('records 1..10000 µs with 3-digit precision', () => {
    const h = histogramOf(Array.from({ length: 10_000 }, (_, i) => i + 1));
    const s = stats(h);
    expect(s.count).toBe(10_000);
    expect(s.min).toBe(0.001);
    within(s.max, 10);
    within(s.p50, 5);
    within(s.p90, 9);
    within(s.p99, 9.9);
    within(s.p999, 9.99);
    within(s.mean, 5.0005);
  });

  it('is exact to the µs below 2048 µs and rounds fractional µs', () => {
    const h = newHistogram();
    record(h, 1234.4);
    record(h, 1234.6);
    expect(h.getCountAtValue(1234)).toBe(1);
    expect(h.getCountAtValue(1235)).toBe(1);
  });

  it('clamps huge values to 1 h instead of throwing', () => {
    const h = newHistogram();
    expect(() => record(h, 1e15)).not.toThrow();
    record(h, Infinity);
    record(h, HIGHEST_US + 1);
    expect(h.totalCount).toBe(3);
    within(stats(h).max, HIGHEST_US / 1000);
    expect(h.getValueAtPercentile(100)).toBeLessThanOrEqual(h.highestEquivalentValue(HIGHEST_US));
  });

  it('clamps 0 and negative values to 1 µs', () => {
    const h = newHistogram();
    record(h, 0);
    record(h, -5);
    record(h, 0.2);
    expect(h.totalCount).toBe(3);
    expect(h.getCountAtValue(1)).toBe(3);
    expect(stats(h).min).toBe(0.001);
  });

  it('records with a count', () => {
    const h = newHistogram();
    record(h, 500, 1_000_000_000); // beyond Int32 counts: 64-bit buckets must not wrap
    record(h, 500, 3_000_000_000);
    expect(h.totalCount).toBe(4_000_000_000);
    expect(h.getCountAtValue(500)).toBe(4_000_000_000);
  });

  it('rejects NaN and bad counts', () => {
    const h = newHistogram();
    expect(() => record(h, NaN)).toThrow(RangeError);
    expect(() => record(h, 5, 0)).toThrow(RangeError);
    expect(() => record(h, 5, 1.5)).toThrow(RangeError);
    expect(h.totalCount).toBe(0);
  });

  it('fast path records exactly what the library recordValue records', () => {
    expect(FAST_RECORD).toBe(true); // else the comparison below would be trivially true
    const values = [1, 2, 2047, 2048, 2049, 4095, 4096, 4097, 65_535, 65_536, 1e6 + 7, 2 ** 31, HIGHEST_US - 1, HIGHEST_US];
    for (let v = 1; v < HIGHEST_US; v = Math.max(v + 1, Math.floor(v * 1.0003))) values.push(v);
    const ours = newHistogram();
    const lib = newHistogram();
    for (const v of values) {
      record(ours, v);
      lib.recordValue(v);
    }
    expect(ours.totalCount).toBe(lib.totalCount);
    expect(ours.maxValue).toBe(lib.maxValue);
    expect(ours.minNonZeroValue).toBe(lib.minNonZeroValue);
    expect(encode(ours)).toBe(encode(lib));
  });

  it('stats of an empty histogram are all zeros', () => {
    expect(stats(newHistogram())).toEqual({ count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 });
  });
});

describe('encode / decode', () => {
  it('round trip preserves count, percentiles and stats exactly', () => {
    const h = histogramOf(latencies(50_000));
    record(h, 1e13); // clamped max
    const d = decode(encode(h));
    expect(d.totalCount).toBe(h.totalCount);
    expect(percentiles(d)).toEqual(percentiles(h));
    expect(stats(d)).toEqual(stats(h));
    expect(encode(d)).toBe(encode(h));
  });

  it('round trips an empty histogram', () => {
    const d = decode(encode(newHistogram()));
    expect(d.totalCount).toBe(0);
    expect(stats(d).count).toBe(0);
  });

  it('writes the standard V2 header (offset 0, conversion ratio 1.0) and the library still reads it', () => {
    const h = histogramOf([10, 20, 30]);
    const buf = Buffer.from(encode(h), 'base64');
    expect(buf.readUInt32BE(0)).toBe(0x1c849314); // compressed V2 cookie
    const inner = inflateSync(buf.subarray(8, 8 + buf.readInt32BE(4)));
    expect(inner.readUInt32BE(0)).toBe(0x1c849313); // V2 cookie
    expect(inner.readInt32BE(8)).toBe(0); // normalizingIndexOffset
    expect(inner.readInt32BE(12)).toBe(3); // significant digits
    expect(Number(inner.readBigInt64BE(16))).toBe(1); // lowest
    expect(Number(inner.readBigInt64BE(24))).toBe(HIGHEST_US); // highest
    expect(inner.readDoubleBE(32)).toBe(1.0); // integerToDoubleValueConversionRatio
    const viaLib = hdr.decodeFromCompressedBase64(encode(h), 64);
    expect(percentiles(viaLib)).toEqual(percentiles(h));
  });

  it('decodes into a histogram that can be added to others', () => {
    const a = decode(encode(histogramOf([100, 200])));
    const b = newHistogram();
    record(b, 300);
    b.add(a);
    expect(b.totalCount).toBe(3);
  });

  it('decodes a histogram of another shape into ours', () => {
    const foreign = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 1e6, numberOfSignificantValueDigits: 2 });
    foreign.recordValue(1000);
    foreign.recordValue(50_000);
    const d = decode(foreign.encodeIntoCompressedBase64());
    expect(d.totalCount).toBe(2);
    expect(d.highestTrackableValue).toBe(HIGHEST_US);
    expect(Math.abs(d.getValueAtPercentile(100) - 50_000)).toBeLessThanOrEqual(500); // 2 digits: 1%
    expect(() => mergeAll([d, newHistogram()])).not.toThrow();
  });
});

describe('mergeAll', () => {
  it('merging disjoint halves equals one histogram of all values, exactly', () => {
    const values = latencies(100_000, 7);
    const whole = histogramOf(values);
    const lower = histogramOf(values.filter((_, i) => i % 2 === 0));
    const upper = histogramOf(values.filter((_, i) => i % 2 === 1));
    const merged = mergeAll([lower, upper]);
    expect(merged.totalCount).toBe(whole.totalCount);
    expect(percentiles(merged)).toEqual(percentiles(whole));
    expect(stats(merged)).toEqual(stats(whole));
    expect(encode(merged)).toBe(encode(whole));
  });

  it('merges decoded histograms exactly too, and leaves inputs untouched', () => {
    const values = latencies(30_000, 9);
    const parts = [0, 1, 2].map((k) => histogramOf(values.filter((_, i) => i % 3 === k)));
    const before = parts.map((p) => p.totalCount);
    const merged = mergeAll(parts.map((p) => decode(encode(p))));
    expect(stats(merged)).toEqual(stats(histogramOf(values)));
    expect(parts.map((p) => p.totalCount)).toEqual(before);
  });

  it('of nothing is an empty histogram', () => {
    expect(mergeAll([]).totalCount).toBe(0);
  });
});
