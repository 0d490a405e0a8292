// src/stats against scipy.stats: every number checked against a value an established
// implementation computed from the same trials (test/fixtures/stats/make-fixtures.py, its header
// says the command), with and without ties, 1 to 12 trials a side.
import fs from 'node:fs';
import { describe as group, expect, it } from 'vitest';
import {
  changeInterval,
  compareGroups,
  describe,
  holm,
  noiseWords,
  kendall,
  mannWhitney,
  signTest,
  smallestP,
  trialWarnings,
} from '../../src/stats/stats.js';

const FIX = JSON.parse(fs.readFileSync(new URL('../fixtures/stats/scipy.json', import.meta.url), 'utf8'));
const close = (got, want, what) =>
  expect(Math.abs(got - want), `${what}: ${got} vs scipy ${want}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want)));
const name = (c) => `${c.kind} ${c.a.length} vs ${c.b.length}`;

group('against scipy.stats', () => {
  it('has cases with and without ties, and sizes from 1 to 12', () => {
    expect(FIX.cases.length).toBeGreaterThanOrEqual(30);
    expect(FIX.cases.some((c) => new Set([...c.a, ...c.b]).size < c.a.length + c.b.length)).toBe(true);
  });

  it.each(FIX.cases.map((c) => [name(c), c]))("%s: the median interval is quantile_test's", (_n, c) => {
    const d = describe(c.a);
    if (c.medianCiA === null) {
      expect(d.ci).toBeNull();
      expect(d.why).toMatch(/needs at least 6 trials/);
    } else {
      close(d.ci.lo, c.medianCiA[0], 'lo');
      close(d.ci.hi, c.medianCiA[1], 'hi');
      expect(d.ci.level).toBeGreaterThanOrEqual(0.95);
    }
  });

  it.each(FIX.cases.filter((c) => c.mannWhitney).map((c) => [name(c), c]))(
    "%s: Mann–Whitney U and its exact p are mannwhitneyu's",
    (_n, c) => {
      const r = mannWhitney(c.a, c.b);
      close(r.u, c.mannWhitney.u, 'U');
      close(r.p, c.mannWhitney.p, 'p');
    },
  );

  it.each(FIX.cases.map((c) => [name(c), c]))(
    "%s: the Hodges–Lehmann change and its interval are Moses's, from scipy's exact U distribution",
    (_n, c) => {
      const r = changeInterval(c.a, c.b);
      expect(r.kind).toBe(c.change.kind);
      close(r.estimate, c.change.estimate, 'estimate');
      if (c.change.lo === null) {
        expect(r.lo).toBeNull();
        expect(r.why).toMatch(/too few/);
      } else {
        close(r.lo, c.change.lo, 'lo');
        close(r.hi, c.change.hi, 'hi');
      }
    },
  );

  it.each(FIX.cases.map((c) => [name(c), c]))("%s: the sign test is binomtest's", (_n, c) => {
    close(signTest(c.a, c.signTestAvsMedianB.c).p, c.signTestAvsMedianB.p, 'p');
  });

  it.each(FIX.cases.filter((c) => c.kendallA).map((c) => [name(c), c]))("%s: Kendall's τ-b and its p are kendalltau's", (_n, c) => {
    const r = kendall(
      c.a.map((_, i) => i + 1),
      c.a,
    );
    close(r.tau, c.kendallA.tau, 'tau');
    close(r.p, c.kendallA.p, 'p');
  });

  it.each(FIX.holm.map((h) => [h.p.join(', '), h]))('Holm of %s', (_n, h) => {
    holm(h.p).adjusted.forEach((p, i) => close(p, h.adjusted[i], `p${i}`));
  });
});

group('what the numbers mean for a benchmark', () => {
  it('3 trials a side can never be significant (smallest p 0.10); 4 can (0.029); 6 reach 0.0022', () => {
    expect(smallestP(3, 3)).toBeCloseTo(0.1, 10);
    expect(smallestP(4, 4)).toBeCloseTo(2 / 70, 10);
    expect(smallestP(6, 6)).toBeCloseTo(2 / 924, 10);
    expect(compareGroups([1, 2, 3], [10, 11, 12]).note).toBe('3 vs 3 trials: the smallest possible p is 0.1');
  });

  it('one trial a side: a delta, no interval, never significant', () => {
    const r = compareGroups([10], [12]);
    expect(r).toMatchObject({ p: null, significant: false, direction: '~', note: 'n=1: no interval' });
    expect(r.change.pct).toBeCloseTo(20, 9);
  });

  it('a clear difference is significant, up, and beyond the noise threshold; identical groups are "~"', () => {
    const r = compareGroups([10, 10.2, 9.9, 10.1, 10.05, 9.95], [12, 12.1, 11.9, 12.2, 12.05, 11.95]);
    expect(r).toMatchObject({ significant: true, direction: 'up', beyondNoise: true });
    expect(r.change.pctLo).toBeGreaterThan(15);
    expect(compareGroups([5, 6, 7, 8, 9, 10], [5, 6, 7, 8, 9, 10])).toMatchObject({ p: 1, significant: false, direction: '~' });
  });

  it('warnings name the far trial by position, a trend across rounds, and a CV above 5 %; quiet trials give none', () => {
    expect(trialWarnings([10, 10.1, 9.9, 31.2, 10.05, 9.95])).toEqual([
      'trial 4 (31.2) is far from the others (robust z 190)',
      'CV 64% (above 5%)',
    ]);
    expect(trialWarnings([10, 10.2, 10.4, 10.6, 10.8, 11, 11.2, 11.4])).toEqual(['rises across rounds (Kendall τ 1, p 0.000532)']);
    expect(trialWarnings([12, 11.5, 11, 10.5, 10, 9.5])).toEqual(['falls across rounds (Kendall τ -1, p 0.00483)', 'CV 8.7% (above 5%)']);
    // five trials are too few to call a trend, however steady
    expect(trialWarnings([10, 10.1, 10.2, 10.3, 10.4])).toEqual([]);
    expect(trialWarnings([10, 10.01, 9.99, 10.02, 9.98, 10], [1, 1, 2, 2, 3, 3])).toEqual([]);
  });

  it('the exact U distribution: no ties by counting, ties by every split; an empty side or identical groups give p = 1', () => {
    // 3 vs 3, A all above B: U = 9, P(U ≥ 9) = 1/20
    expect(mannWhitney([4, 5, 6], [1, 2, 3])).toEqual({ u: 9, p: 0.1, n1: 3, n2: 3 });
    expect(mannWhitney([], [1, 2]).p).toBe(1);
    expect(mannWhitney([2, 2, 2], [2, 2, 2])).toMatchObject({ u: 4.5, p: 1 });
  });
});

group('noiseWords: what the noise rule found, in words', () => {
  it('within ±t only when the whole interval lies inside it', () => {
    expect(noiseWords(-0.1, 0, 2, '2%')).toBe('within ±2%');
  });

  it("an interval that only reaches inside (an A/A's +4.8 % [0.0 %, +19.0 %]) is not called within", () => {
    expect(noiseWords(0, 19, 2, '2%')).toBe('its interval reaches inside ±2%');
    expect(noiseWords(-35.8, 0, 2, '2%')).toBe('its interval reaches inside ±2%');
  });
});
