import { describe, it, expect } from 'vitest';
import { summarize } from '../src/results/summary.js';
import { renderSummaryMd } from '../src/results/summary-md.js';
import { newHistogram, record } from '../src/measure/histogram.js';

function rows({ acked, masterCpu, clientCpu = 20, loop = 1, capWaitMs = 0, n = 5 }) {
  return Array.from({ length: n }, (_, index) => ({
    index, intended: 1000, counters: { acked, capWaitMs },
    client: { cpuPct: clientCpu, cpuPctMax: clientCpu, loopP99Ms: loop, rssMb: 80, wallMs: 1000 },
    cpu: [{ addr: 'a:1', role: 'master', shard: 1, cpuPct: masterCpu }, { addr: 'b:2', role: 'replica', shard: 1, cpuPct: masterCpu / 2 }],
  }));
}

function run(opts) {
  const h = newHistogram();
  record(h, 1500);
  const ackedDue = new Map(Array.from({ length: 5 }, (_, i) => [i, opts.acked]));
  return summarize({ rows: rows(opts), ackedDue, totals: new Map([['batch.intended', h]]), warmupS: 1, durationS: 5, targetRate: 1000, writers: 2, totalCounts: { failed: 0 }, errorKinds: {} });
}

describe('summary verdict', () => {
  it('says the rate was held and averages CPU per role over the window only', () => {
    const s = run({ acked: 1000, masterCpu: 40 });
    expect(s.window.seconds).toBe(4);
    expect(s.achieved.itemsPerSec).toBe(1000);
    expect(s.achieved.itemsPerWriterPerSec).toBe(500);
    expect(s.cpu).toMatchObject({ master: 40, replica: 20 });
    expect(s.verdict).toMatch(/^rate held \(100\.0% of target\)$/);
    expect(s.latency.batch.intended.count).toBe(1);
  });
  it('blames the client when its CPU is saturated', () => {
    expect(run({ acked: 500, masterCpu: 40, clientCpu: 99 }).verdict).toMatch(/^client-bound: 50\.0% of target/);
  });
  it('blames the server when a master is saturated or the writers waited on replies', () => {
    expect(run({ acked: 500, masterCpu: 97 }).verdict).toMatch(/^server-bound: 50\.0%.*97% of a core/);
    const waited = run({ acked: 500, masterCpu: 60, capWaitMs: 1200 });
    expect(waited.inflightWaitShare).toBe(0.6);
    expect(waited.verdict).toMatch(/^server-bound.*waited for replies 60%/);
  });
  it('renders the seed table first', () => {
    const md = renderSummaryMd({ name: 'x', description: 'd' }, run({ acked: 1000, masterCpu: 44.5 }));
    expect(md).toContain('| Writers | Items per writer per sec | master CPU | replica CPU |\n| --- | ---: | ---: | ---: |\n| 2 | 500 | 44.5 | 22.3 |');
  });
});
