// The verdicts mean what they say, on synthetic trials whose truth is known: over many A/A draws
// (both groups from one distribution) compareGroups calls a difference significant no more often
// than alpha; the median's 95% interval covers the true median at least 95% of the time; a real
// ×1.5 change is found nearly always and its interval covers 1.5. Seeded, so a failure repeats.
// The bounds allow Monte Carlo error of 3 standard errors at 2,000 draws: A/A rate ≤ 0.05 + 0.0146,
// coverage ≥ 0.95 − 0.0146 (about 0.935); "up" in ≥ 99 % of the A/B draws.
import { describe as group, expect, it } from 'vitest';
import { compareGroups, describe } from '../../src/stats/stats.js';
import { seeded } from '../../src/experiments/trials.js';

const DRAWS = 2000;
/** Monte Carlo allowance: 3 standard errors of a rate p over DRAWS draws. */
const slack = (p) => 3 * Math.sqrt((p * (1 - p)) / DRAWS);

function sources(seed) {
  const rand = seeded(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  return {
    normal: { draw: () => 20 + 1.5 * normal(), median: 20 },
    lognormal: { draw: () => 5 * Math.exp(0.3 * normal()), median: 5 },
    // few distinct values: ties in nearly every draw, as rounded CPU figures have
    ties: { draw: () => 10 + Math.floor(rand() * 4), median: null },
  };
}

const many = (n, draw) => Array.from({ length: n }, draw);

group('A/A: the false-positive rate stays at or under alpha', () => {
  for (const n of [6, 10]) {
    // a seed per case: the tests are rank-based, so normal and lognormal draws from one seed would
    // give the same verdicts (exp is monotone) and the second case would check nothing new
    ['normal', 'lognormal', 'ties'].forEach((name, i) => {
      it(`${n} vs ${n}, ${name}`, () => {
        const src = sources(1000 + 10 * n + i)[name];
        let hits = 0;
        for (let i = 0; i < DRAWS; i++) if (compareGroups(many(n, src.draw), many(n, src.draw)).significant) hits++;
        const rate = hits / DRAWS;
        expect(rate, `false positives ${rate}`).toBeLessThanOrEqual(0.05 + slack(0.05));
      });
    });
  }
});

group("the median's 95% interval covers the true median", () => {
  for (const n of [6, 10]) {
    ['normal', 'lognormal'].forEach((name, i) => {
      it(`${n} trials, ${name}`, () => {
        const src = sources(2000 + 10 * n + i)[name];
        let covered = 0;
        for (let i = 0; i < DRAWS; i++) {
          const { ci } = describe(many(n, src.draw));
          if (ci.lo <= src.median && src.median <= ci.hi) covered++;
        }
        expect(covered / DRAWS).toBeGreaterThanOrEqual(0.95 - slack(0.05));
      });
    });
  }
});

it('A/B ×1.5 at CV 5%, 6 vs 6: found "up" nearly always, and the ratio interval covers 1.5', () => {
  const rand = seeded(77);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  let up = 0;
  let covers = 0;
  for (let i = 0; i < DRAWS; i++) {
    const a = many(6, () => 20 * (1 + 0.05 * normal()));
    const b = many(6, () => 30 * (1 + 0.05 * normal()));
    const r = compareGroups(a, b);
    if (r.direction === 'up') up++;
    if (r.change.lo <= 1.5 && 1.5 <= r.change.hi) covers++;
  }
  expect(up / DRAWS).toBeGreaterThanOrEqual(0.99);
  expect(covers / DRAWS).toBeGreaterThanOrEqual(0.95 - slack(0.05));
});
