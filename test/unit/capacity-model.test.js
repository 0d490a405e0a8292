// bench:capacity's procedures against a model host whose limit is known (issue 36, point 6): the
// capacity search's own code, each try drawn from a stated per-try noise. What a real node cannot
// tell (it has no known limit): the bracket is calibrated, and the bench's reference answers the
// limit, not the 5% grid's rate below it.
import { describe, expect, it } from 'vitest';
import { pooledSpread, simulateBench } from '../../bench/lib/capacity-model.js';

const LIMIT = 240_000;

describe('the capacity bench on a model host', () => {
  it('with no noise, every bracket holds the limit and the refined ramps answer it inside every bracket', async () => {
    const f = await simulateBench({ sigma: 0, limit: LIMIT, benches: 3 });
    expect(f.covers).toBe(1);
    expect(f.openShare).toBe(0);
    const refined = await simulateBench({ sigma: 0, limit: LIMIT, benches: 3, rampPrecision: 0.01 });
    expect(refined.targetMet).toBe(1);
    expect(refined.rampMedianRange[0]).toBeGreaterThan(0.99);
  });

  it('a ramp left at its 5% grid answers the rate below the limit and misses a narrower bracket every time', async () => {
    const f = await simulateBench({ sigma: 0, limit: LIMIT, benches: 3, rampPrecision: 0.05 });
    expect(f.targetMet).toBe(0);
    expect(f.rampMedianRange[1]).toBeLessThan(0.99);
  });

  it('with each try 6 % apart, a bracket still holds the limit in at least 9 searches of 10', async () => {
    const f = await simulateBench({ sigma: 0.06, limit: LIMIT, benches: 100, seed: 7 });
    expect(f.covers).toBeGreaterThanOrEqual(0.9);
    expect(f.widthMedian).toBeGreaterThan(0.05);
  });

  it('the same seed gives the same figures', async () => {
    const o = { sigma: 0.08, limit: LIMIT, benches: 20, seed: 3 };
    expect(await simulateBench(o)).toEqual(await simulateBench(o));
  });
});

describe('the per-try spread bench:capacity measures', () => {
  it('pools each rate against its own mean, leaving out saturated tries and rates tried once', () => {
    const tries = [
      { rate: 100, usPerItem: 1.9, saturated: false },
      { rate: 100, usPerItem: 2.1, saturated: false },
      { rate: 200, usPerItem: 1.8, saturated: false },
      { rate: 200, usPerItem: 2.2, saturated: false },
      { rate: 200, usPerItem: 9, saturated: true },
      { rate: 300, usPerItem: 5, saturated: false },
    ];
    // squares 0.01 + 0.01 + 0.04 + 0.04 over 2 degrees of freedom: sd √0.05, over the mean 2.0
    expect(pooledSpread(tries)?.sigma).toBeCloseTo(Math.sqrt(0.05) / 2, 10);
    expect(pooledSpread(tries)).toMatchObject({ tries: 4, rates: 2 });
  });

  it("keeps one run's rate apart from another's: a drift between runs is not the spread between tries", () => {
    const runs = [100, 200].flatMap((rate) =>
      [1.9, 2.1, 2.9, 3.1].map((usPerItem, i) => ({ rate, usPerItem, saturated: false, run: i < 2 ? 0 : 1 })),
    );
    // within each run ±0.1 about its own mean (2.0, 3.0): sd √(0.08 / 4), over the grand mean 2.5
    expect(pooledSpread(runs)?.sigma).toBeCloseTo(Math.sqrt(0.02) / 2.5, 10);
    expect(pooledSpread(runs.map(({ run, ...t }) => t))?.sigma).toBeGreaterThan(0.2);
  });

  it('says nothing from fewer than two rates tried twice', () => {
    expect(
      pooledSpread([
        { rate: 1, usPerItem: 2, saturated: false },
        { rate: 1, usPerItem: 2.2, saturated: false },
      ]),
    ).toBeNull();
  });
});
