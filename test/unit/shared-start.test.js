import { describe, it, expect } from 'vitest';
import { SharedStart } from '../../src/experiments/shared-start.js';
import { lateStart, lateStartError } from '../../src/workloads/items/late-start.js';

const late = { code: 1, lastLine: lateStartError('writers', 6200).message };

describe('the start a producer and a consumer share', () => {
  it('starts 2.5 s ahead; a child ready a second or more late doubles the lead for the pair run again and every later one', () => {
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

describe('a process ready after the shared start', () => {
  it('on time or early: runs, says nothing', () => {
    expect(lateStart(10_000, 9_000)).toEqual({ lateMs: 0, refuse: false, say: false });
    expect(lateStart(10_000, 10_050)).toEqual({ lateMs: 50, refuse: false, say: false });
    expect(lateStart(null, 10_000)).toEqual({ lateMs: 0, refuse: false, say: false });
  });

  it('under a second late: runs, its first sends late and timed from when they were due, and says so', () => {
    expect(lateStart(10_000, 10_400)).toEqual({ lateMs: 400, refuse: false, say: true });
  });

  it('a second or more late: its seconds before it was ready would have no row, so it does not run', () => {
    expect(lateStart(10_000, 11_000)).toEqual({ lateMs: 1000, refuse: true, say: false });
    expect(lateStartError('readers', 1234).message).toBe(
      '--start-at: the readers were ready 1.2 s after the shared start, too late to keep its schedule (ready within 1 s of it, or not at all): nothing was run; give a later --start-at',
    );
  });
});
