import { describe, it, expect } from 'vitest';
import { SharedStart } from '../../src/experiments/shared-start.js';
import { lateStartError } from '../../src/workloads/items/late-start.js';

const late = { code: 1, lastLine: lateStartError('writers', 6200, 4).message };

describe('the start a producer and a consumer share', () => {
  it('starts 2.5 s ahead; a child ready only after the planned end doubles the lead for the pair run again and every later one', () => {
    const s = new SharedStart();
    expect(s.leadMs).toBe(2500);
    expect(s.missed([{ code: 0, lastLine: '' }, late])).toBe(true);
    expect(s.leadMs).toBe(5000);
    const t = s.at();
    expect(t - Date.now()).toBeGreaterThan(4900);
  });

  it('any other failure, or exit 0, is not a missed start', () => {
    const s = new SharedStart();
    expect(
      s.missed([
        { code: 1, lastLine: 'writes failed' },
        { code: 0, lastLine: late.lastLine },
      ]),
    ).toBe(false);
    expect(s.leadMs).toBe(2500);
  });

  it('stops at 40 s ahead: a host that cannot start a process in that long cannot run the step either', () => {
    const s = new SharedStart();
    const misses = [];
    for (let i = 0; i < 6; i++) misses.push(s.missed([late]));
    expect(misses).toEqual([true, true, true, true, false, false]);
    expect(s.leadMs).toBe(40_000);
  });
});
