// A check against a constant on few trials (issue 37, point 7): below 9 trials the distribution-free
// 95% interval of a median is [min, max], so one trial that measured a fault decides the verdict
// alone. The Finding says so beside it; from 9 trials on it does not.
import { describe, expect, it } from 'vitest';
import { fewAgainstConstant } from '../../src/experiments/finding-md.js';

const against = (n) => ({ kind: 'one-sample', text: 'a.p50_ms < 0.5', described: { n } });

describe('a figure against a constant', () => {
  it('on 6 trials: the Finding says one trial can decide it', () => {
    const lines = fewAgainstConstant([against(6), { kind: 'two-sample', text: 'a.x < b.x', described: null }]);
    expect(lines[0]).toBe(
      "Against a constant on 6 trials (`a.p50_ms < 0.5`), the median's 95% interval spans the trials from the lowest to the highest: one trial alone can decide the verdict. 9 or more trials give an interval that one trial cannot move.",
    );
  });
  it('on 9 trials, or with none run, or comparing two steps: nothing to say', () => {
    expect(fewAgainstConstant([against(9)])).toEqual([]);
    expect(fewAgainstConstant([against(0)])).toEqual([]);
    expect(fewAgainstConstant([{ kind: 'two-sample', text: 'a.x < b.x', described: null }])).toEqual([]);
  });
});
