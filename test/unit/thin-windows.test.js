// A figure from too short a window is flagged where it is printed: a load cell under 1 s, a
// percentile with fewer than 10 samples beyond it. (A real load run's summary.md with its short
// cells flagged: test/integration/load.test.js.)
import { describe, expect, it } from 'vitest';
import { BEYOND_MIN, isThin, pctCell } from '../../src/runs/common/thin-percentiles.js';
import { loadTable } from '../../src/runs/load/load-table.js';
import { latencyTable } from '../../src/runs/ops/ops-table.js';

describe('a percentile from too few samples', () => {
  it('needs 10 samples beyond it: p50 20, p90 100, p99 1,000, p99.9 10,000', () => {
    expect(BEYOND_MIN).toBe(10);
    for (const [q, enough] of [
      [0.5, 20],
      [0.9, 100],
      [0.99, 1000],
      [0.999, 10000],
    ]) {
      expect(isThin(enough - 1, q), `${q} at ${enough - 1}`).toBe(true);
      expect(isThin(enough, q), `${q} at ${enough}`).toBe(false);
    }
    expect(pctCell('4.100', 50, 0.99)).toBe('4.100 ⚠');
    expect(pctCell('4.100', 5000, 0.99)).toBe('4.100');
    expect(pctCell('-', 0, 0.99)).toBe('-');
  });

  it('is flagged in the per-operation table, with the note under it; enough calls, no flag', () => {
    const stats = (count) => ({ count, min: 0.1, mean: 0.2, p50: 0.2, p90: 0.3, p99: 0.5, max: 0.9 });
    const thin = latencyTable([{ service: 'Redis', ops: [{ name: 'GET', stats: stats(500), connectMs: 1, firstMs: 1 }] }]);
    expect(thin).toMatch(/\| {3}—GET +\| +\| +500 \| 0\.100 \| 0\.200 \| +0\.200 \| +0\.300 \| 0\.500 ⚠ \| 0\.900 \|/);
    expect(thin).toContain('⚠ fewer than 10 calls lie beyond this percentile');
    const plenty = latencyTable([{ service: 'Redis', ops: [{ name: 'GET', stats: stats(5000), connectMs: 1, firstMs: 1 }] }]);
    expect(plenty).not.toContain('⚠');
  });
});

describe('a load cell under a second', () => {
  it('is flagged beside its time and rate, with the note under the table', () => {
    const md = loadTable([
      { threads: 1, connections: 1, loadS: 0.03, recordsPerSec: 13_200_000 },
      { threads: 2, connections: 1, loadS: 1.5, recordsPerSec: 300_000 },
    ]);
    expect(md).toContain('| 1 | 1 | 0.03 sec ⚠ | 13,200 k/s ⚠ |');
    expect(md).toContain('| 2 | 1 | 1.50 sec | 300 k/s |');
    expect(md).toMatch(/⚠ 1 of 2 cells loaded in under 1 s: a window that short is decided by start-up/);
    expect(loadTable([{ threads: 1, connections: 1, loadS: 2, recordsPerSec: 1 }])).not.toContain('⚠');
  });
});
