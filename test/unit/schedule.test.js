import { describe, it, expect } from 'vitest';
import { idRange, chunkRanges, intendedAt, sendsWithin } from '../../src/harness/schedule.js';

describe('idRange (seed-compatible)', () => {
  it('splits q ids into t consecutive ranges starting at 1, the last writer taking the rest', () => {
    expect(idRange(300000, 8, 1)).toEqual({ min: 1, max: 37500, count: 37500 });
    expect(idRange(300000, 8, 8)).toEqual({ min: 262501, max: 300000, count: 37500 });
    expect(idRange(10, 3, 1)).toEqual({ min: 1, max: 3, count: 3 });
    expect(idRange(10, 3, 3)).toEqual({ min: 7, max: 10, count: 4 });
  });
  it('covers every id exactly once for any q >= t', () => {
    for (const [q, t] of [
      [1, 1],
      [7, 7],
      [100, 7],
      [999, 8],
      [300000, 6],
    ]) {
      const seen = new Set();
      for (let a = 1; a <= t; a++) {
        const { min, max } = idRange(q, t, a);
        for (let id = min; id <= max; id++) seen.add(id);
      }
      expect(seen.size).toBe(q);
      expect(seen.has(1) && seen.has(q) && !seen.has(0) && !seen.has(q + 1)).toBe(true);
    }
  });
  it('rejects a writer outside 1..t and fewer items than writers', () => {
    expect(() => idRange(100, 8, 9)).toThrow(RangeError);
    expect(() => idRange(100, 8, 0)).toThrow(RangeError);
    expect(() => idRange(5, 8, 1)).toThrow(RangeError);
  });
});

describe('chunkRanges', () => {
  it('splits evenly, sizes differing by at most one, covering the range in order', () => {
    const r = chunkRanges(1, 10, 3);
    expect(r).toEqual([
      { lo: 1, hi: 4 },
      { lo: 5, hi: 7 },
      { lo: 8, hi: 10 },
    ]);
  });
  it('terminates and gives one id per chunk when there are more chunks than ids (the seed looped forever)', () => {
    const r = chunkRanges(5, 7, 1000);
    expect(r).toEqual([
      { lo: 5, hi: 5 },
      { lo: 6, hi: 6 },
      { lo: 7, hi: 7 },
    ]);
  });
  it('keeps every id once for many shapes', () => {
    for (const [n, c] of [
      [1, 1],
      [100, 7],
      [37500, 4],
      [10, 10],
      [3, 9],
    ]) {
      const r = chunkRanges(1, n, c);
      const sizes = r.map((x) => x.hi - x.lo + 1);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(n);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      for (let i = 1; i < r.length; i++) expect(r[i].lo).toBe(r[i - 1].hi + 1);
    }
  });
});

describe('intendedAt', () => {
  it('spaces chunks evenly within each period, from a fixed t0', () => {
    expect(intendedAt(1000, 1000, 4, 0)).toBe(1000);
    expect(intendedAt(1000, 1000, 4, 1)).toBe(1250);
    expect(intendedAt(1000, 1000, 4, 4)).toBe(2000);
    expect(intendedAt(0, 1500, 2, 5)).toBe(3 * 1500 - 750);
  });
  it('never drifts: the 1,000,000th send is exactly where arithmetic says', () => {
    expect(intendedAt(0, 1000, 3, 3_000_000)).toBe(1_000_000_000);
  });
});

describe('sendsWithin', () => {
  it('counts sends whose intended time is before the end', () => {
    expect(sendsWithin(1000, 1, 10_000)).toBe(10);
    expect(sendsWithin(1000, 4, 10_000)).toBe(40);
    expect(sendsWithin(1500, 1, 10_000)).toBe(7); // 0, 1.5 … 9 s
    expect(sendsWithin(1000, 1, 0)).toBe(Infinity);
  });
});
