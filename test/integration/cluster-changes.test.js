// Issue 4's CI test: a producer at a held rate against a local 3-shard cluster (masters with
// one replica each) lives through a reshard, a shard removal, a shard addition, a manual
// failover and a hard kill of a master, with --verify; a consumer keeps cycling through it all.
// Real redis-server processes on 127.0.0.1, stopped by PID.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { readTimeline } from '../../src/record/timeline.js';
import { describeRun, produce, removeTempDirs } from '../helpers/producer-run.js';
import { consume, describeConsumer } from '../helpers/consumer-run.js';

let local;
let spare;

beforeAll(async () => {
  // remote-style actions (no harness in the producer): kill-master needs DEBUG SEGFAULT
  local = await startRedis({ cluster: true, masters: 3, replicas: 1, enableDebug: true });
  spare = await local.addNodes(2);
}, 60_000);

afterAll(async () => {
  await local?.stop();
  removeTempDirs();
});

// --verify writes fresh ids every second, so the keys to migrate grow with the run: a modest rate
// keeps the migrations short enough that every action ends before the run does, even on a busy
// machine (they run one after another); the ones that move no keys come between them
const Q = 1000; // items per second
const D = 36; // seconds
const ACTIONS = (addShard) => ['3:reshard:2000', '8:failover', '12:remove-shard', `18:add-shard:${addShard}`, '26:kill-master'];

