import { describe, it, expect } from 'vitest';
import { summarize } from '../../src/runs/produce/produce-summary.js';
import { summarizeConsumer } from '../../src/runs/consume/consumer-summary.js';
import { renderSummaryMd } from '../../src/runs/produce/produce-summary-md.js';
import { newHistogram, record } from '../../src/measure/histogram.js';

function rows({ acked, masterCpu, clientCpu = 20, loop = 1, capWaitMs = 0, n = 5, retries = 0, cpuOf = () => masterCpu }) {
  return Array.from({ length: n }, (_, index) => ({
    index,
    intended: 1000,
    counters: { acked, capWaitMs, sent: 1000, retries },
    client: { cpuPct: clientCpu, cpuPctMax: clientCpu, loopP99Ms: loop, rssMb: 80, wallMs: 1000 },
    cpu: [
      { addr: 'a:1', role: 'master', shard: 1, cpuPct: cpuOf(index) },
      { addr: 'b:2', role: 'replica', shard: 1, cpuPct: masterCpu / 2 },
    ],
  }));
}

function run(opts) {
  const h = newHistogram();
  record(h, 1500);
  const ackedDue = new Map(Array.from({ length: 5 }, (_, i) => [i, opts.acked]));
  return summarize({
    rows: rows(opts),
    ackedDue,
    totals: new Map([['batch.intended', h]]),
    warmupS: 1,
    durationS: 5,
    targetRate: 1000,
    writers: 2,
    totalCounts: { failed: opts.failed ?? 0 },
    errorKinds: {},
    unreachable: opts.unreachable,
  });
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
  it('tells a load generator busy retrying from one that is too small', () => {
    // a tenth of a resend per item sent or more: the CPU went into retries
    const retrying = run({ acked: 500, masterCpu: 20, clientCpu: 96, retries: 1500, failed: 300 });
    expect(retrying.retrying).toEqual({ resends: 6000, sent: 4000, perItem: 1.5 });
    expect(retrying.verdict).toBe(
      'rate not held: 50.0% of target, 300 items failed; the load generator was busy retrying (6000 resends for 4000 items sent), not the bottleneck',
    );
    expect(run({ acked: 500, masterCpu: 20, clientCpu: 96, retries: 50 }).verdict).toMatch(
      /^client-bound: 50\.0% of target; the load generator was the bottleneck/,
    );
  });
  it('a target that stopped answering is the verdict, whatever else', () => {
    const s = run({ acked: 400, masterCpu: 20, clientCpu: 96, retries: 9000, failed: 2400, unreachable: { silentS: 11.8 } });
    expect(s.verdict).toBe(
      "target unreachable: no node answered for 11.8 s and the run stopped; 40.0% of the window's items acknowledged, 2400 items failed",
    );
  });
  it('gives each node its coverage and marks a role built from less than 90% of its seconds', () => {
    const s = run({ acked: 1000, masterCpu: 40, cpuOf: (i) => (i === 3 ? null : 40) });
    expect(s.cpu.nodes.find((n) => n.role === 'master')).toMatchObject({ samples: 3, gaps: 1, coverage: 0.75, avg: 40 });
    expect(s.cpu.partial).toEqual({ master: ['a:1'], replica: [] });
    expect(s.cpu.gaps).toBe(1);
    const md = renderSummaryMd({ name: 'x', description: 'd' }, s);
    expect(md).toContain('| 2 | 500 | 40.0† | 20.0 |');
    expect(md).toContain("† built from less than 90% of the window's seconds for a:1 (master)");
    expect(md).toContain('| a:1 | master | 1 | 40.0 | 40.0 | 75% (1 gap) † |');
  });
  it('renders the seed table first', () => {
    const md = renderSummaryMd({ name: 'x', description: 'd' }, run({ acked: 1000, masterCpu: 44.5 }));
    expect(md).toContain(
      '| Writers | Items per writer per sec | master CPU | replica CPU |\n| --- | ---: | ---: | ---: |\n| 2 | 500 | 44.5 | 22.3 |',
    );
  });
});

