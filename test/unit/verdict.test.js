// A check decided on trials, three-valued: the rules of src/experiments/verdict.js on made-up
// trials whose answer is known (pure logic: no server).
import { describe, expect, it } from 'vitest';
import { parseCheck } from '../../src/experiments/check.js';
import { HELD, INCONCLUSIVE, NOT_HELD, comparisonsOf, judge } from '../../src/experiments/verdict.js';

/** step → metric → one value per trial (trial k in round k). */
function trials(table) {
  return (step) =>
    table[step]
      ? Object.entries(table[step]).reduce((out, [metric, values]) => {
          values.forEach((v, i) => {
            out[i] ??= { round: i + 1, trial: i + 1, metrics: {} };
            out[i].metrics[metric] = v;
          });
          return out;
        }, [])
      : [];
}

const near = (x, spread, n = 6) => Array.from({ length: n }, (_, i) => x * (1 + spread * ((i % 3) - 1) + 0.001 * i));
const judgeOf = (check, table, o) => judge(parseCheck(check), trials(table), o);

describe('two steps compared (Mann–Whitney, Hodges–Lehmann, noise threshold)', () => {
  it('held when every trial of one side is well below the other: significant, interval beyond the noise', () => {
    const v = judgeOf('list.cpu < zset.cpu', { list: { cpu: near(10, 0.02) }, zset: { cpu: near(14, 0.02) } });
    expect(v.verdict).toBe(HELD);
    expect(v.comparisons[0].p).toBeLessThan(0.01);
    expect(v.comparisons[0].change.pctHi).toBeLessThan(-2);
    expect(v.refs.map((r) => r.described.n)).toEqual([6, 6]);
  });

  it('did not hold when the difference is significant the other way', () => {
    expect(judgeOf('list.cpu < zset.cpu', { list: { cpu: near(14, 0.02) }, zset: { cpu: near(10, 0.02) } }).verdict).toBe(NOT_HELD);
  });

  it('inconclusive when the groups overlap (no significant difference)', () => {
    const v = judgeOf('a.cpu > b.cpu', { a: { cpu: [10, 11, 12, 13, 14, 15] }, b: { cpu: [10.5, 11.5, 12.5, 13.5, 14.5, 15.5] } });
    expect(v.verdict).toBe(INCONCLUSIVE);
    expect(v.comparisons[0].why).toMatch(/not significant/);
  });

  it('inconclusive when significant but inside the ±2% noise threshold, held when the threshold is lowered', () => {
    const table = { a: { cpu: near(10.1, 0.001) }, b: { cpu: near(10, 0.001) } };
    expect(judgeOf('a.cpu > b.cpu', table).verdict).toBe(INCONCLUSIVE);
    expect(judgeOf('a.cpu > b.cpu', table).comparisons[0].why).toMatch(/within ±2%, the noise threshold/);
    expect(judgeOf('a.cpu > b.cpu', table, { threshold: 0.005 }).verdict).toBe(HELD);
  });

  it('says the interval reaches inside the threshold when only part of it does, not that the change is within it', () => {
    const table = { a: { cpu: [10.05, 10.1, 11, 12, 13, 14] }, b: { cpu: near(10, 0.001) } };
    const [c] = judgeOf('a.cpu > b.cpu', table).comparisons;
    expect(c.verdict).toBe(INCONCLUSIVE);
    expect(c.why).toMatch(/its interval reaches inside ±2%, the noise threshold/);
    expect(c.why).not.toMatch(/within/);
  });

  it('inconclusive with 3 trials a side, whatever the figures: the exact test cannot reach 0.05', () => {
    const v = judgeOf('a.cpu < b.cpu', { a: { cpu: [1, 1.1, 1.2] }, b: { cpu: [100, 101, 102] } });
    expect(v.verdict).toBe(INCONCLUSIVE);
    expect(v.comparisons[0].p).toBeCloseTo(0.1, 5);
  });

  it('a constant written in is the threshold: b * 0.6 holds when the whole ratio interval is below it', () => {
    const table = { b500: { m: near(50, 0.01) }, b250: { m: near(100, 0.01) } };
    expect(judgeOf('b500.m < b250.m * 0.6', table).verdict).toBe(HELD);
    expect(judgeOf('b500.m < b250.m * 0.45', table).verdict).toBe(NOT_HELD);
  });

  it('Holm-corrects the p-values of a check that compares several metrics', () => {
    const table = { a: { x: near(10, 0.02), y: near(10, 0.02) }, b: { x: near(14, 0.02), y: near(14, 0.02) } };
    const v = judgeOf('a.x < b.x and a.y < b.y', table);
    expect(v.comparisons.map((c) => c.pAdjusted)).toEqual(v.comparisons.map((c) => Math.min(1, c.p * 2)));
    expect(v.verdict).toBe(HELD);
  });
});

