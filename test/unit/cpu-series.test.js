// The S3 emulator's CPU per cell of a load grid (issue 37, point 3): the runner's own CPU time,
// sampled while the step runs, read around each cell's wall-clock window.
import { describe, expect, it } from 'vitest';
import { cpuPctBetween } from '../../src/experiments/kinds/cpu-series.js';

describe('CPU between two instants, from samples of CPU time', () => {
  // 1 s of CPU time per s of wall time from 1,000 to 3,000; idle before and after
  const samples = /** @type {Array<[number, number]>} */ ([
    [0, 5],
    [1000, 5],
    [2000, 6],
    [3000, 7],
    [4000, 7],
  ]);
  it('a window on the samples: % of one core', () => {
    expect(cpuPctBetween(samples, 1000, 3000)).toBe(100);
    expect(cpuPctBetween(samples, 0, 4000)).toBe(50);
  });
  it('a window between samples: on the line between the ones around it', () => {
    expect(cpuPctBetween(samples, 1500, 2500)).toBe(100);
    expect(cpuPctBetween(samples, 500, 1500)).toBe(50);
  });
  it('outside the samples, or an empty window: none', () => {
    expect(cpuPctBetween(samples, -10, 1000)).toBeNull();
    expect(cpuPctBetween(samples, 2000, 5000)).toBeNull();
    expect(cpuPctBetween(samples, 2000, 2000)).toBeNull();
    expect(cpuPctBetween([], 0, 1)).toBeNull();
  });
});
