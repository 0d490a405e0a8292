// The kv workload's generators against their definitions (issue 39, point 2): a large seeded
// sample from each key chooser, value-size distribution and arrival process, and a
// goodness-of-fit test (chi-square for counts, Kolmogorov–Smirnov for gaps, from @stdlib) that
// must not reject at 0.1 % — and must reject a sample from the wrong law, so each test can fail.
import chi2gof from '@stdlib/stats-chi2gof';
import kstest from '@stdlib/stats-kstest';
import { describe, expect, it } from 'vitest';
import { streamOf } from '../../src/workloads/kv/random.js';
import { zipfProbabilities, zipfSampler } from '../../src/workloads/kv/zipf.js';
import { keyChooser, parseKeyDist, scatter } from '../../src/workloads/kv/key-choosers.js';
import { meanSize, parseSizes, sizeChooser } from '../../src/workloads/kv/sizes.js';
import { arrivals, inverseCumulative, parseRamp } from '../../src/workloads/kv/arrivals.js';

const DRAWS = 400_000;
const ALPHA = 0.001;

/** Counts of `draw()` over `bins` after `bin` maps a draw to one. */
function counts(bins, draw, bin = (x) => x) {
  const c = new Float64Array(bins);
  for (let i = 0; i < DRAWS; i++) c[bin(draw())]++;
  return Array.from(c);
}

/** The chi-square p of observed counts against probabilities. */
const chiP = (observed, probabilities) => chi2gof(observed, Array.from(probabilities)).pValue;

describe('key choosers', () => {
  const n = 1000;
  const random = () => streamOf(7, 'keys');

  it("zipf:0.99 (YCSB's constant): rank frequencies are the law's, and not those of zipf:0.9", () => {
    const c = counts(n, zipfSampler(n, 0.99, random()), (k) => k - 1);
    expect(chiP(c, zipfProbabilities(n, 0.99))).toBeGreaterThan(ALPHA);
    expect(chiP(c, zipfProbabilities(n, 0.9))).toBeLessThan(1e-9);
  });

  it('zipf at 0.5, 1 and 1.5 over 50 keys, and over one key', () => {
    for (const s of [0.5, 1, 1.5]) {
      const c = counts(50, zipfSampler(50, s, random()), (k) => k - 1);
      expect(chiP(c, zipfProbabilities(50, s)), `s ${s}`).toBeGreaterThan(ALPHA);
    }
    const one = zipfSampler(1, 0.99, random());
    expect(new Set(Array.from({ length: 100 }, one))).toEqual(new Set([1]));
  });

  it('zipf:0.99 as the key chooser: the hottest key is 0; scrambled, the same law over scattered keys', () => {
    const plain = keyChooser(/** @type {any} */ (parseKeyDist('zipf:0.99')), n, random());
    const c = counts(n, () => plain.next());
    expect(chiP(c, zipfProbabilities(n, 0.99))).toBeGreaterThan(ALPHA);
    const place = scatter(n);
    expect(new Set(Array.from({ length: n }, (_, i) => place(i))).size).toBe(n);
    const scrambled = keyChooser(/** @type {any} */ (parseKeyDist('zipf:0.99:scrambled')), n, random());
    const s = counts(n, () => scrambled.next());
    const expected = new Float64Array(n);
    zipfProbabilities(n, 0.99).forEach((p, i) => (expected[place(i)] = p));
    expect(chiP(s, expected)).toBeGreaterThan(ALPHA);
    // the ten hottest keys are not the first ten
    expect(Array.from({ length: 10 }, (_, i) => place(i)).filter((k) => k < 10).length).toBeLessThan(3);
  });

  it('uniform: every bucket of ten keys alike; a zipf sample is not', () => {
    const u = keyChooser({ kind: 'uniform' }, n, random());
    const flat = new Float64Array(100).fill(0.01);
    expect(
      chiP(
        counts(
          100,
          () => u.next(),
          (k) => Math.floor(k / 10),
        ),
        flat,
      ),
    ).toBeGreaterThan(ALPHA);
    const z = keyChooser({ kind: 'zipf', s: 0.99, scrambled: false }, n, random());
    expect(
      chiP(
        counts(
          100,
          () => z.next(),
          (k) => Math.floor(k / 10),
        ),
        flat,
      ),
    ).toBeLessThan(1e-9);
  });

  it('hotspot:0.2:0.8: 80 % of the operations on the first 20 % of the keys, uniform within each part', () => {
    const h = keyChooser(/** @type {any} */ (parseKeyDist('hotspot:0.2:0.8')), n, random());
    const expected = Array.from({ length: 100 }, (_, b) => (b < 20 ? 0.8 / 20 : 0.2 / 80));
    expect(
      chiP(
        counts(
          100,
          () => h.next(),
          (k) => Math.floor(k / 10),
        ),
        expected,
      ),
    ).toBeGreaterThan(ALPHA);
  });

  it('latest:0.99: the ages of the keys chosen (newest first) follow zipf, wrapping below key 0', () => {
    const l = keyChooser(/** @type {any} */ (parseKeyDist('latest:0.99')), n, random());
    const newest = 123;
    const c = counts(
      n,
      () => l.next(newest),
      (k) => (newest - k + n) % n,
    );
    expect(chiP(c, zipfProbabilities(n, 0.99))).toBeGreaterThan(ALPHA);
  });

  it('sequential: 0, 1, 2, … and round again', () => {
    const q = keyChooser({ kind: 'sequential' }, 3, random());
    expect(Array.from({ length: 7 }, () => q.next())).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });

  it.each([
    ['zipf', 'zipf:S or zipf:S:scrambled with S above 0'],
    ['zipf:0', 'zipf:S or zipf:S:scrambled with S above 0'],
    ['zipf:0.99:shuffled', 'zipf:S or zipf:S:scrambled with S above 0'],
    ['hotspot:0.2', 'hotspot:F:P with both fractions between 0 and 1'],
    ['hotspot:1:0.5', 'hotspot:F:P with both fractions between 0 and 1'],
    ['latest', 'latest:S with S above 0'],
    ['uniform:2', 'uniform takes no parameters'],
    ['gaussian', 'one of uniform, zipf:S[:scrambled] (S above 0, e.g. 0.99), hotspot:F:P (fractions in (0, 1)), latest:S, sequential'],
  ])('--key-dist %s is refused: %s', (text, why) => {
    expect(parseKeyDist(text)).toBe(why);
  });
});

