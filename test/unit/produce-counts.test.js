// A counted produce step (count:) read back the way an experiment reads it: its metrics (counts
// kept, Valgrind's CPU and latencies left out) and its row of the Results' counted table, from the
// summary of a real counted run (test/fixtures/counted/README.md says how it was made).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COUNTS, stepMetrics } from '../../src/experiments/kinds/produce-metrics.js';
import { metricsOf } from '../../src/experiments/kinds/produce-kind.js';
import { countsTable } from '../../src/experiments/kinds/produce-counts.js';

const recorded = JSON.parse(fs.readFileSync(new URL('../fixtures/counted/list-hll-x60.json', import.meta.url), 'utf8'));
// a counted run's summary also has CPU figures: Valgrind's, which no experiment figure may use
const summary = { ...recorded, cpu: { master: 99.5, replica: 80.1, nodes: [] }, cost: { roles: { master: { engineUs: 450 } } } };
const step = { name: 'list_hll_ir', label: 'List + HLL, counted', count: { timeScale: 60 }, flags: { slh: true } };

describe('a counted step read back', () => {
  it("gives Redis's instructions per item per role and the master's system calls per item", () => {
    const m = stepMetrics(summary);
    expect(m.master_ir_per_item).toBe(14833.7);
    expect(m.replica_ir_per_item).toBe(10742.4);
    expect(m.master_syscalls_per_item).toBe(0.142);
    expect(COUNTS).toEqual(['master_ir_per_item', 'replica_ir_per_item', 'master_syscalls_per_item']);
  });

  it("leaves out a counted step's CPU and latency figures (Valgrind's), and keeps them for a timed step", () => {
    const counted = metricsOf(null)({ step, r: { producer: summary } });
    expect(counted.master_ir_per_item).toBe(14833.7);
    expect(counted.master_cpu).toBeUndefined();
    expect(counted.master_us_per_item).toBeUndefined();
    const timed = metricsOf(null)({ step: { ...step, count: null }, r: { producer: summary } });
    expect(timed.master_cpu).toBe(99.5);
    expect(timed.master_us_per_item).toBe(450);
  });

  it('has a row in the counted table, with the master split by command; a step not run yet says so', () => {
    const lines = countsTable([
      { step, r: { complete: true, producer: summary } },
      { step: { ...step, label: 'List, counted' }, r: null },
      { step: { name: 'list', label: 'List', count: null, flags: {} }, r: { complete: true, producer: summary } },
    ]);
    expect(lines[0]).toBe('### Instructions per item (counted steps)');
    const rows = lines[2].split('\n');
    expect(rows).toHaveLength(4); // header, rule, two counted steps (the timed one has no row here)
    expect(rows[2]).toBe(
      '| List + HLL, counted | x60 | 175,454 | 14834 | 10742 | 4136 | SETEX 4109, LPUSH 883, PFADD 135 | 4266 | 0.142 | 431 |',
    );
    expect(rows[3]).toMatch(/^\| List, counted \| x60 \| not run yet \|/);
  });

  it('is absent from a spec without a counted step', () => {
    expect(countsTable([{ step: { ...step, count: null }, r: null }])).toEqual([]);
  });
});
