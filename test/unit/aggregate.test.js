import { describe, it, expect } from 'vitest';
import { IntervalMerger } from '../../src/measure/aggregate.js';
import { newHistogram, record, stats } from '../../src/measure/histogram.js';
import { toSparse, fromSparse } from '../../src/measure/sparse.js';

function interval(index, values, { final = false, acked = values.length } = {}) {
  const h = newHistogram();
  for (const v of values) record(h, v);
  return {
    index,
    final,
    intended: 10,
    counters: { sent: acked, acked, failed: 0, errorKinds: { MOVED: 1 } },
    ackedDue: { [index]: acked },
    hist: { 'batch.intended': toSparse(h) },
    client: { cpuPct: 10, loopP99Ms: 1, rssMb: 50, wallMs: 1000 },
  };
}

describe('sparse transfer', () => {
  it('rebuilds a histogram exactly', () => {
    const h = newHistogram();
    for (let v = 1; v < 200000; v += 37) record(h, v, 1 + (v % 5));
    const back = fromSparse(toSparse(h));
    expect(back.totalCount).toBe(h.totalCount);
    expect(stats(back)).toEqual(stats(h));
  });
});

describe('IntervalMerger', () => {
  it('emits second i once every writer reported it, with counts summed and histograms added exactly', () => {
    const out = [];
    const m = new IntervalMerger(3, (iv) => out.push(iv));
    const all = [];
    const vals = (w) => Array.from({ length: 1000 }, (_, i) => (w + 1) * 1000 + i * 13);
    m.add(0, interval(0, vals(0)));
    m.add(1, interval(0, vals(1)));
    expect(out).toHaveLength(0);
    m.add(2, interval(0, vals(2)));
    expect(out).toHaveLength(1);
    for (let w = 0; w < 3; w++) all.push(...vals(w));
    const one = newHistogram();
    for (const v of all) record(one, v);
    const merged = out[0].hist.get('batch.intended');
    expect(merged.totalCount).toBe(3000);
    expect(stats(merged)).toEqual(stats(one));
    expect(out[0].counters.acked).toBe(3000);
    expect(out[0].intended).toBe(30);
    expect(out[0].ackedDue).toEqual({ 0: 3000 });
    expect(out[0].errorKinds).toEqual({ MOVED: 3 });
    expect(out[0].client.cpuPct).toBe(30);
    expect(out[0].client.cpuPctMax).toBe(10);
  });
  it('does not wait for a writer that finished or died', () => {
    const out = [];
    const m = new IntervalMerger(2, (iv) => out.push(iv.index));
    m.add(0, interval(0, [5]));
    m.add(1, interval(0, [5]));
    m.add(0, interval(1, [5], { final: true }));
    expect(out).toEqual([0]);
    m.finish(1);
    expect(out).toEqual([0, 1]);
  });
});
