// Trials in rounds (src/experiments/trials.js): a step with its own repeat: takes part in the first
// rounds only, and the other steps' order is the one they would have had without it.
import { describe, expect, it } from 'vitest';
import { schedule, trialsPlanned } from '../../src/experiments/trials.js';

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
