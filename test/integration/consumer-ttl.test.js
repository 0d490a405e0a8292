// The consumer explains missing values truly (issue 26, point 5): its --ttl is only the window it
// reads, the producer set the keys' TTL. Items written with a 300 s TTL cannot expire while a
// consumer with --ttl 3 reads them, so when values go missing for another reason (here: the
// server evicts item keys under a maxmemory set from outside, the index keeps their members) the
// summary says it was not expiry, naming the keys' sampled TTL. Real processes, a real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { consume, describeConsumer } from '../helpers/consumer-run.js';
import { describeRun, produce, removeTempDirs } from '../helpers/producer-run.js';
import { standaloneClient } from '../helpers/redis-check.js';

let local;
let c;

beforeAll(async () => {
  local = await startRedis();
  c = await standaloneClient(local.port);
}, 30_000);

afterAll(async () => {
  c?.disconnect();
  await local?.stop();
  removeTempDirs();
});

describe('values missing for a reason other than expiry', () => {
  it('keys evicted under maxmemory while written with a 300 s TTL: the consumer does not blame --ttl 3', async () => {
    // a little room above what the server holds now: fresh ids each period (--verify, ~1.6 MB/s) fill
    // it within a few seconds, then the server evicts the keys nearest their expiry (volatile-ttl):
    // the oldest item keys, the very ones an expiry at the edge of the read window would take
    const used = Number(/used_memory:(\d+)/.exec(await c.info('memory'))[1]);
    await c.config('SET', 'maxmemory', String(used + 5 * 2 ** 20));
    await c.config('SET', 'maxmemory-policy', 'volatile-ttl');
    const writing = produce({ port: local.port, q: 5000, d: 8, ttl: 300, extra: ['--verify'] });
    await new Promise((r) => setTimeout(r, 3500));
    const r = await consume({ port: local.port, ttl: 3, d: 3, warmup: 1 });
    const p = await writing;
    expect(p.summary?.verify?.lost, `the producer's own read-back sees the eviction: ${describeRun(p)}`).toBeGreaterThan(0);
    const s = r.summary;
    expect(s.perCycle.missing, describeConsumer(r)).toBeGreaterThan(0);
    // the keys' TTL as the server has it: far longer than the 3 s read
    expect(s.keyTtl.present, JSON.stringify(s.keyTtl)).toBeGreaterThan(0);
    expect(s.keyTtl.maxS).toBeGreaterThan(250);
    expect(s.keyTtl.maxS).toBeLessThanOrEqual(300);
    expect(s.missingWhy).toMatch(
      /^not expiry: the item keys live at least \d+ s \(their PTTL, \d+ of the newest \d+ keys read back after the run\), longer than the 3 s the consumer reads back \(--ttl\), so none read was close to expiring; the missing ones were lost \(evicted, deleted, never written\)$/,
    );
    expect(s.verdict).not.toMatch(/expired between range and fetch/);
    // the consumer did what it was asked: it read and counted; the missing values are the finding
    expect(r.code, describeConsumer(r)).toBe(0);
  }, 60_000);
});
