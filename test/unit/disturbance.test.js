// Disturbances found in the timeline whether or not anyone scripted them, and topology changes
// put into words (issue 12, point 3). Pure logic: hand-made seconds.
import { describe, expect, it } from 'vitest';
import { episodes } from '../../src/runs/common/disturbance.js';
import { episodesMd } from '../../src/runs/common/actions-md.js';
import { diffTopology } from '../../src/measure/topology-diff.js';

const COUNTS = ['moved', 'ask', 'retries', 'tryagain', 'clusterdown', 'conn_retries', 'failed', 'errors'];

/** 20 calm seconds of 1000 items, p99 2 ms, then the changes given by second. */
function seconds(changes = {}) {
  return Array.from({ length: 20 }, (_, index) => {
    const c = changes[index] ?? {};
    return { index, intended: 1000, acked: c.ackedDue ?? 1000, row: { acked: 1000, batch_p99_ms: 2, events: '', ...c.row } };
  });
}

const input = (rows, extra = {}) => ({
  rows,
  t0: 0,
  p99Column: 'batch_p99_ms',
  countColumns: COUNTS,
  ackedColumn: 'acked',
  ackedDue: new Map(rows.map((r) => [r.index, r.acked])),
  ...extra,
});

describe('episodes of disturbed seconds', () => {
  it('none in a calm run', () => {
    expect(episodes(input(seconds()))).toEqual([]);
    expect(episodesMd([], 'writes')[0]).toMatch(/^\*\*Disturbances:\*\* none/);
  });

  it("second 0's tail (connecting, the first unoptimized calls) is the run's start, not a disturbance; its errors still are", () => {
    expect(episodes(input(seconds({ 0: { row: { batch_p99_ms: 40 } } })))).toEqual([]);
    const [e] = episodes(input(seconds({ 0: { row: { batch_p99_ms: 40, errors: 3 } } })));
    expect(e).toMatchObject({ fromS: 0, toS: 0 });
    // from second 1 on, the same tail is one
    expect(episodes(input(seconds({ 1: { row: { batch_p99_ms: 40 } } })))).toMatchObject([{ fromS: 1, toS: 1, p99MaxMs: 40 }]);
  });

  it('a frozen master: nothing acknowledged, CLUSTERDOWN retries, then a promotion, as one unscripted episode', () => {
    const frozen = { ackedDue: 1000, row: { acked: 0, retries: 4000, clusterdown: 4000, batch_p99_ms: 2 } };
    const rows = seconds({
      4: { row: { events: '127.0.0.1:7000 (master, shard 1) is not answering' } },
      5: frozen,
      6: frozen,
      7: frozen,
      8: {
        row: {
          acked: 3000,
          retries: 100,
          clusterdown: 100,
          batch_p99_ms: 4100,
          events: '127.0.0.1:7003 promoted: replica → master of shard 1',
        },
      },
    });
    const [e, more] = episodes(input(rows));
    expect(more).toBeUndefined();
    expect(e).toMatchObject({ fromS: 5, toS: 8, seconds: 4, noneAckedS: 3, p99MaxMs: 4100, p99CalmMs: 2, actions: [] });
    expect(e.counts).toMatchObject({ retries: 12_100, clusterdown: 12_100, failed: 0 });
    expect(e.events).toEqual([
      '+4 s: 127.0.0.1:7000 (master, shard 1) is not answering',
      '+8 s: 127.0.0.1:7003 promoted: replica → master of shard 1',
    ]);
    const md = episodesMd([e], 'writes').join('\n');
    expect(md).toMatch(
      /- seconds 5–8 \(4 s\): retries 12,100, CLUSTERDOWN 12,100; nothing acknowledged in 3 s; p99 up to 4100\.0 ms \(calm: 2\.0 ms\)\. Not scripted\. Seen meanwhile: \+4 s: .*is not answering; \+8 s: .*promoted/,
    );
  });

  it('seconds a few apart are one episode; farther apart, two; an --at action is named', () => {
    const blip = { row: { conn_retries: 3, retries: 3 } };
    const rows = seconds({ 3: blip, 6: blip, 14: { ackedDue: 400 } });
    const list = episodes(input(rows, { actions: [{ text: '13:failover', startMs: 13_200, endMs: 14_000 }] }));
    expect(list.map((e) => [e.fromS, e.toS, e.actions])).toEqual([
      [3, 6, []],
      [14, 14, ['13:failover']],
    ]);
    expect(list[1].minAckedPct).toBe(40);
  });

  it('a p99 far above the calm one is a disturbance, a small wobble is not', () => {
    const rows = seconds({ 9: { row: { batch_p99_ms: 5 } }, 12: { row: { batch_p99_ms: 60 } } });
    expect(episodes(input(rows)).map((e) => e.fromS)).toEqual([12]);
  });

  it("a kind's own least rise: a consumer's 4 ms cycles with one of 12 ms in a second are calm at 25 ms, not at 5", () => {
    const rows = seconds({ 8: { row: { batch_p99_ms: 12 } }, 15: { row: { batch_p99_ms: 300 } } });
    expect(episodes(input(rows)).map((e) => e.fromS)).toEqual([8, 15]);
    expect(episodes(input(rows, { minRiseMs: 25 })).map((e) => e.fromS)).toEqual([15]);
  });
});

