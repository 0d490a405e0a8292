// The percentile spectrum against wrk2's own code: the fixture is what wrk2's bundled
// HdrHistogram_c (hdr_percentiles_print(h, stdout, 5, 1000.0, CLASSIC), compiled with gcc/glibc)
// printed for the same recorded values. Byte for byte, footer included.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { newHistogram, record } from '../../src/measure/histogram.js';
import { percentileSpectrum, printfFixed } from '../../src/report/spectrum.js';

const GOLDEN = fs.readFileSync(new URL('../fixtures/spectrum-wrk2-c.txt', import.meta.url), 'utf8');

describe('percentile spectrum', () => {
  it("prints what wrk2's HdrHistogram_c prints for the same values", () => {
    const h = newHistogram();
    for (let i = 0; i < 5000; i++) record(h, 1000 + ((i * 7919) % 50000));
    for (const v of [250_000, 1_000_000, 3_000_000]) record(h, v);
    expect(percentileSpectrum(h)).toBe(GOLDEN);
  });

  it('has one value: one line at 0% and the 100% line', () => {
    const h = newHistogram();
    record(h, 1234);
    expect(percentileSpectrum(h).split('\n').slice(3, 5)).toEqual([
      '       1.234     0.000000            1         1.00',
      '       1.234     1.000000            1          inf',
    ]);
  });

  it("rounds exact ties to even as glibc's printf does", () => {
    expect(printfFixed(0.125, 2)).toBe('0.12');
    expect(printfFixed(0.375, 2)).toBe('0.38');
    expect(printfFixed(2.5, 0)).toBe('2');
    expect(printfFixed(1.005, 2)).toBe((1.005).toFixed(2)); // not a tie in binary
    expect(printfFixed(Infinity, 2)).toBe('inf');
  });
});
