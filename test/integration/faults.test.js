// Faults nobody scripted (issue 12, point 8): while a producer with --verify and a consumer run
// against a local 3-shard cluster, a master is frozen (SIGSTOP) past the node timeout until its
// replica takes over, then every client connection is dropped (CLIENT KILL on every node), then
// every node is killed. Both runs must notice each fault, keep sampling CPU after the drop, list
// the disturbances in their summaries, say on stderr that the target is gone, stop by themselves
// well before their planned end, and exit 1. Real redis-server processes on 127.0.0.1.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startRedis } from '../../src/local/local-redis.js';
import { readTimeline } from '../../src/record/timeline.js';
import { describeRun, produce, removeTempDirs, until } from '../helpers/producer-run.js';
import { consume, describeConsumer } from '../helpers/consumer-run.js';

let local;

beforeAll(async () => {
  local = await startRedis({ cluster: true, masters: 3, replicas: 1 });
}, 60_000);

afterAll(async () => {
  // the test killed every node: stop() finds them gone, and only cleans up
  await local?.stop();
  removeTempDirs();
});

/** Seconds (relative to the producer's t0) of each fault. */
const FREEZE_AT = 4;
const THAW_AT = 10;
const DROP_AT = 16;
const KILL_AT = 23;
const D = 60; // planned: the runs must stop long before

