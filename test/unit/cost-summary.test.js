import { describe, it, expect } from 'vitest';
import { summarize } from '../../src/runs/produce/produce-summary.js';
import { summarizeConsumer } from '../../src/runs/consume/consumer-summary.js';
import { costSummary, flowsOf, flowsOfSummary, liveAt } from '../../src/runs/common/cost-summary.js';
import { costMd } from '../../src/runs/common/cost-md.js';
import { cpuSummary } from '../../src/runs/common/cpu-summary.js';
import { shapeOf } from '../../src/measure/key-memory.js';
import { newHistogram, record } from '../../src/measure/histogram.js';

/**
 * Six seconds of a producer writing 1,000 items a second to a master and its replica: the master
 * busy 20 % of a core (0.2 CPU seconds each second), the replica 10 %, 100 bytes in and 5 out per
 * item, 120 replicated; memory growing by 150 bytes an item from 1 MB.
 */
function seconds({ n = 6, perSec = 1000, master = 0.2, replica = 0.1, withSeconds = true } = {}) {
  return Array.from({ length: n }, (_, index) => ({
    index,
    intended: perSec,
    counters: { acked: perSec, sent: perSec },
    client: { cpuPct: 5, cpuPctMax: 5, loopP99Ms: 1, rssMb: 80, wallMs: 1000 },
    cpu: [
      {
        addr: 'm:1',
        role: 'master',
        shard: 1,
        cpuPct: master * 100,
        enginePct: master * 100,
        ...(withSeconds && { cpuS: master, engineS: master }),
        usedMemory: 1e6 + 150 * perSec * (index + 1),
        netIn: 100 * perSec,
        netOut: 5 * perSec,
        replIn: 0,
        replOut: 120 * perSec,
      },
      {
        addr: 'r:2',
        role: 'replica',
        shard: 1,
        cpuPct: replica * 100,
        enginePct: replica * 100,
        ...(withSeconds && { cpuS: replica, engineS: replica }),
        usedMemory: 9e5 + 150 * perSec * (index + 1),
        netIn: 0,
        netOut: 0,
        replIn: 120 * perSec,
        replOut: 0,
      },
    ],
  }));
}

const starts = new Map([
  ['m:1', { usedMemory: 1e6, keys: 0 }],
  ['r:2', { usedMemory: 9e5, keys: 0 }],
]);

function produced({ ttlS = 10, startsWith = starts, partOf = null, rows = seconds() } = {}) {
  const h = newHistogram();
  record(h, 1500);
  return summarize({
    rows,
    ackedDue: new Map(rows.map((r) => [r.index, 1000])),
    totals: new Map([['batch.intended', h]]),
    warmupS: 1,
    durationS: 6,
    targetRate: 1000,
    writers: 1,
    totalCounts: {},
    errorKinds: {},
    cost: { starts: startsWith, ttlS, partOf },
  });
}

describe('cost per item written', () => {
  it('divides each node’s CPU seconds over the window by the items acknowledged in it, in µs', () => {
    const { cost } = produced();
    expect(cost.items).toBe(5000);
    expect(cost.per).toBe('item written');
    // 0.2 CPU seconds a second for 1,000 items a second: 200 µs an item
    expect(cost.roles.master).toMatchObject({ engineUs: 200, processUs: 200 });
    expect(cost.roles.replica).toMatchObject({ engineUs: 100, processUs: 100 });
  });
  it('counts network bytes per item per role: the clients’ apart from replication’s', () => {
    const { cost } = produced();
    expect(cost.roles.master).toMatchObject({ netIn: 100, netOut: 5, replIn: 0, replOut: 120 });
    expect(cost.roles.replica).toMatchObject({ netIn: 0, netOut: 0, replIn: 120, replOut: 0 });
  });
  it('gives memory per item live at the window’s end: growth from the first reading ÷ items acknowledged within the TTL', () => {
    // the TTL outlives the run: all 6,000 items are live; the memory grew by 150 x 6,000
    expect(produced().cost).toMatchObject({ liveItems: 6000, startedEmpty: true });
    expect(produced().cost.roles.master.memory).toBe(150);
    expect(produced().cost.roles.replica.memory).toBe(150);
    // a 2 s TTL: only the last two seconds' items are live, while memory still grew by all six
    expect(produced({ ttlS: 2 }).cost.liveItems).toBe(2000);
  });
  it('makes no memory figure from a server that held keys before the run', () => {
    const held = new Map([...starts].map(([k, v]) => [k, { ...v, keys: 12 }]));
    const { cost } = produced({ startsWith: held });
    expect(cost.startedEmpty).toBe(false);
    expect(cost.roles.master.memory).toBeNull();
    expect(costMd(cost).join('\n')).toMatch(/held keys before the run/);
  });
  it('adds a role’s nodes together: three masters each at a third of the items cost what one does alone', () => {
    const rows = seconds().map((r) => ({
      ...r,
      cpu: [1, 2, 3].map((shard) => ({ ...r.cpu[0], addr: `m:${shard}`, shard, cpuS: 0.2 / 3, engineS: 0.2 / 3 })),
    }));
    const { cost } = produced({ rows });
    expect(cost.nodes.map((n) => n.engineUs)).toEqual([66.667, 66.667, 66.667]);
    expect(cost.roles.master.engineUs).toBeCloseTo(200, 2);
  });
  it('counts a node’s memory once, in the role it ended in (a replica promoted in a failover)', () => {
    const rows = seconds();
    for (const r of rows.slice(3)) r.cpu[1] = { ...r.cpu[1], role: 'master', shard: 1 };
    const { cost } = produced({ rows });
    const promoted = cost.nodes.filter((n) => n.addr === 'r:2');
    expect(promoted.map((n) => [n.role, n.memory])).toEqual([
      ['master', 150],
      ['replica', null],
    ]);
    expect(cost.roles.master.memory).toBe(300);
    expect(cost.roles.replica.memory).toBeNull();
  });
  it('falls back to the average CPU % when the seconds were not counted (a timeline read back)', () => {
    const { cost } = produced({ rows: seconds({ withSeconds: false }) });
    expect(cost.roles.master.engineUs).toBe(200);
  });
  it('makes no figure per item in a run that is part of one (-a): the server’s work is every part’s', () => {
    const { cost } = produced({ partOf: 'writer 1 of 2' });
    expect(cost.partOf).toBe('writer 1 of 2');
    expect(cost.roles.master.engineUs).toBeNull();
    expect(costMd(cost).join('\n')).toMatch(/not made here: this run is writer 1 of 2/);
  });
  it('leaves a figure out, never as 0, when no second had it', () => {
    const rows = seconds().map((r) => ({ ...r, cpu: r.cpu.map(({ netIn, netOut, replIn, replOut, ...c }) => c) }));
    const { cost } = produced({ rows });
    expect(cost.roles.master.netIn).toBeNull();
    expect(costMd(cost).join('\n')).toMatch(/\| masters \| 200\.00 \| 200\.00 \| – \| – \| – \| – \| 150 \|/);
  });
});

