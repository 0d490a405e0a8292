// The calibration that says the verdicts of `rqbench compare` on groups of runs mean what they
// say (issue 22, point 5), on one real local Redis:
// - A/A: two groups of six runs of the same producer command must come out "~" on Redis CPU;
// - A/B: the same rate with 2,000-byte values instead of 100 must come out significant, up, with
//   its whole interval above zero.
// The runs are interleaved round by round (A, A', B in a shuffled order each round) with a
// FLUSHALL before each and one unrecorded warm-up run first, so the groups are exchangeable: a
// slow minute on the machine hits every group alike. By design the A/A test is then wrong at most
// alpha of the time (5%; less with ties, the exact test is conservative) — the synthetic property
// test (stats-property.test.js) measures that rate over thousands of draws. How groups are printed
// (rows, ranges under 6 runs, n=1, refusals) is read from committed trial data in
// test/unit/compare-groups.test.js.
import fs from 'node:fs';
import path from 'node:path';
import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, PRODUCER, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { useLocalRedis } from '../helpers/local-server.js';
import { schedule } from '../../src/experiments/trials.js';

const redis = useLocalRedis();
afterAll(() => removeTempDirs());

const ROUNDS = 6;
/** 2 s measured per run at 40k items/s: Redis well above idle, each run under 4 s. */
const LOAD = ['-q', '40000', '-d', '3', '--warmup', '1', '--json', '--quiet'];
const GROUPS = { a: ['--value-size', '100'], aa: ['--value-size', '100'], b: ['--value-size', '2000'] };
const rq = (...args) => runNode([CLI, ...args], { timeoutMs: 60_000 });
const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-600)}`;

/** group → its run directories, laid out as an experiment lays out trials: <root>/<group>/trial-<k>/<run> */
const runs = { a: [], aa: [], b: [] };
let root;

beforeAll(async () => {
  root = tempDir('rqbench-groups-');
  const flush = async () => {
    const c = new Redis(redis.server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await c.connect();
    await c.flushall();
    c.disconnect();
  };
  const produce = async (group, out) => {
    await flush();
    const r = await runNode([PRODUCER, '--url', redis.server.url, ...LOAD, ...GROUPS[group], '--out', out, '--name', group], {
      timeoutMs: 30_000,
    });
    if (r.code !== 0) throw new Error(`producer ${group}: ${why(r)}`);
    return path.join(
      out,
      fs.readdirSync(out).find((d) => d.endsWith(`-${group}`)),
    );
  };
  await produce('a', path.join(root, 'warm-up'));
  for (const slot of schedule(Object.keys(GROUPS), ROUNDS, 22)) {
    runs[slot.step].push(await produce(slot.step, path.join(root, slot.step, `trial-${slot.trial}`)));
  }
}, 300_000); // 19 runs of 5 s: about 100 s alone (vitest.config.js runs this file alone)

const rowOf = (doc, metric) => doc.metrics.find((m) => m.metric === metric);

describe('calibration: the verdicts mean what they say', () => {
  it('A/A: six runs of one command against six more are "~" (not significant) on Redis CPU', async () => {
    const r = await rq('compare', ...runs.a, '--vs', ...runs.aa, '--format', 'json');
    expect(r.code, why(r)).toBe(0);
    const cpu = rowOf(JSON.parse(r.stdout), 'master CPU avg %');
    const story = `A ${cpu.aValues.join(' ')} vs A' ${cpu.bValues.join(' ')}: p ${cpu.p}, change ${cpu.change.pct}% [${cpu.change.pctLo}, ${cpu.change.pctHi}]`;
    expect(cpu.a.n).toBe(6);
    expect(cpu.b.n).toBe(6);
    expect(cpu.significant, story).toBe(false);
    expect(cpu.direction, story).toBe('~');
    // no interval without zero in it: "no difference" is among the changes the data allow
    expect(cpu.change.pctLo, story).toBeLessThanOrEqual(0);
    expect(cpu.change.pctHi, story).toBeGreaterThanOrEqual(0);
  });

  it('A/B: 2,000-byte values cost Redis more CPU than 100-byte ones at the same rate: significant, up, the interval above zero', async () => {
    const r = await rq('compare', path.join(root, 'a'), path.join(root, 'b'), '--format', 'json');
    expect(r.code, why(r)).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.groups).toEqual({ a: [path.join(root, 'a')], b: [path.join(root, 'b')] });
    const cpu = rowOf(doc, 'master CPU avg %');
    const story = `A ${cpu.aValues.join(' ')} vs B ${cpu.bValues.join(' ')}: p ${cpu.p}, change ${cpu.change.pct}% [${cpu.change.pctLo}, ${cpu.change.pctHi}]`;
    expect(cpu.significant, story).toBe(true);
    expect(cpu.direction, story).toBe('up');
    expect(cpu.change.kind).toBe('ratio');
    expect(cpu.change.pctLo, story).toBeGreaterThan(0);
    expect(cpu.beyondNoise, story).toBe(true);
    // the rate itself did not change: the same target, every item acknowledged
    expect(rowOf(doc, 'Achieved items/s')).toMatchObject({ significant: false, direction: '~' });
  });
});