describe('faults from outside', () => {
  it('a frozen master, every connection dropped, every node killed: seen, explained, stopped, exit 1', async () => {
    const frozen = local.nodes.find((n) => n.role === 'master');
    let faults;
    let resolveT0;
    const t0Known = new Promise((r) => {
      resolveT0 = r;
    });
    const started = Date.now();
    const [p, c] = await Promise.all([
      produce({
        port: local.port,
        cluster: true,
        q: 2000,
        d: D,
        ttl: D + 70,
        timeoutMs: 90_000,
        extra: ['-c', '10', '--verify'],
        onT0: (t0) => {
          resolveT0(t0);
          faults = (async () => {
            await until(t0 + FREEZE_AT * 1000);
            process.kill(frozen.pid, 'SIGSTOP');
            await until(t0 + THAW_AT * 1000);
            process.kill(frozen.pid, 'SIGCONT');
            await until(t0 + DROP_AT * 1000);
            let dropped = 0;
            for (const n of local.nodes) {
              const admin = new Redis({ host: '127.0.0.1', port: n.port, lazyConnect: true, maxRetriesPerRequest: 1 });
              admin.on('error', () => {});
              await admin.connect();
              dropped += await admin.client('KILL', 'TYPE', 'normal');
              admin.disconnect();
            }
            await until(t0 + KILL_AT * 1000);
            for (const n of local.nodes) process.kill(n.pid, 'SIGKILL');
            return { dropped };
          })();
        },
      }),
      // the consumer starts with the producer; its own seconds are close to the producer's
      t0Known.then(() =>
        consume({ port: local.port, cluster: true, d: D, warmup: 0, ttl: D + 70, timeoutMs: 90_000, extra: ['-p', '500'] }),
      ),
    ]);
    const { dropped } = await faults;
    expect(dropped, 'writers, readers and samplers were connected when the connections were dropped').toBeGreaterThanOrEqual(6);

    // --- the producer
    const why = describeRun(p);
    const s = p.summary;
    expect(p.code, why).toBe(1);
    expect(Date.now() - started, 'both stopped by themselves long before their planned 60 s').toBeLessThan(55_000);
    expect(p.stderr, why).toMatch(/no node of redis:\/\/127\.0\.0\.1:\d+ has answered for [\d.]+ s, retrying/);
    expect(p.stderr, why).toMatch(/has answered for [\d.]+ s, longer than the retry budget \(11\.6 s\): stopping the run/);
    expect(s.unreachable.silentS).toBeGreaterThanOrEqual(11.5);
    expect(s.verdict).toMatch(/^target unreachable: no node answered for/);
    const problems = s.outcome.problems.join('\n');
    expect(problems).toMatch(/the target did not answer for [\d.]+ s/);
    expect(problems).toMatch(/--verify could not read the items back/);
    // the window ends where the run was stopped, not at the planned 60 s
    expect(s.window.toSecond).toBeGreaterThan(KILL_AT + 10);
    expect(s.window.toSecond).toBeLessThan(KILL_AT + 16);

    // every fault is an episode of the summary, with what the sampler saw
    const eps = s.disturbances;
    const covering = (sec) => eps.find((e) => e.fromS <= sec && e.toS >= sec);
    const freeze = covering(FREEZE_AT + 3);
    expect(freeze, JSON.stringify(eps)).toBeTruthy();
    expect(freeze.noneAckedS + freeze.counts.clusterdown + freeze.counts.retries, JSON.stringify(freeze)).toBeGreaterThan(0);
    expect(freeze.events.join('\n'), JSON.stringify(freeze)).toMatch(new RegExp(`${frozen.port}.*(is not answering|marked failed)`));
    expect(freeze.events.join('\n'), JSON.stringify(freeze)).toMatch(/promoted: replica → master/);
    const dead = covering(KILL_AT + 2);
    expect(dead, JSON.stringify(eps)).toBeTruthy();
    expect(dead.counts.conn_retries, JSON.stringify(dead)).toBeGreaterThan(0);
    expect(dead.events.join('\n')).toMatch(/has answered for/);
    const md = (await import('node:fs')).readFileSync(path.join(p.dir, 'summary.md'), 'utf8');
    expect(md).toMatch(/\*\*Disturbances:\*\* \d+ episode\(s\) when writes were disturbed/);
    expect(md).toMatch(/Not scripted\. Seen meanwhile: .*promoted/);
    expect(md).toMatch(/\*\*Outcome:\*\* exit 1 — /);

    // Redis CPU after the drop: every node not frozen is sampled in every second until the kill
    // (second i is sampled at its end, t0 + i + 1: the one ending at the kill is a race)
    const tl = readTimeline(path.join(p.dir, 'timeline.csv'));
    const steady = tl.nodes.filter(
      (n) => !n.addr.endsWith(`:${frozen.port}`) && tl.rows.some((r) => r.second === DROP_AT && typeof r[n.column] === 'number'),
    );
    expect(steady.length, tl.columns.join(' ')).toBeGreaterThanOrEqual(4);
    for (const n of steady) {
      const cells = tl.rows.filter((r) => r.second >= DROP_AT + 1 && r.second < KILL_AT - 1).map((r) => r[n.column]);
      expect(
        cells.every((v) => typeof v === 'number'),
        `${n.column} after the drop: ${cells}`,
      ).toBe(true);
    }
    // and the figures say they are partial: nothing answered after the kill
    expect(s.cpu.partial.master.length, JSON.stringify(s.cpu.nodes)).toBeGreaterThan(0);
    expect(s.cpu.gaps).toBeGreaterThan(0);

    // --- the consumer
    const cw = describeConsumer(c);
    expect(c.code, cw).toBe(1);
    const cs = c.summary;
    expect(cs.cycles.failed, cw).toBeGreaterThan(0);
    expect(cs.verdict, cw).toMatch(/\d+ of \d+ cycles failed/);
    expect(cs.verdict, cw).not.toMatch(/every cycle finished within its period/);
    expect(cs.outcome.problems.join('\n'), cw).toMatch(/cycles failed/);
    expect(cs.unreachable?.silentS, cw).toBeGreaterThanOrEqual(11.5);
    expect(cs.verdict, cw).toMatch(/^the target stopped answering/);
    expect(c.stderr, cw).toMatch(/stopping the run/);
    expect(cs.disturbances.length, cw).toBeGreaterThanOrEqual(1);
    expect(cs.disturbances.at(-1).counts.failed_cycles, cw).toBeGreaterThan(0);
  }, 120_000);
});