describe("a figure against a constant (the median's distribution-free interval)", () => {
  it('held when every trial is on the claimed side, did not hold when every one is on the other', () => {
    expect(judgeOf('x.complete == 1', { x: { complete: [1, 1, 1, 1, 1, 1] } }).verdict).toBe(HELD);
    expect(judgeOf('x.complete == 1', { x: { complete: [0, 0, 0, 0, 0, 0] } }).verdict).toBe(NOT_HELD);
    expect(judgeOf('x.lost > 0', { x: { lost: [3, 5, 8, 1, 2, 9] } }).verdict).toBe(HELD);
    expect(judgeOf('1 < x.lost', { x: { lost: [3, 5, 8, 2, 2, 9] } }).verdict).toBe(HELD);
  });

  it('inconclusive when the interval straddles the constant, and below 6 trials (no 95% interval for a median)', () => {
    expect(judgeOf('x.p50 < 1', { x: { p50: [0.5, 0.6, 1.2, 0.7, 0.8, 0.9] } }).verdict).toBe(INCONCLUSIVE);
    const few = judgeOf('x.complete == 1', { x: { complete: [1, 1, 1, 1, 1] } });
    expect(few.verdict).toBe(INCONCLUSIVE);
    expect(few.comparisons[0].why).toMatch(/6/);
  });

  it('a side naming several steps is taken round by round', () => {
    const v = judgeOf('a.failed + b.failed == 0', { a: { failed: [0, 0, 0, 0, 0, 0] }, b: { failed: [0, 0, 0, 0, 0, 0] } });
    expect(v.verdict).toBe(HELD);
    expect(judgeOf('a.failed + b.failed == 0', { a: { failed: [0, 0, 0, 0, 0, 0] }, b: { failed: [0, 0, 1, 0, 0, 0] } }).verdict).toBe(
      INCONCLUSIVE,
    );
  });
});

describe("and / or / not: Kleene's three-valued logic", () => {
  const table = { h: { v: [1, 1, 1, 1, 1, 1] }, n: { v: [0, 0, 0, 0, 0, 0] }, u: { v: [1, 1, 1] } };
  const cases = [
    ['h.v == 1 and u.v == 1', INCONCLUSIVE],
    ['h.v == 1 and n.v == 1', NOT_HELD],
    ['u.v == 1 and n.v == 1', NOT_HELD],
    ['h.v == 1 or u.v == 1', HELD],
    ['n.v == 1 or u.v == 1', INCONCLUSIVE],
    ['n.v == 1 or n.v == 2', NOT_HELD],
    ['not u.v == 1', INCONCLUSIVE],
    ['not n.v == 1', HELD],
    ['not h.v == 1', NOT_HELD],
  ];
  it.each(cases)('%s → %s', (check, want) => {
    expect(judgeOf(check, table).verdict).toBe(want);
  });
});

it('refuses a check that is not comparisons joined by and / or / not', () => {
  expect(() => comparisonsOf(parseCheck('a.x + b.x'))).toThrow(/not a comparison/);
  expect(() => comparisonsOf(parseCheck('(a.x < b.x) == (c.x < d.x)'))).toThrow(/compares a comparison/);
});

describe("a step outside the seed's regime cannot decide", () => {
  const table = { list: { cpu: near(10, 0.02) }, zset: { cpu: near(14, 0.02) }, set: { cpu: near(9, 0.02) } };
  it('a comparison naming it is inconclusive whatever its figures say, and says why; the others stand', () => {
    const behind = (step) => (step === 'zset' ? 'its writers held 80% of the target rate (median), below 99%' : null);
    const v = judgeOf('list.cpu < zset.cpu and set.cpu < list.cpu', table, { outOfRegime: behind });
    expect(v.comparisons.map((c) => c.verdict)).toEqual([INCONCLUSIVE, HELD]);
    expect(v.comparisons[0].why).toBe('zset cannot decide: its writers held 80% of the target rate (median), below 99%');
    expect(v.verdict).toBe(INCONCLUSIVE);
    // without it, the same figures hold
    expect(judgeOf('list.cpu < zset.cpu and set.cpu < list.cpu', table).verdict).toBe(HELD);
  });

  it('a comparison that did not hold turns inconclusive too: it measured something else', () => {
    const v = judgeOf('zset.cpu < list.cpu', table, { outOfRegime: (s) => (s === 'list' ? 'fell behind' : null) });
    expect(v.verdict).toBe(INCONCLUSIVE);
  });
});