describe('the cluster changes under load', () => {
  it('writers and readers keep going; nothing acknowledged is lost except what a hard kill can lose', async () => {
    const addShard = spare.map((n) => `${n.host}:${n.port}`).join(',');
    const [p, c] = await Promise.all([
      produce({
        port: local.port,
        cluster: true,
        q: Q,
        d: D,
        ttl: D + 70,
        timeoutMs: 110_000,
        extra: ['-c', '10', '--verify', ...ACTIONS(addShard).flatMap((x) => ['--at', x])],
      }),
      consume({ port: local.port, cluster: true, d: D, warmup: 0, ttl: D + 70, timeoutMs: 110_000, extra: ['-p', '500'] }),
    ]);
    const why = `${describeRun(p)}\n${JSON.stringify(p.summary?.actions ?? null)}`;
    const s = p.summary;
    // exit 0 only when nothing acknowledged was lost: a hard kill may lose what was not yet replicated
    expect(p.code, why).toBe(s.verify.lost ? 1 : 0);
    expect(s.outcome.problems, why).toEqual(s.verify.lost ? [`--verify: ${s.verify.lost} acknowledged items lost`] : []);

    // every action ran and succeeded, in order
    expect(
      s.actions.map((x) => [x.text, x.ok, x.error]),
      why,
    ).toEqual(ACTIONS(addShard).map((x) => [x, true, undefined]));
    const at = Object.fromEntries(s.actions.map((x) => [x.kind, x]));
    expect(at.reshard.detail.slotsMoved).toBe(2000);
    expect(at['remove-shard'].detail.slotsMoved ?? at['remove-shard'].detail.slots, why).toBeGreaterThan(0);
    expect(at['add-shard'].detail.added.map((n) => n.addr).sort()).toEqual(addShard.split(',').sort());
    expect(at['kill-master'].detail.promoted.addr, why).toBeTruthy();
    const repl = at['kill-master'].detail.replication;
    expect(repl.masterOffset, 'replication offsets recorded at the kill').toBeGreaterThan(0);
    expect(repl.lagBytes).toBeGreaterThanOrEqual(0);

    // the rate was held: every item due was sent and acknowledged, none failed
    expect(s.totals.intended, why).toBe(Q * D);
    expect(s.totals.acked, why).toBe(s.totals.intended);
    expect(s.totals.failed, why).toBe(0);
    expect(s.totals.moved + s.totals.ask, 'slots moved under the writers: redirects were followed').toBeGreaterThan(0);

    // nothing acknowledged lost before the hard kill; what the kill lost is reported, by second
    const v = s.verify;
    expect(v.acked, why).toBe(s.totals.acked);
    expect(v.present + v.lost + v.mismatched).toBe(v.acked);
    expect(v.mismatched).toBe(0);
    const killSecond = Math.floor((at['kill-master'].startMs - p.t0) / 1000);
    const lostBefore = Object.entries(v.lostBySecond).filter(([sec]) => Number(sec) < killSecond - 1);
    expect(lostBefore, `lost before the kill (second ${killSecond}): ${JSON.stringify(v)}`).toEqual([]);

    // the timeline marks each action and the summary says how long writes were disturbed
    expect(s.disturbance.map((d) => d.action)).toEqual(ACTIONS(addShard));
    for (const d of s.disturbance) expect(d.disturbedS, JSON.stringify(d)).toBeLessThanOrEqual(15);
    const md = (await import('node:fs')).readFileSync(`${p.dir}/summary.md`, 'utf8');
    expect(md).toMatch(/\*\*Cluster actions:\*\*/);
    expect(md).toMatch(/\*\*Verify:\*\* acknowledged/);
    const timeline = (await import('node:fs')).readFileSync(`${p.dir}/timeline.csv`, 'utf8');
    for (const a of ACTIONS(addShard)) expect(timeline).toContain(`${a.replaceAll(',', ';')} started`);

    // Redis CPU follows the cluster: the added nodes get columns, a promoted replica a master column
    const lines = timeline.trim().split('\n');
    const tl = readTimeline(`${p.dir}/timeline.csv`);
    expect(tl.rows.length, "every line has the header's columns (earlier rows padded when columns joined)").toBe(lines.length - 1);
    const secondOf = (ms) => Math.floor((ms - p.t0) / 1000);
    const cpuAfter = (addr, role, fromSecond) =>
      tl.nodes
        .filter((n) => n.addr === addr && (role === 'any' || n.role === role))
        .flatMap((n) => tl.rows.filter((r) => r.second > fromSecond && typeof r[n.column] === 'number'));
    for (const n of at['add-shard'].detail.added) {
      // a master, or a replica of the new master (it joins as an empty master first)
      expect(
        cpuAfter(n.addr, 'any', secondOf(at['add-shard'].endMs)).length,
        `CPU of the added ${n.addr}: ${tl.columns.join(' ')}`,
      ).toBeGreaterThan(3);
    }
    const promoted = at.failover.detail.to.addr;
    expect(
      cpuAfter(promoted, 'master', secondOf(at.failover.endMs)).length,
      `CPU of ${promoted} as master after the failover: ${tl.columns.join(' ')}`,
    ).toBeGreaterThan(3);
    expect(cpuAfter(promoted, 'replica', -1).length, `CPU of ${promoted} as a replica before`).toBeGreaterThan(3);
    expect(
      s.cpu.nodes
        .filter((n) => n.addr === promoted)
        .map((n) => n.role)
        .sort(),
    ).toEqual(['master', 'replica']);

    // the consumer kept cycling through all of it, to the end
    const cw = describeConsumer(c);
    // a cycle that met a node going away failed (and the next one went on): said, and exit 1
    expect(c.code, cw).toBe(c.summary.cycles.failed ? 1 : 0);
    expect(c.summary.cycles.failed, cw).toBeLessThan(c.summary.cycles.count / 4);
    expect(c.summary.cycles.count, cw).toBeGreaterThanOrEqual(D * 2 * 0.5);
    const rows = (await import('node:fs')).readFileSync(`${c.dir}/timeline.csv`, 'utf8').trim().split('\n').slice(1);
    const lastRows = rows.slice(-3).map((r) => Number(r.split(',')[2]));
    expect(
      lastRows.some((n) => n > 0),
      `cycles in the last seconds: ${lastRows}; ${cw}`,
    ).toBe(true);
  }, 150_000);
});
