// RESULTS.md's Finding tables say what their rules found: a comparison against a figure times a
// constant shows the change to the figure itself before the one against the bound (issue 37: 002-chunks'
// "-22.7 %" was c4 against c1 × 1.25, where c4 was 3.4 % below c1), and noisy trials are said to be
// marked in the table above only when that table holds their step's figures.
import { describe, expect, it } from 'vitest';
import { parseCheck } from '../../src/experiments/check.js';
import { findingSection } from '../../src/experiments/finding-md.js';

const spec = (check) =>
  /** @type {any} */ ({ finding: 'chunks cost the same', check, checkTree: parseCheck(check), noise: 0.02, seedEffects: [] });
const noisy = { noisy: true, outsidePct: 30, thresholdPct: 25, runs: 1 };
/** @param {Record<string, number[]>} table @param {string[]} [noisyIn] steps whose first trial was noisy */
const steps = (table, noisyIn = []) =>
  Object.entries(table).map(([name, values]) => ({
    step: { name, label: name },
    trials: values.map((v, i) => ({
      trial: i + 1,
      round: i + 1,
      metrics: { ir: v },
      noise: i === 0 && noisyIn.includes(name) ? noisy : null,
    })),
  }));
const row = (lines, text) =>
  lines
    .join('\n')
    .split('\n')
    .find((l) => l.startsWith(`| \`${text}\``));

describe("the Finding's comparison table", () => {
  it('against c1 × 1.25: the change to c1 first, then the one against the bound, which decides', () => {
    const f = findingSection(spec('c4.ir < c1.ir * 1.25'), steps({ c4: [9660, 9670], c1: [10000, 10010] }), new Map(), ['ir']);
    expect(row(f.lines, 'c4.ir < c1.ir * 1.25')).toBe(
      '| `c4.ir < c1.ir * 1.25` | -3.4% (pairs -3.5% to -3.3%) vs `c1.ir`; -22.7% (pairs -22.8% to -22.6%) vs × 1.25 | counted: no test | held | change -22.7%, every pair of 2 and 2 counted trials in [-22.8%, -22.6%]; past the constant, no noise margin |',
    );
  });

  it('two figures compared bare keep one change', () => {
    const f = findingSection(spec('c4.ir < c1.ir'), steps({ c4: [9660, 9670], c1: [10000, 10010] }), new Map(), ['ir']);
    expect(row(f.lines, 'c4.ir < c1.ir')).toMatch(/^\| `c4\.ir < c1\.ir` \| -3\.4% \(pairs -3\.5% to -3\.3%\) \| counted/);
  });
});

describe("the Finding's noisy trials", () => {
  it('marked * above when their step is in the table; said to be of steps the check does not read otherwise', () => {
    const inTable = findingSection(spec('c4.ir < c1.ir'), steps({ c4: [9660, 9670], c1: [10000, 10010], c2: [1, 2] }, ['c4']), new Map(), [
      'ir',
    ]);
    expect(inTable.lines).toContain(
      'Noisy trials (marked * above; kept and counted — `rqbench experiment run --retry-noisy N` re-runs them):',
    );
    const elsewhere = findingSection(
      spec('c4.ir < c1.ir'),
      steps({ c4: [9660, 9670], c1: [10000, 10010], c2: [1, 2] }, ['c2']),
      new Map(),
      ['ir'],
    );
    expect(elsewhere.lines).toContain(
      "Noisy trials (all of steps the check does not read; kept and counted in their steps' figures — `rqbench experiment run --retry-noisy N` re-runs them):",
    );
    expect(elsewhere.lines.join('\n')).not.toMatch(/\d\*/);
    expect(inTable.lines.join('\n')).toMatch(/\| 9660\* 9670 \|/);
  });
});