describe('value sizes', () => {
  const random = () => streamOf(11, 'sizes');

  it('128-1024: every size from 128 to 1024 alike; the mean is their middle', () => {
    const d = /** @type {any} */ (parseSizes('128-1024'));
    const c = counts(897, sizeChooser(d, random()), (x) => x - 128);
    expect(chiP(c, new Float64Array(897).fill(1 / 897))).toBeGreaterThan(ALPHA);
    expect(meanSize(d)).toBe(576);
  });

  it('128:8,1024:2: 128 bytes 8 times in 10; not 5 in 10', () => {
    const d = /** @type {any} */ (parseSizes('128:8,1024:2'));
    const c = counts(2, sizeChooser(d, random()), (x) => (x === 128 ? 0 : 1));
    expect(chiP(c, [0.8, 0.2])).toBeGreaterThan(ALPHA);
    expect(chiP(c, [0.5, 0.5])).toBeLessThan(1e-9);
    expect(meanSize(d)).toBeCloseTo(0.8 * 128 + 0.2 * 1024, 9);
  });

  it('512: always 512', () => {
    const f = sizeChooser(/** @type {any} */ (parseSizes('512')), random());
    expect(new Set(Array.from({ length: 1000 }, f))).toEqual(new Set([512]));
  });

  it.each(['0', '2-1', '128:0', '128;2', 'big', '16777217'])('--value-size %s is refused', (text) => {
    expect(typeof parseSizes(text)).toBe('string');
  });
});

describe('arrivals', () => {
  const random = () => streamOf(13, 'gaps');
  /** n gaps of `next()` in seconds. */
  const gaps = (next, count) => {
    let last = 0;
    return Array.from({ length: count }, () => {
      const t = next();
      const g = t - last;
      last = t;
      return g;
    });
  };

  it('poisson at 5,000 a second: gaps exponential with mean 200 µs (Kolmogorov–Smirnov), not those of 4,000 a second', () => {
    const g = gaps(arrivals('poisson', [{ t: 0, rate: 5000 }], random()), 20_000);
    expect(kstest(g, 'exponential', 5000).pValue).toBeGreaterThan(ALPHA);
    expect(kstest(g, 'exponential', 4000).pValue).toBeLessThan(1e-9);
  });

  it('constant at 5,000 a second: every gap 200 µs, the first at 0', () => {
    const next = arrivals('constant', [{ t: 0, rate: 5000 }], random());
    expect(next()).toBe(0);
    for (const g of gaps(next, 1000)) expect(g).toBeCloseTo(0.0002, 12);
  });

  it('a ramp from 1,000 to 5,000 a second over 10 s, then held: the integral of the rate at each arrival; poisson gaps, rescaled, exponential', () => {
    const ramp = /** @type {import('../../src/workloads/kv/arrivals.js').RatePoint[]} */ (parseRamp('0:1000,10:5000'));
    const lambda = (t) => (t <= 10 ? 1000 * t + 200 * t * t : 30_000 + 5000 * (t - 10));
    const constant = arrivals('constant', ramp, random());
    for (let k = 0; k < 40_000; k++) expect(lambda(constant())).toBeCloseTo(k, 6);
    const inv = inverseCumulative(ramp);
    expect(inv(30_000)).toBeCloseTo(10, 9);
    const poisson = arrivals('poisson', ramp, random());
    const rescaled = gaps(() => lambda(poisson()), 20_000);
    expect(kstest(rescaled, 'exponential', 1).pValue).toBeGreaterThan(ALPHA);
  });

  it('a ramp down to 0 stops: no arrival after the rate reached 0', () => {
    const next = arrivals('constant', /** @type {any} */ (parseRamp('0:100,2:0')), random());
    const times = Array.from({ length: 101 }, next);
    expect(times[99]).toBeLessThan(2);
    expect(times[100]).toBe(Infinity);
  });

  it.each(['', '5:100', '0:100,0:200', '0:0', '0:-5', '0:100;1:200'])('--ramp "%s" is refused', (text) => {
    expect(typeof parseRamp(text)).toBe('string');
  });
});

describe('seeds', () => {
  it('the same seed gives the same keys; another seed, others; one stream does not move another', () => {
    const draw = (seed) => {
      const c = keyChooser({ kind: 'zipf', s: 0.99, scrambled: true }, 1000, streamOf(seed, 'keys'));
      return Array.from({ length: 20 }, () => c.next());
    };
    expect(draw(1)).toEqual(draw(1));
    expect(draw(1)).not.toEqual(draw(2));
    expect(streamOf(1, 'keys')()).not.toBe(streamOf(1, 'sizes')());
  });
});
