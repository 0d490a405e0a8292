// seedColumns: every seed column a spec puts a figure beside is said to be the same quantity or a
// stand-in, and RESULTS.md prints it under the notes (issue 24, point 4).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSeedColumns, seedColumnsSection } from '../src/experiments/seed-columns.js';
import { loadSpec } from '../src/experiments/spec.js';

const problem = (msg) => new Error(msg);

describe('seedColumns', () => {
  it('keeps the spec\'s order and prints one row per column', () => {
    const cols = readSeedColumns({ 'Overhead (ms)': 'same quantity, another SDK', 'E2E (ms)': 'stand-in: a bucket on fauxqs for S3 Express' }, problem);
    expect(cols).toEqual([['Overhead (ms)', 'same quantity, another SDK'], ['E2E (ms)', 'stand-in: a bucket on fauxqs for S3 Express']]);
    const md = seedColumnsSection(cols).join('\n');
    expect(md).toMatch(/\| Seed column \| Here \|/);
    expect(md).toMatch(/\| Overhead \(ms\) \| same quantity, another SDK \|\n\| E2E \(ms\) \| stand-in: a bucket on fauxqs for S3 Express \|/);
    expect(seedColumnsSection(null)).toEqual([]);
  });

  it('refuses anything that is neither', () => {
    expect(() => readSeedColumns([], problem)).toThrow(/seedColumns must map each seed column/);
    expect(() => readSeedColumns({ a: 3 }, problem)).toThrow('seedColumns.a must start with "same quantity" or "stand-in:" (got 3)');
  });

  it('experiments/003-ops-baseline says it of the overhead, Pinpoint and S3 Express columns', () => {
    const spec = loadSpec(path.join(import.meta.dirname, '..', 'experiments', '003-ops-baseline'));
    expect(spec.seedColumns?.map(([c]) => c)).toEqual(['Overhead (ms): n, min, avg, med, p90, p99, max', 'Pinpoint GetEndpoint, PutEvents', 'S3 Express E2E Duration (ms)']);
  });
});