describe("each kind's regime rule", async () => {
  const { outOfRegime: produce } = await import('../../src/experiments/kinds/produce-kind.js');
  const { queueOutOfRegime: queue } = await import('../../src/experiments/kinds/queue-results.js');
  const { loadOutOfRegime: load } = await import('../../src/experiments/kinds/load-results.js');
  it('produce: writers below 99% of the rate, unless failures are what the step measures', () => {
    expect(produce({}, { achieved_ratio: 0.97 })).toBe('its writers held 97% of the target rate (median), below 99%');
    expect(produce({}, { achieved_ratio: 0.995 })).toBeNull();
    expect(produce({ failuresMeasured: true }, { achieved_ratio: 0.5 })).toBeNull();
  });
  it('queue: a consumer that applied under 95% of what was published; load: a best cell under 1 s', () => {
    expect(queue({}, { kept_up: 0.23 })).toMatch(
      /^its consumer applied messages at 23% of the publisher's rate \(median, over the span from its first to its last\) and fell behind/,
    );
    expect(queue({}, { kept_up: 0.99 })).toBeNull();
    expect(load({}, { best_load_s: 0.3 })).toBe('its best cell loaded in 300 ms (median), under 1 s: too short a window to carry a rate');
    expect(load({}, { best_load_s: 2 })).toBeNull();
  });
});

