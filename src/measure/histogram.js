/**
 * Thin helpers over hdr-histogram-js. Every histogram in rqbench has the same shape
 * (settings.histogram: 1 µs … 1 h, 3 significant digits, values in MICROSECONDS), so any two
 * can be added bucket by bucket: merging is exact, percentiles are never averaged.
 */
import { inflateSync, deflateSync } from 'node:zlib';
import hdr from 'hdr-histogram-js';
import { settings } from '../settings.js';

/** @typedef {import('hdr-histogram-js').Histogram} Histogram */

/**
 * @typedef {object} HistogramStats All values in MILLISECONDS (µs resolution); all zeros when empty.
 * @property {number} count
 * @property {number} min
 * @property {number} mean
 * @property {number} p50
 * @property {number} p90
 * @property {number} p99
 * @property {number} p999
 * @property {number} max
 */

const { lowest: LOWEST_US, highest: HIGHEST_US, digits: DIGITS } = settings.histogram;
export { LOWEST_US, HIGHEST_US };

// 64-bit buckets (Float64Array): counts stay exact up to 2^53, where Int32 buckets wrap at 2^31.
// Pure JS: the WebAssembly build needs explicit destroy() and cannot be added to JS histograms.
const BUILD_REQUEST = Object.freeze({
  bitBucketSize: 64,
  autoResize: false,
  lowestDiscernibleValue: LOWEST_US,
  highestTrackableValue: HIGHEST_US,
  numberOfSignificantValueDigits: DIGITS,
  useWebAssembly: false,
});

/** @returns {Histogram} an empty histogram, 1 µs … 1 h, 3 significant digits. */
export function newHistogram() {
  return hdr.build(BUILD_REQUEST);
}

// Fast path: the library's recordValue costs ~70-190 ns (floor(log2), pow, several calls);
// computing the bucket index with clz32 (values ≤ 1 h < 2^32 µs) costs ~20 ns. It writes the
// same fields recordValue writes and is checked against the library's own countsArrayIndex once
// at load (below); if hdr-histogram-js internals ever differ, record() falls back to the library.
const SHIFT = 10; // subBucketHalfCountMagnitude for 3 digits: 2048 sub-buckets, half = 2^10
const HALF = 1 << SHIFT;
const COUNTS_LEN = /** @type {any} */ (newHistogram()).countsArrayLength;
const FAST = fastPathMatchesLibrary();
/** True when record() uses the clz32 fast path (false: hdr-histogram-js internals changed). */
export const FAST_RECORD = FAST;

/** @param {number} v integer in [LOWEST_US, HIGHEST_US] */
function fastIndex(v) {
  const b = 31 - Math.clz32(v) - SHIFT;
  const bucket = b > 0 ? b : 0;
  return ((bucket + 1) << SHIFT) + (v >>> bucket) - HALF;
}

function fastPathMatchesLibrary() {
  const h = /** @type {any} */ (newHistogram());
  if (!(h._counts instanceof Float64Array) || typeof h._totalCount !== 'number') return false;
  if (h.unitMagnitude !== 0 || h.subBucketHalfCountMagnitude !== SHIFT) return false;
  for (let v = /** @type {number} */ (LOWEST_US); v < HIGHEST_US; v = Math.max(v + 1, Math.floor(v * 1.01))) {
    if (fastIndex(v) !== h.countsArrayIndex(v)) return false;
  }
  return fastIndex(HIGHEST_US) === h.countsArrayIndex(HIGHEST_US);
}

/**
 * Records a latency. Values are rounded to whole µs and clamped to [1 µs, 1 h] instead of
 * throwing: a 1 h latency is already a failed run, and a throw on the hot path would lose the
 * sample (and likely the run). Values ≤ 1 µs (0, or negative from clock skew) count as 1 µs.
 * @param {Histogram} h a histogram from newHistogram(), decode() or mergeAll()
 * @param {number} valueUs latency in microseconds
 * @param {number} [count=1] number of occurrences, a positive integer
 */
export function record(h, valueUs, count = 1) {
  let v;
  if (valueUs > LOWEST_US) v = valueUs < HIGHEST_US ? Math.round(valueUs) : HIGHEST_US;
  else if (valueUs <= LOWEST_US) v = LOWEST_US;
  // NaN would be counted in totalCount but in no bucket: refuse it loudly.
  else throw new RangeError(`histogram record: not a number: ${valueUs}`);
  if (count !== 1 && (!(count > 0) || !Number.isInteger(count))) {
    throw new RangeError(`histogram record: count must be a positive integer, got ${count}`);
  }
  const x = /** @type {any} */ (h);
  // Guard: only our shape with 64-bit counts (an Int32 histogram would wrap silently).
  const ours = x.arrayCtr === Float64Array && x.countsArrayLength === COUNTS_LEN && x.unitMagnitude === 0;
  if (FAST && ours && x.subBucketHalfCountMagnitude === SHIFT) {
    x._counts[fastIndex(v)] += count;
    x._totalCount += count;
    if (v > x.maxValue) x.maxValue = v;
    if (v < x.minNonZeroValue) x.minNonZeroValue = v;
  } else if (count === 1) {
    h.recordValue(v);
  } else {
    h.recordValueWithCount(v, count);
  }
}

