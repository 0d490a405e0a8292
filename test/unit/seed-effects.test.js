// seedEffects: the seed's own change beside this run's interval of it — includes, excludes, cannot
// tell — for timed comparisons (95% interval) and counted ones (the range over every pair).
import { describe, expect, it } from 'vitest';
import { parseCheck } from '../../src/experiments/check.js';
import { judge } from '../../src/experiments/verdict.js';
import { readSeedEffects, seedEffectLines } from '../../src/experiments/seed-effects.js';

const problem = (m) => new Error(m);
const trials = (table) => (step) => (table[step] ?? []).map((v, i) => ({ round: i + 1, trial: i + 1, metrics: { m: v } }));
const CHECK = 'list.m < zset.m';

describe('seedEffects', () => {
  it('reads a comparison of the check, written with any spacing', () => {
    expect(readSeedEffects({ 'list.m<zset.m': -19.1 }, parseCheck(CHECK), problem)).toEqual([
      { comparison: 'list.m < zset.m', pct: -19.1 },
    ]);
  });

  it('refuses a comparison the check does not make, a change that is not a number, and a spec without a check', () => {
    expect(() => readSeedEffects({ 'list.m > zset.m': -19 }, parseCheck(CHECK), problem)).toThrow(
      'seedEffects: "list.m > zset.m" is not a comparison of the check ("list.m < zset.m")',
    );
    expect(() => readSeedEffects({ 'list.m < zset.m': '19%' }, parseCheck(CHECK), problem)).toThrow(
      'seedEffects."list.m < zset.m" must be the seed\'s change in %, a number (got "19%")',
    );
    expect(() => readSeedEffects({ 'list.m < zset.m': -19 }, null, problem)).toThrow('seedEffects needs a check:');
  });

  const six = (x) => [0, 1, 2, 3, 4, 5].map((i) => x * (1 + 0.01 * i));
  const judged = (table, o) => judge(parseCheck(CHECK), trials(table), o).comparisons;

  it("says the seed's size is inside this run's interval, or which side of it", () => {
    const c = judged({ list: six(80), zset: six(100) });
    expect(seedEffectLines([{ comparison: CHECK, pct: -20 }], c)[2]).toMatch(
      /the seed's -20% lies inside this run's 95% interval, \[.*\]: includes it$/,
    );
    expect(seedEffectLines([{ comparison: CHECK, pct: -40 }], c)[2]).toMatch(/lies below this run's 95% interval, .*: excludes it$/);
    expect(seedEffectLines([{ comparison: CHECK, pct: -5 }], c)[2]).toMatch(/lies above .*: excludes it$/);
  });

  it('cannot tell without an interval (3 trials a side), and reads a counted comparison by its range', () => {
    const few = judged({ list: [80, 81, 82], zset: [100, 101, 102] });
    expect(seedEffectLines([{ comparison: CHECK, pct: -20 }], few)[2]).toMatch(/cannot tell/);
    const counted = judged({ list: [8000], zset: [10000] }, { isCount: () => true });
    expect(seedEffectLines([{ comparison: CHECK, pct: -20 }], counted)[2]).toBe(
      "- `list.m < zset.m`: the seed's -20% lies inside this run's range over every pair of counted trials, [-20%, -20%]: includes it",
    );
    // the seed's size is of its node's CPU: a count is said not to be the same quantity, a timed figure is not
    expect(seedEffectLines([{ comparison: CHECK, pct: -20 }], counted)[0]).toMatch(
      /a count of Redis's instructions, the seed's is its node's CPU: not the same quantity/,
    );
    expect(seedEffectLines([{ comparison: CHECK, pct: -20 }], judged({ list: six(80), zset: six(100) }))[0]).not.toMatch(/same quantity/);
  });

  it("against a bound (`a < b * 1.5`) the seed's size is set beside the change to b itself, not to the bound", () => {
    const scaled = judge(parseCheck('list.m < zset.m * 1.5'), trials({ list: [8000], zset: [10000] }), { isCount: () => true }).comparisons;
    expect(seedEffectLines([{ comparison: 'list.m < zset.m * 1.5', pct: -20 }], scaled)[2]).toMatch(/\[-20%, -20%\]: includes it$/);
  });
});
