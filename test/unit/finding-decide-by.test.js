// RESULTS.md's Finding says what would decide an inconclusive check (decideBy:), and says nothing
// of it once the check is decided.
import { describe, expect, it } from 'vitest';
import { parseCheck } from '../../src/experiments/check.js';
import { findingSection } from '../../src/experiments/finding-md.js';

const spec = (check) => ({
  finding: 'a list costs less',
  check,
  checkTree: parseCheck(check),
  noise: 0.02,
  seedEffects: [],
  decideBy: 'more trials per step',
});
const steps = (a, b) => [
  { step: { name: 'a', label: 'a' }, trials: a.map((v, i) => ({ trial: i + 1, round: i + 1, metrics: { m: v } })) },
  { step: { name: 'b', label: 'b' }, trials: b.map((v, i) => ({ trial: i + 1, round: i + 1, metrics: { m: v } })) },
];

describe('decideBy in the Finding', () => {
  it('is said under an inconclusive verdict', () => {
    const f = findingSection(/** @type {any} */ (spec('a.m < b.m')), steps([10, 11, 12, 13, 14, 15], [10.5, 11.5, 12.5, 13.5, 14.5, 15.5]));
    expect(f.verdict).toBe('inconclusive');
    expect(f.lines).toContain('What would decide it: more trials per step');
  });

  it('is not said once the check is decided', () => {
    const f = findingSection(
      /** @type {any} */ (spec('a.m < b.m')),
      steps([1, 1.01, 1.02, 1.03, 1.04, 1.05], [2, 2.01, 2.02, 2.03, 2.04, 2.05]),
    );
    expect(f.verdict).toBe('held');
    expect(f.lines.join('\n')).not.toContain('What would decide it');
  });
});