describe('two steps counted (Redis instructions per item: the counter rule, no test)', () => {
  const counted = { isCount: (m) => m === 'ir' };

  it('one trial a side decides: held when the left count is below the right by more than 1 %', () => {
    const v = judgeOf('list.ir < zset.ir', { list: { ir: [14000] }, zset: { ir: [18000] } }, counted);
    expect(v.verdict).toBe(HELD);
    expect(v.comparisons[0].kind).toBe('counted');
    expect(v.comparisons[0].p).toBeNull();
    expect(v.comparisons[0].change.pct).toBeCloseTo(-22.22, 1);
  });

  it('did not hold when every trial lies beyond 1 % the other way', () => {
    const v = judgeOf('hll.ir < list.ir', { hll: { ir: [15000, 15010, 15005] }, list: { ir: [14000, 14002] } }, counted);
    expect(v.verdict).toBe(NOT_HELD);
    expect(v.comparisons[0].why).toMatch(/every pair of 3 and 2 counted trials/);
  });

  it('inconclusive within the counts’ noise (±1 %), and when the trials’ ranges overlap', () => {
    expect(judgeOf('a.ir < b.ir', { a: { ir: [10000] }, b: { ir: [10050] } }, counted).verdict).toBe(INCONCLUSIVE);
    // medians 3 % apart, but one trial of a reaches past b's: the range is not wholly beyond
    const v = judgeOf('a.ir < b.ir', { a: { ir: [9700, 9710, 10400] }, b: { ir: [10000, 10010, 10020] } }, counted);
    expect(v.verdict).toBe(INCONCLUSIVE);
    expect(v.comparisons[0].why).toMatch(/range reaches inside the noise/);
  });

  it("the counts' threshold is 1 % whatever the spec's (timed) noise threshold; a constant written in is the threshold", () => {
    const table = { a: { ir: [10000] }, b: { ir: [10150] } };
    expect(judgeOf('a.ir < b.ir', table, counted).verdict).toBe(HELD);
    expect(judgeOf('a.ir < b.ir', table, { ...counted, threshold: 0.05 }).verdict).toBe(HELD);
    expect(judgeOf('a.ir < b.ir', table, counted).comparisons[0].why).toMatch(/counts' noise ±1%$/);
    expect(judgeOf('a.ir < b.ir * 0.99', table, counted).verdict).toBe(HELD);
    expect(judgeOf('a.ir < b.ir * 0.95', table, counted).verdict).toBe(NOT_HELD);
  });

  it('against a figure times a constant, the change to the figure itself is kept beside the one the bound decides on, and no noise margin is claimed', () => {
    // 002-chunks: c4 3.4 % below c1 reads "-22.7 %" against c1 × 1.25, which a reader takes for the effect
    const table = { c4: { ir: [9660, 9670] }, c1: { ir: [10000, 10010] } };
    const [c] = judgeOf('c4.ir < c1.ir * 1.25', table, counted).comparisons;
    expect(c.verdict).toBe(HELD);
    expect(c.change.pct).toBeCloseTo(-22.7, 0);
    expect(c.plain.text).toBe('c1.ir');
    expect(c.plain.factor).toBe(1.25);
    expect(c.plain.change.pct).toBeCloseTo(-3.35, 1);
    expect(c.why).toMatch(/past the constant, no noise margin$/);
    expect(c.why).not.toMatch(/±0%/);
    // written the other way round, or as a division, the same figure and factor
    expect(judgeOf('c4.ir < 1.25 * c1.ir', table, counted).comparisons[0].plain.factor).toBe(1.25);
    expect(judgeOf('c4.ir < c1.ir / 0.8', table, counted).comparisons[0].plain.factor).toBe(1.25);
    // two figures, or a sum, have no plain change to show
    expect(judgeOf('c4.ir < c1.ir', table, counted).comparisons[0].plain).toBeNull();
    expect(judgeOf('c4.ir < c1.ir + 5', table, counted).comparisons[0].plain).toBeNull();
  });

  it('timed figures against a scaled figure keep the plain change too, with its own interval', () => {
    const table = { b500: { m: near(50, 0.01) }, b250: { m: near(100, 0.01) } };
    const [c] = judgeOf('b500.m < b250.m * 0.6', table).comparisons;
    expect(c.kind).toBe('two-sample');
    expect(c.plain.change.pct).toBeCloseTo(-50, 0);
    expect(c.change.pct).toBeCloseTo(-16.7, 0);
  });

  it('warns of no outlier among counts that agree within the counter’s noise, as it would among timed figures', () => {
    const table = { a: { ir: [14164, 14145, 14148] }, b: { ir: [20468, 20747, 20806] } };
    expect(judgeOf('a.ir < b.ir', table, counted).refs.map((r) => r.warnings)).toEqual([[], expect.any(Array)]);
    expect(judgeOf('a.ir < b.ir', table, counted).refs[1].warnings).toEqual([]);
    expect(judgeOf('a.ir < b.ir', { a: { ir: [14164, 14145, 14148, 14150, 14149, 14151] }, b: table.b }).refs[0].warnings.join()).toMatch(
      /far from the others/,
    );
  });

  it('from 6 trials a side, counts are judged by the rank test with the counts’ threshold: a spread the all-pairs rule cannot see past', () => {
    // 4 writers: each step's counts spread ~8 %, the medians ~6 % apart; some pairs cross
    const a = [10000, 10200, 10400, 10500, 10700, 10800];
    const b = [10550, 10800, 11000, 11100, 11200, 11400, 11500];
    const few = judgeOf('a.ir < b.ir', { a: { ir: a.slice(-3) }, b: { ir: b.slice(0, 3) } }, counted);
    expect(few.comparisons[0].kind).toBe('counted');
    expect(few.verdict).toBe(INCONCLUSIVE);
    const many = judgeOf('a.ir < b.ir', { a: { ir: a }, b: { ir: b } }, counted);
    expect(many.comparisons[0]).toMatchObject({ kind: 'two-sample', counts: true });
    expect(many.comparisons[0].p).toBeLessThan(0.05);
    expect(many.verdict).toBe(HELD);
    expect(many.comparisons[0].why).toMatch(/^change -/);
    // the threshold is the counts' 1 %, not the spec's timed one
    const near = { a: { ir: [10000, 10001, 10002, 10003, 10004, 10005] }, b: { ir: [10150, 10151, 10152, 10153, 10154, 10155] } };
    expect(judgeOf('a.ir < b.ir', near, { ...counted, threshold: 0.05 }).verdict).toBe(HELD);
    const tight = { a: { ir: [10000, 10001, 10002, 10003, 10004, 10005] }, b: { ir: [10050, 10051, 10052, 10053, 10054, 10055] } };
    expect(judgeOf('a.ir < b.ir', tight, counted).verdict).toBe(INCONCLUSIVE);
  });

  it('a count against a constant: held when every trial is on the claimed side, from one trial up; no interval needed', () => {
    const v = judgeOf('a.ir < 0.8', { a: { ir: [0.55, 0.56, 0.57] } }, counted);
    expect(v.verdict).toBe(HELD);
    expect(v.comparisons[0].kind).toBe('counted');
    expect(v.comparisons[0].why).toBe('every one of 3 counted trials in [0.55, 0.57] vs 0.8');
    expect(judgeOf('a.ir > 0.4', { a: { ir: [0.55] } }, counted).verdict).toBe(HELD);
    expect(judgeOf('a.ir > 0.6', { a: { ir: [0.55, 0.56] } }, counted).verdict).toBe(NOT_HELD);
    const both = judgeOf('a.ir > 0.555', { a: { ir: [0.55, 0.56] } }, counted);
    expect(both.verdict).toBe(INCONCLUSIVE);
    expect(both.comparisons[0].why).toMatch(/on both sides$/);
    expect(judgeOf('a.ir > 0.4', { a: { ir: [] } }, counted).verdict).toBe(INCONCLUSIVE);
    // a timed figure against a constant keeps its interval, which 3 trials do not have
    expect(judgeOf('a.cpu < 0.8', { a: { cpu: [0.55, 0.56, 0.57] } }, counted).verdict).toBe(INCONCLUSIVE);
  });

  it('timed figures beside counted ones keep their test: a comparison is counted only when every figure in it is a count', () => {
    const v = judgeOf('a.ir < b.cpu', { a: { ir: [1] }, b: { cpu: [2] } }, counted);
    expect(v.comparisons[0].kind).toBe('two-sample');
    expect(v.verdict).toBe(INCONCLUSIVE);
  });
});