describe('cost per item read', () => {
  it('divides the server’s work over the window by the items the readers read in it, without memory', () => {
    const rows = seconds().map((r) => ({ ...r, counters: { cycles: 10, items: 2000 } }));
    const s = summarizeConsumer({
      rows,
      totals: new Map(),
      warmupS: 1,
      durationS: 6,
      readers: 1,
      periodMs: 100,
      totalCounts: {},
      errorKinds: {},
      measuresUniques: false,
    });
    expect(s.cost).toMatchObject({ per: 'item read', items: 10000, liveItems: null });
    expect(s.cost.roles.master).toMatchObject({ engineUs: 100, netIn: 50, memory: null });
    expect(costMd(s.cost).join('\n')).not.toMatch(/memory/);
  });
});

describe('runs merged', () => {
  it('take one run’s bytes and CPU seconds (they sampled the same nodes) and divide by every run’s items', () => {
    const one = produced().cost;
    const flows = flowsOfSummary(one);
    const merged = costSummary({ cpu: cpuSummary(seconds().slice(1)), flows, items: 10000, per: 'item written', liveItems: 12000 });
    expect(merged.roles.master.engineUs).toBe(100);
    expect(merged.roles.master.netIn).toBe(50);
    expect(merged.roles.master.memory).toBe(75);
  });
  it('flowsOf sums each node’s seconds by role, so a promoted replica’s bytes stay apart', () => {
    const rows = seconds({ n: 2 });
    rows[1].cpu[1] = { ...rows[1].cpu[1], role: 'master', shard: 1 };
    const f = flowsOf(rows);
    expect([...f.keys()]).toHaveLength(3);
    // its memory counts once, in the role it ended in
    expect(f.get('cpu_replica_s1_r:2')?.memoryEnd).toBeNull();
    expect(f.get('cpu_master_s1_r:2')?.memoryEnd).toBe(9e5 + 300_000);
  });
});

describe('items live at the window’s end', () => {
  it('counts the items acknowledged in the TTL before it', () => {
    const due = new Map([
      [0, 10],
      [1, 10],
      [2, 10],
      [3, 10],
    ]);
    expect(liveAt(due, 4, 2)).toBe(20);
    expect(liveAt(due, 4, 100)).toBe(40);
    expect(liveAt(due, 3, 1)).toBe(10);
  });
  it('counts no more than the ids each period writes again (without --verify)', () => {
    const due = new Map([
      [0, 10],
      [1, 10],
      [2, 10],
    ]);
    expect(liveAt(due, 3, 60, 10)).toBe(10);
    expect(liveAt(due, 3, 60, null)).toBe(30);
  });
});

describe('key shapes', () => {
  it('write every run of digits as #, so one structure’s keys are one row', () => {
    expect(shapeOf('item:{3}:1234')).toBe('item:{#}:#');
    expect(shapeOf('latest-ids')).toBe('latest-ids');
    expect(shapeOf('hll:29384756')).toBe('hll:#');
  });
});