describe("a consumer's staleness and read rate against their calm level", () => {
  const LEVELS = [
    { column: 'staleness_p99_ms', kind: 'tail' },
    { column: 'items', kind: 'rate', cycles: 'cycles' },
  ];
  /** 20 seconds of a consumer: `cycles` cycles a second of 15,000 items each, staleness p99 37 ms, then the changes. */
  function reads(changes = {}, cycles = 4) {
    return Array.from({ length: 20 }, (_, index) => ({
      index,
      intended: 0,
      row: { cycles, items: cycles * 15_000, cycle_p99_ms: 20, staleness_p99_ms: 37, errors: 0, events: '', ...changes[index] },
    }));
  }
  const consumer = (rows) => ({
    rows,
    t0: 0,
    p99Column: 'cycle_p99_ms',
    countColumns: ['errors', 'failed_cycles', 'replica_fallbacks'],
    levels: LEVELS,
  });

  it('none in a calm run, and the levels are in each episode only when the kind judges them', () => {
    expect(episodes(consumer(reads()))).toEqual([]);
    expect(episodesMd([], 'reads')[0]).toMatch(/nor a staleness far above or a read rate far below its calm level\.$/);
    // a producer's episodes keep their shape
    const [e] = episodes(input(seconds({ 5: { row: { failed: 3 } } })));
    expect(e).not.toHaveProperty('levels');
  });

  it('a master frozen under a reader of its replica: cycles as fast as ever, staleness seconds old, the read rate down', () => {
    const frozen = (staleness, items) => ({ staleness_p99_ms: staleness, items });
    const rows = reads({ 10: frozen(990, 41_000), 11: frozen(1_990, 30_000), 12: frozen(2_939, 17_000), 13: frozen(45, 60_000) });
    const [e, more] = episodes(consumer(rows));
    expect(more).toBeUndefined();
    expect(e).toMatchObject({ fromS: 10, toS: 12, counts: { errors: 0 }, p99CalmMs: 20 });
    expect(e.levels).toEqual([
      { column: 'staleness_p99_ms', kind: 'tail', worst: 2939, calm: 37 },
      { column: 'items', kind: 'rate', worst: 17_000, calm: 60_000 },
    ]);
    expect(episodesMd([e], 'reads').join('\n')).toMatch(
      /- seconds 10–12 \(3 s\): p99 up to 20\.0 ms \(calm: 20\.0 ms\); staleness p99 up to 2939\.0 ms \(calm: 37\.0 ms\); items read down to 17,000\/s \(calm: 60,000\/s\)\. Not scripted\./,
    );
  });

  it("the run's start is no departure: a consumer started before its producer reads nothing, then old items, then its calm", () => {
    const rows = reads({ 0: { items: 0, staleness_p99_ms: null }, 1: { items: 4_000, staleness_p99_ms: 8_278 }, 2: { items: 30_000 } });
    expect(episodes(consumer(rows))).toEqual([]);
  });

  it("cycles longer than a second are the consumer's rhythm: a second that ends none is not a fall", () => {
    // one reader, a cycle every 1.5 s: seconds end 1, 1, 0, … cycles
    const rhythm = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [i, i % 3 === 2 ? { cycles: 0, items: 0, cycle_p99_ms: null } : { cycles: 1, items: 60_000 }]),
    );
    expect(episodes(consumer(reads(rhythm, 1)))).toEqual([]);
    // …and the same reader that stops reading for five seconds is disturbed
    for (let i = 10; i < 15; i++) rhythm[i] = { cycles: 0, items: 0, cycle_p99_ms: null };
    const [e] = episodes(consumer(reads(rhythm, 1)));
    expect(e.levels).toEqual([{ column: 'items', kind: 'rate', worst: 0, calm: expect.any(Number) }]);
  });
});

describe('topology changes in words', () => {
  const before = [
    { addr: 'a:1', role: 'master', shard: 1 },
    { addr: 'b:2', role: 'replica', shard: 1 },
    { addr: 'c:3', role: 'master', shard: 2 },
  ];
  it('a promotion, a failure, a node gone, a node joined', () => {
    const after = [
      { addr: 'a:1', role: 'master', shard: 1, failed: true },
      { addr: 'b:2', role: 'master', shard: 1 },
      { addr: 'd:4', role: 'replica', shard: 1 },
    ];
    expect(diffTopology(before, after)).toEqual([
      'a:1 (master, shard 1) marked failed by the cluster',
      'b:2 promoted: replica → master of shard 1',
      'd:4 joined as replica of shard 1',
      'c:3 (master, shard 2) no longer listed',
    ]);
  });
  it('nothing when nothing changed', () => {
    expect(
      diffTopology(
        before,
        before.map((n) => ({ ...n })),
      ),
    ).toEqual([]);
  });
});