// V2 encoding header: cookie i32, payload length i32, normalizingIndexOffset i32, digits i32,
// lowest i64, highest i64, integerToDoubleValueConversionRatio f64.
const V2_COOKIE = 0x1c849313;
const OFFSET_NORMALIZING_INDEX = 8;
const OFFSET_CONVERSION_RATIO = 32;

/**
 * Compressed V2 encoding as base64, the payload of an .hlog interval line.
 * hdr-histogram-js 3.0.1 writes normalizingIndexOffset = 1 and the conversion ratio as the
 * integer 1 (a denormal double) where HdrHistogram Java writes 0 and 1.0; Java tolerates it but
 * the Rust crate rejects it ("UnsupportedFeature"). The header is patched to the standard values.
 * @param {Histogram} h
 * @returns {string}
 */
export function encode(h) {
  // every histogram here is a JsHistogram (useWebAssembly: false), which has the method; the
  // library's typings add it to JsHistogram in a file its index does not load
  const outer = Buffer.from(/** @type {Histogram & { encodeIntoCompressedBase64(): string }} */ (h).encodeIntoCompressedBase64(), 'base64');
  const compressedLength = outer.readInt32BE(4);
  const inner = inflateSync(outer.subarray(8, 8 + compressedLength));
  if (inner.readInt32BE(0) !== V2_COOKIE) throw new Error('histogram encode: unexpected encoding from hdr-histogram-js');
  inner.writeInt32BE(0, OFFSET_NORMALIZING_INDEX);
  inner.writeDoubleBE(1.0, OFFSET_CONVERSION_RATIO);
  const deflated = deflateSync(inner);
  const out = Buffer.alloc(8 + deflated.length);
  outer.copy(out, 0, 0, 4); // compressed V2 cookie
  out.writeInt32BE(deflated.length, 4);
  deflated.copy(out, 8);
  return out.toString('base64');
}

/**
 * Decodes a compressed V2 base64 histogram (ours, or any HdrHistogram tool's). The result always
 * has rqbench's shape, so it can be added to any other rqbench histogram.
 * @param {string} str
 * @returns {Histogram}
 */
export function decode(str) {
  const d = hdr.decodeFromCompressedBase64(str, 64, false, HIGHEST_US);
  if (hasStandardShape(d)) return d;
  // Foreign shape (other range or precision): re-record each bucket into our shape, clamped.
  const out = newHistogram();
  const src = /** @type {any} */ (d);
  for (let i = 0; i < src.countsArrayLength; i++) {
    const c = src.getCountAtIndex(i);
    if (c > 0) record(out, src.valueFromIndex(i), c);
  }
  return out;
}

/** @param {Histogram} h */
function hasStandardShape(h) {
  const x = /** @type {any} */ (h);
  return x.lowestDiscernibleValue === LOWEST_US && x.highestTrackableValue === HIGHEST_US && x.numberOfSignificantValueDigits === DIGITS;
}

/**
 * Exact sum of histograms (bucket counts added). Inputs are not modified.
 * @param {Iterable<Histogram>} histograms
 * @returns {Histogram}
 */
export function mergeAll(histograms) {
  const out = newHistogram();
  for (const h of histograms) out.add(h);
  return out;
}

const round3 = (ms) => Math.round(ms * 1000) / 1000;
const usToMs = (us) => round3(us / 1000);

/**
 * Summary in MILLISECONDS. min/max are reported as the bucket's lowest/highest equivalent value
 * (as HdrHistogram Java does), so a histogram and its encode→decode copy give the same numbers.
 * @param {Histogram} h
 * @returns {HistogramStats}
 */
export function stats(h) {
  const count = h.totalCount;
  if (count === 0) return { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  const x = /** @type {any} */ (h);
  return {
    count,
    min: usToMs(x.lowestEquivalentValue(h.minNonZeroValue)),
    mean: usToMs(h.mean),
    p50: usToMs(h.getValueAtPercentile(50)),
    p90: usToMs(h.getValueAtPercentile(90)),
    p99: usToMs(h.getValueAtPercentile(99)),
    p999: usToMs(h.getValueAtPercentile(99.9)),
    max: usToMs(x.highestEquivalentValue(h.maxValue)),
  };
}
