// A consumer whose staleness or read rate departs from its calm level is disturbed (issue 38,
// point 5), as a producer whose batch p99 does is. The fault comes from outside: `DEBUG SLEEP 3`
// on the master while a producer writes to it and a consumer reads its replica. The consumer's
// cycles are as fast as ever (the replica answers), but what they read is seconds old and, its
// 2-second window emptying, less: before, its summary reported no disturbance at all. The same run
// with no fault must report none, so the test fails both ways. Real redis-server processes on
// 127.0.0.1 (a master and its replica), stopped by PID.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeRun, produce, until } from '../helpers/producer-run.js';
import { consume, describeConsumer } from '../helpers/consumer-run.js';
import { standaloneClient } from '../helpers/redis-check.js';
import { useLocalRedis } from '../helpers/local-server.js';

const local = useLocalRedis({ replicas: 1, enableDebug: true });

/** Seconds of the consumer's run at which the master sleeps, and for how long. */
const SLEEP_AT = 5;
const SLEEP_S = 3;

/**
 * A producer writing to the master for the whole run, and, 2 s after it starts, a consumer of the
 * replica (its window: the last 2 s of items, 4 cycles a second); with `sleep`, the master sleeps
 * SLEEP_S seconds at the consumer's second SLEEP_AT.
 * @param {boolean} sleep
 */
async function run(sleep) {
  const master = local.server.nodes.find((n) => n.role === 'master');
  let slept = Promise.resolve(0);
  /** @type {(t0: number) => void} */ let started = () => {};
  const producerT0 = new Promise((resolve) => {
    started = resolve;
  });
  const [p, c] = await Promise.all([
    produce({ port: master.port, q: 2000, d: 16, ttl: 60, extra: ['-c', '10'], onT0: started }),
    producerT0.then(async (t0) => {
      await until(t0 + 2000);
      return consume({
        port: master.port,
        d: 10,
        warmup: 0,
        ttl: 2,
        extra: ['-p', '250', '--read-from', 'replica'],
        onT0: (ct0) => {
          if (!sleep) return;
          slept = until(ct0 + SLEEP_AT * 1000).then(async () => {
            const admin = await standaloneClient(master.port);
            const at = Date.now();
            await admin.call('DEBUG', 'SLEEP', String(SLEEP_S));
            admin.disconnect();
            return Date.now() - at;
          });
        },
      });
    }),
  ]);
  return { p, c, sleptMs: await slept };
}

describe("a consumer's staleness and read rate against their calm level", () => {
  it('a master asleep under a consumer of its replica: an episode named by its staleness and its read rate; exit 0, as for a producer', async () => {
    const { p, c, sleptMs } = await run(true);
    expect(p.code, describeRun(p)).toBe(0);
    expect(sleptMs, 'the master slept').toBeGreaterThanOrEqual(SLEEP_S * 1000 - 50);
    const why = `${describeConsumer(c)}; ${JSON.stringify(c.summary?.disturbances)}`;
    // a disturbance is reported, not a failure: the run did what was asked
    expect(c.code, why).toBe(0);
    const s = c.summary;
    // the replica answered every cycle: no cycle failed, no error, the cycle's own p99 is not what shows it
    expect(s.cycles.failed, why).toBe(0);
    const ep = s.disturbances.find((e) => e.fromS <= SLEEP_AT + 2 && e.toS >= SLEEP_AT + 1);
    expect(ep, why).toBeTruthy();
    expect(ep.fromS, why).toBeGreaterThanOrEqual(SLEEP_AT - 1);
    expect(ep.toS, why).toBeLessThanOrEqual(SLEEP_AT + SLEEP_S + 2);
    const level = (column) => ep.levels.find((l) => l.column === column);
    const stale = level('staleness_p99_ms');
    expect(stale, why).toBeTruthy();
    expect(stale.worst, why).toBeGreaterThan(1000);
    expect(stale.worst, why).toBeGreaterThan(3 * stale.calm);
    const rate = level('items');
    expect(rate, why).toBeTruthy();
    expect(rate.worst, why).toBeLessThan(rate.calm / 3);
    // the same in summary.json, in summary.md, and in what was printed (stdout: --json)
    const onDisk = JSON.parse(fs.readFileSync(path.join(c.dir, 'summary.json'), 'utf8'));
    expect(onDisk.disturbances).toEqual(s.disturbances);
    const md = fs.readFileSync(path.join(c.dir, 'summary.md'), 'utf8');
    expect(md).toMatch(/\*\*Disturbances:\*\* \d+ episode\(s\) when reads were disturbed:/);
    expect(md).toMatch(
      new RegExp(
        `- seconds ${ep.fromS}–${ep.toS} \\(\\d+ s\\): .*staleness p99 up to [\\d.]+ ms \\(calm: [\\d.]+ ms\\); items read down to [\\d,]+/s \\(calm: [\\d,]+/s\\)\\. Not scripted\\.`,
      ),
    );
  }, 90_000);

  it('the same run with no fault: no disturbance', async () => {
    const { p, c } = await run(false);
    expect(p.code, describeRun(p)).toBe(0);
    const why = `${describeConsumer(c)}; ${JSON.stringify(c.summary?.disturbances)}`;
    expect(c.code, why).toBe(0);
    expect(c.summary.totals.items, why).toBeGreaterThan(0);
    expect(c.summary.disturbances, why).toEqual([]);
    const md = fs.readFileSync(path.join(c.dir, 'summary.md'), 'utf8');
    expect(md).toContain('**Disturbances:** none:');
  }, 90_000);
});
