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
    expect(COUNTS).toEqual([
      'master_ir_per_item',
      'replica_ir_per_item',
      'top_master_ir_per_item',
      'top_master_ir_share',
      'master_syscalls_per_item',
    ]);
    // one master: it is the busiest, with all of the masters' work
    expect(m.top_master_ir_per_item).toBe(14833.7);
    expect(m.top_master_ir_share).toBe(1);
  });

  it("on a cluster, the busiest master's instructions per item and its share of the masters' (as top_master_share is of CPU)", () => {
    const node = (addr, role, shard, irPerItem) => ({ addr, role, shard, irPerItem });
    const nodes = [node('a', 'master', 0, 4000), node('b', 'master', 1, 9000), node('c', 'master', 2, 3000), node('d', 'replica', 1, 7000)];
    const m = stepMetrics({ instructions: { nodes, roles: { master: { irPerItem: 16000 } } } });
    expect(m.top_master_ir_per_item).toBe(9000);
    expect(m.top_master_ir_share).toBe(0.5625);
    expect(m.master_ir_per_item).toBe(16000);
    expect(stepMetrics({}).top_master_ir_share).toBeUndefined();
  });

  it("leaves out a counted step's CPU and latency figures (Valgrind's), and keeps them for a timed step", () => {
    const counted = metricsOf(null)({ step, r: { producer: summary } });
    expect(counted.master_ir_per_item).toBe(14833.7);
    // a share of instructions is a count's, not Valgrind's CPU: kept
    expect(counted.top_master_ir_share).toBe(1);
    expect(counted.top_master_share).toBeUndefined();
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

  it("on a cluster, a column with each master's instructions per item and its share, in shard order", () => {
    const nodes = [
      { addr: 'b', role: 'master', shard: 1, irPerItem: 9000 },
      { addr: 'a', role: 'master', shard: 0, irPerItem: 4000 },
      { addr: 'c', role: 'master', shard: 2, irPerItem: 3000 },
    ];
    const clustered = { ...summary, instructions: { ...summary.instructions, nodes } };
    const lines = countsTable([
      { step, r: { complete: true, producer: clustered } },
      { step: { ...step, label: 'List, counted' }, r: null },
    ]);
    const rows = lines[2].split('\n');
    expect(rows[0]).toMatch(/\| replica instructions\/item \| each master \(shard order\), share of the masters \| master read\+parse \|/);
    expect(rows[2]).toMatch(
      /^\| List \+ HLL, counted \| x60 \| 175,454 \| 14834 \| 10742 \| 4000 \(25%\) \/ 9000 \(56%\) \/ 3000 \(19%\) \| 4136 \|/,
    );
    expect(rows[3].split('|').length).toBe(rows[2].split('|').length);
  });

  it('is absent from a spec without a counted step', () => {
    expect(countsTable([{ step: { ...step, count: null }, r: null }])).toEqual([]);
  });
});
