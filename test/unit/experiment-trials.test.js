// Trials in rounds (src/experiments/trials.js): a step with its own repeat: takes part in the first
// rounds only, and the other steps' order is the one they would have had without it.
import { describe, expect, it } from 'vitest';
import { capCounted, grownSlots, schedule, trialsPlanned } from '../../src/experiments/trials.js';

describe('schedule with a step of its own repeat:', () => {
  it('gives that step its own number of trials, in the first rounds', () => {
    const order = schedule(['zset', 'list', 'zset_ir'], 6, 42, { zset_ir: 2 });
    const m = { repeat: 6, seed: 42, order, startedAt: '' };
    expect(trialsPlanned(m, 'zset')).toBe(6);
    expect(trialsPlanned(m, 'zset_ir')).toBe(2);
    expect(order.filter((s) => s.step === 'zset_ir').map((s) => s.round)).toEqual([1, 2]);
  });

  it("leaves the other steps' order as it was", () => {
    const without = schedule(['zset', 'list', 'zset_ir'], 6, 42).filter((s) => s.step !== 'zset_ir');
    const withOwn = schedule(['zset', 'list', 'zset_ir'], 6, 42, { zset_ir: 3 }).filter((s) => s.step !== 'zset_ir');
    expect(withOwn).toEqual(without);
  });

  it("never gives a step more trials than the run's: --repeat 1 runs one of each", () => {
    const order = schedule(['a', 'b'], 1, 7, { b: 3 });
    expect(order.map((s) => s.step).sort()).toEqual(['a', 'b']);
  });
});

describe('a resumed run whose step was given more trials (its repeat: raised)', () => {
  it('gets the missing rounds of that step only, and nothing for a step as planned', () => {
    const order = schedule(['w2', 'w2_ir', 'w4_ir'], 6, 9, { w2_ir: 3, w4_ir: 3 });
    const m = { repeat: 6, seed: 9, order, startedAt: '' };
    const more = grownSlots(m, [{ name: 'w2' }, { name: 'w2_ir', repeat: 6 }, { name: 'w4_ir', repeat: 6 }]);
    expect(more.map((s) => `${s.step}/${s.trial}`).sort()).toEqual(['w2_ir/4', 'w2_ir/5', 'w2_ir/6', 'w4_ir/4', 'w4_ir/5', 'w4_ir/6']);
    // round by round, as the run's own
    expect(more.map((s) => s.round)).toEqual([4, 4, 5, 5, 6, 6]);
    expect(grownSlots(m, [{ name: 'w2' }, { name: 'w2_ir', repeat: 3 }, { name: 'w4_ir', repeat: 2 }])).toEqual([]);
    // never past the run's own repeat
    expect(grownSlots(m, [{ name: 'w2_ir', repeat: 8 }]).map((s) => s.trial)).toEqual([4, 5, 6]);
  });
});

describe('--counted-trials N', () => {
  it('caps every counted step at N trials, leaves the timed ones, and a resumed run with its cap grows nothing', () => {
    const steps = [
      { name: 'zset' },
      { name: 'zset_ir', count: { timeScale: 50 }, repeat: 3 },
      { name: 'list_ir', count: { timeScale: 50 } },
    ];
    const capped = capCounted(steps, 1);
    expect(capped.map((s) => s.repeat)).toEqual([undefined, 1, 1]);
    expect(capCounted(steps, undefined)).toBe(steps);
    // a cap above a step's own repeat: leaves it
    expect(capCounted(steps, 5).map((s) => s.repeat)).toEqual([undefined, 3, 5]);
    const order = schedule(
      capped.map((s) => s.name),
      6,
      3,
      Object.fromEntries(capped.map((s) => [s.name, s.repeat])),
    );
    const m = { repeat: 6, seed: 3, order, startedAt: '', countedTrials: 1 };
    expect(['zset', 'zset_ir', 'list_ir'].map((n) => trialsPlanned(m, n))).toEqual([6, 1, 1]);
    expect(grownSlots(m, capCounted(steps, m.countedTrials))).toEqual([]);
    // without the cap the spec's own plan would grow them
    expect(grownSlots(m, steps).length).toBe(2 + 5);
  });
});
