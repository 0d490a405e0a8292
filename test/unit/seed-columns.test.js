// seedColumns: every seed column a spec puts a figure beside is said to be the same quantity or a
// stand-in, and RESULTS.md prints it under the notes (issue 24, point 4).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  besideSeedSection,
  readSeedColumns,
  readSeedMetrics,
  readStepSeed,
  seedColumnsSection,
} from '../../src/experiments/seed-columns.js';
import { loadSpec } from '../../src/experiments/spec.js';

const problem = (msg) => new Error(msg);

describe('seedColumns', () => {
  it("keeps the spec's order and prints one row per column", () => {
    const cols = readSeedColumns(
      { 'Overhead (ms)': 'same quantity, another SDK', 'E2E (ms)': 'stand-in: a bucket on fauxqs for S3 Express' },
      problem,
    );
    expect(cols).toEqual([
      ['Overhead (ms)', 'same quantity, another SDK'],
      ['E2E (ms)', 'stand-in: a bucket on fauxqs for S3 Express'],
    ]);
    const md = seedColumnsSection(cols).join('\n');
    expect(md).toMatch(/\| Seed column \| Here \|/);
    expect(md).toMatch(
      /\| Overhead \(ms\) \| same quantity, another SDK \|\n\| E2E \(ms\) \| stand-in: a bucket on fauxqs for S3 Express \|/,
    );
    expect(seedColumnsSection(null)).toEqual([]);
  });

  it('takes "not reproducible: why" for a seed figure no measurement of its kind can reach', () => {
    expect(readSeedColumns({ first: 'not reproducible: below any round trip' }, problem)).toEqual([
      ['first', 'not reproducible: below any round trip'],
    ]);
  });

  it('refuses anything that is neither', () => {
    expect(() => readSeedColumns([], problem)).toThrow(/seedColumns must map each seed column/);
    expect(() => readSeedColumns({ a: 3 }, problem)).toThrow(
      'seedColumns.a must start with "same quantity", "stand-in:" or "not reproducible:" (got 3)',
    );
  });

  it("experiments/003-ops-baseline says it of the seed's two tables' columns (Pinpoint's rows are under the overhead column: not a column of their own)", () => {
    const spec = loadSpec(path.join(import.meta.dirname, '..', '..', 'experiments', '003-ops-baseline'));
    expect(spec.seedColumns?.map(([c]) => c)).toEqual(['Overhead (ms): n, min, avg, med, p90, p99, max', 'S3 Express E2E Duration (ms)']);
    expect(spec.seedColumns?.[0][1]).toMatch(/Pinpoint's two rows are not reproducible: moto implements neither GetEndpoint nor PutEvents/);
  });

  it("a step's seed: the seed's row and its figures, for columns of seedColumns only, as strings", () => {
    const cols = readSeedColumns(
      { 'master CPU': 'stand-in: INFO cpu for CloudWatch', 'replica CPU': 'stand-in: the same, replicas' },
      problem,
    );
    expect(readStepSeed({ row: '4 writers x 10k', 'master CPU': '11%' }, 'steps[0].seed', cols, problem)).toEqual({
      row: '4 writers x 10k',
      figures: [['master CPU', '11%']],
    });
    expect(readStepSeed(undefined, 'steps[0].seed', cols, problem)).toBe(null);
    expect(() => readStepSeed({ row: 'x' }, 'steps[0].seed', null, problem)).toThrow('steps[0].seed needs seedColumns:');
    expect(() => readStepSeed({ 'master CPU': '11%' }, 'steps[0].seed', cols, problem)).toThrow(
      'steps[0].seed.row must be a non-empty string',
    );
    expect(() => readStepSeed({ row: 'x', CPU: '11%' }, 'steps[0].seed', cols, problem)).toThrow(
      'steps[0].seed.CPU is not a column of seedColumns (known: master CPU, replica CPU)',
    );
    expect(() => readStepSeed({ row: 'x', 'master CPU': 11 }, 'steps[0].seed', cols, problem)).toThrow(
      "steps[0].seed.master CPU must be the seed's figure as a string, as the seed wrote it (got 11)",
    );
    expect(() => readSeedMetrics({ 'master CPU': 'nope' }, cols, { master_cpu: 'x' }, problem)).toThrow(
      'seedMetrics.master CPU: "nope" is not a metric (known: master_cpu)',
    );
    expect(() => readSeedMetrics({ CPU: 'master_cpu' }, cols, { master_cpu: 'x' }, problem)).toThrow(
      'seedMetrics.CPU is not a column of seedColumns',
    );
    expect(readSeedMetrics({ 'master CPU': ['master_cpu', 'master_cpu'] }, cols, { master_cpu: 'x' }, problem)).toEqual([
      ['master CPU', ['master_cpu', 'master_cpu']],
    ]);
  });

  it('"Each step beside the seed": the seed\'s figure beside this run\'s median [95% CI], a dash where the seed gives none, then the verdict', () => {
    const cols = readSeedColumns(
      { 'master CPU': 'stand-in: INFO cpu for CloudWatch', 'replica CPU': 'stand-in: the same, replicas' },
      problem,
    );
    const spec = {
      seedColumns: cols,
      seedMetrics: readSeedMetrics({ 'master CPU': 'master_cpu_node' }, cols, { master_cpu_node: '% of 2 vCPUs' }, problem),
      steps: [
        {
          name: 'a',
          label: 'A',
          seed: {
            row: '4 x 10k',
            figures: [
              ['master CPU', '11%'],
              ['replica CPU', '7.5%'],
            ],
          },
        },
        { name: 'b', label: 'B', seed: null },
      ],
    };
    const trials = (xs) => xs.map((x) => ({ metrics: { master_cpu_node: x } }));
    const md = besideSeedSection(
      spec,
      [
        { step: { name: 'a' }, trials: trials([5, 6, 7, 8, 9, 10]) },
        { step: { name: 'b' }, trials: trials([1, 2, 3, 4, 5, 6]) },
      ],
      { master_cpu_node: '% of 2 vCPUs' },
      { verdict: 'held', n: '6 trials per step', check: 'a.master_cpu_node > b.master_cpu_node' },
    ).join('\n');
    expect(md).toContain('## Each step beside the seed');
    expect(md).toContain("| Step | The seed's row | master CPU: seed | master CPU: here | replica CPU: seed |");
    expect(md).toContain('| A | 4 x 10k | 11% | 7.5 [5, 10] | 7.5% |');
    expect(md).toContain('| B | — | — | — | — |');
    expect(md).toContain('No "here" figure for replica CPU: no metric of this kind is mapped to it (seedMetrics:)');
    expect(md).toContain(
      "The check's verdict: **held** (6 trials per step) — `a.master_cpu_node > b.master_cpu_node` (the Finding above says what it compares).",
    );
    expect(
      besideSeedSection({ ...spec, steps: spec.steps.map((x) => ({ ...x, seed: null })) }, [], {}, { verdict: null, n: null, check: null }),
    ).toEqual([]);
  });
});

describe("a percentile beside the seed's", () => {
  const spec = /** @type {any} */ ({
    steps: [{ name: 'b', label: 'B', seed: { row: 'r', figures: [['E2E', '505ms']] } }],
    seedColumns: [['E2E', 'same quantity']],
    seedMetrics: [['E2E', ['e2e_sent_p999_ms']]],
  });
  const trials = (n) => [
    { step: spec.steps[0], trials: [1, 2, 3].map((k) => ({ trial: k, round: k, metrics: { e2e_sent_p999_ms: 20 + k, e2e_sent_n: n } })) },
  ];
  const verdict = { verdict: null, n: null, check: null };

  it('is flagged, with the note, when its trials read it off fewer than 10 samples beyond it', () => {
    const md = besideSeedSection(spec, trials(360), { e2e_sent_p999_ms: 'E2E p999' }, verdict).join('\n');
    expect(md).toMatch(/\| B \| r \| 505ms \| 22ms \(n=3, no interval\) ⚠ \|/);
    expect(md).toMatch(/⚠ fewer than 10 samples in its trials/);
  });

  it('is not, from 10,000 samples', () => {
    const md = besideSeedSection(spec, trials(10_000), { e2e_sent_p999_ms: 'E2E p999' }, verdict).join('\n');
    expect(md).not.toMatch(/⚠/);
  });
});