describe('why a consumer found values missing', () => {
  /** One window second of a consumer: `cycles` cycles of `items` items each, `missing` of them gone. */
  function consumer({ items, missing, cycleMs, ttlS, limit = 0, readFrom = 'replica', card = items, keyTtl = null }) {
    const h = newHistogram();
    record(h, cycleMs * 1000);
    const row = (index) => ({
      index,
      intended: 0,
      counters: { cycles: 2, items: 2 * items, fetched: 2 * (items - missing), missing: 2 * missing, cardinality: 2 * card },
      client: { cpuPct: 5, cpuPctMax: 5, loopP99Ms: 1, rssMb: 80, wallMs: 1000 },
      cpu: [],
    });
    return summarizeConsumer({
      rows: [row(0), row(1), row(2)],
      totals: new Map([['cycle.sent', h]]),
      warmupS: 1,
      durationS: 3,
      readers: 1,
      periodMs: 500,
      totalCounts: {},
      errorKinds: {},
      measuresUniques: false,
      ttlS,
      keyTtl,
      limit,
      readFrom,
    });
  }
  it('expiry, when the TTL and the cycle time allow that many', () => {
    // 3 s TTL, 450 ms cycles: the oldest 15% of 300k live items are within a cycle of expiry
    const s = consumer({ items: 300_000, missing: 20_000, cycleMs: 450, ttlS: 3 });
    expect(s.missingWhy).toMatch(
      /^expired between range and fetch \(with --ttl 3 and cycles of up to 450 ms, about 45004\.7 items per cycle are that close to expiry\)$/,
    );
    expect(s.verdict).toMatch(/20000 items per cycle missing: expired between range and fetch/);
  });
  it('not expiry, when the TTL cannot explain them: lost, not yet replicated, or a shorter TTL than --ttl says', () => {
    const s = consumer({ items: 10_000, missing: 400, cycleMs: 80, ttlS: 300 });
    expect(s.missingWhy).toMatch(
      /^more than expiry explains with --ttl 300 \(cycles of up to 80(\.\d)? ms: at most about 2\.7 items per cycle are that close to expiry\): the rest were not yet on the replica read, lost, or their keys expire sooner than --ttl says$/,
    );
    // the newest 1000 of 10k live items are nowhere near expiry
    expect(consumer({ items: 1000, card: 10_000, missing: 3, cycleMs: 80, ttlS: 3, limit: 1000, readFrom: 'master' }).missingWhy).toMatch(
      /^more than expiry explains.*the rest were lost, or their keys/,
    );
  });
  it("the keys' own TTL, when it was sampled, decides: --ttl is only the window the consumer reads", () => {
    // the held-out case: --ttl 3, 200 ms cycles, 1,300 of 20k missing would pass for expiry, but the keys live 300 s
    const base = { items: 20_000, missing: 1300, cycleMs: 200, ttlS: 3 };
    expect(consumer(base).missingWhy).toMatch(/^expired between range and fetch \(with --ttl 3 /);
    const long = consumer({ ...base, keyTtl: { sampled: 32, present: 32, noExpiry: 0, maxS: 300 } });
    expect(long.missingWhy).toBe(
      'not expiry: the item keys live at least 300 s (their PTTL, 32 of the newest 32 keys read back after the run), longer than the 3 s the consumer reads back (--ttl), so none read was close to expiring; the missing ones were not yet on the replica read, or lost (evicted, deleted, never written)',
    );
    expect(long.keyTtl.maxS).toBe(300);
    expect(consumer({ ...base, readFrom: 'master', keyTtl: { sampled: 32, present: 30, noExpiry: 30, maxS: null } }).missingWhy).toBe(
      'not expiry: the item keys have no TTL (30 of the newest 32 keys read back after the run); the missing ones were lost (evicted, deleted, never written)',
    );
    // keys that live 2 s read with --ttl 3: the window's oldest third is gone before the range
    const short = { ...base, missing: 7000, keyTtl: { sampled: 32, present: 32, noExpiry: 0, maxS: 2 } };
    expect(consumer(short).missingWhy).toMatch(
      /^expired: the item keys live about 2 s \(their PTTL, 32 of the newest 32 keys read back after the run\), less than the 3 s the consumer reads back \(--ttl\), so about 866\d\.\d items per cycle had expired or were within a cycle of it$/,
    );
    // …and far more missing than that is not expiry, said with the keys' TTL
    expect(consumer({ ...short, items: 20_000, missing: 19_000 }).missingWhy).toMatch(
      /^more than expiry explains with keys that live about 2 s \(their PTTL, 32 of the newest 32 keys read back after the run; --ttl 3\)/,
    );
    // none of the sampled keys there: nothing known about their TTL, --ttl is what is said
    expect(consumer({ ...base, keyTtl: { sampled: 32, present: 0, noExpiry: 0, maxS: null } }).missingWhy).toMatch(
      /^expired between range and fetch \(with --ttl 3 /,
    );
  });
});
