// `rqbench compare` on groups of runs, and the calibration that says its verdicts mean what they
// say (issue 22, points 4 and 5), on one real local Redis:
// - A/A: two groups of six runs of the same producer command must come out "~" on Redis CPU;
// - A/B: the same rate with 2,000-byte values instead of 100 must come out significant, up, with
//   its whole interval above zero.
// The runs are interleaved round by round (A, A', B in a shuffled order each round) with a
// FLUSHALL before each and one unrecorded warm-up run first, so the groups are exchangeable: a
// slow minute on the machine hits every group alike. By design the A/A test is then wrong at most
// alpha of the time (5%; less with ties, the exact test is conservative) — the synthetic property
// test (stats-property.test.js) measures that rate over thousands of draws.
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
    const r = await runNode([PRODUCER, '--url', redis.server.url, ...LOAD, ...GROUPS[group], '--out', out, '--name', group], { timeoutMs: 30_000 });
    if (r.code !== 0) throw new Error(`producer ${group}: ${why(r)}`);
    return path.join(out, fs.readdirSync(out).find((d) => d.endsWith(`-${group}`)));
  };
  await produce('a', path.join(root, 'warm-up'));
  for (const slot of schedule(Object.keys(GROUPS), ROUNDS, 22)) {
    runs[slot.step].push(await produce(slot.step, path.join(root, slot.step, `trial-${slot.trial}`)));
  }
}, 150_000);

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

describe('rqbench compare on groups', () => {
  it('prints benchstat-style rows: medians with intervals, the change with its interval, p, n, and "~"', async () => {
    const r = await rq('compare', path.join(root, 'a'), path.join(root, 'b'));
    expect(r.code, why(r)).toBe(0);
    expect(r.stdout).toContain('| Metric | A median [95% CI] | B median [95% CI] | Change [95% CI] | p | n |');
    expect(r.stdout).toMatch(/\| master CPU avg % \| [\d.]+ \[[\d.]+, [\d.]+\] \| [\d.]+ \[[\d.]+, [\d.]+\] \| \+[\d.]+% \[\+[\d.]+%, \+[\d.]+%\] \| 0\.0022 \| 6\+6 \|/);
    expect(r.stdout).toMatch(/\| Achieved items\/s \| 40,000 \[40,000, 40,000\] \| 40,000 \[40,000, 40,000\] \| ~ \| 1 \| 6\+6 \|/);
    expect(r.stdout).toContain('"~" means not significant at 0.05');
  });

  it('with fewer than 6 runs a side shows the range instead of an interval, and with one a side a delta marked "n=1: no interval"', async () => {
    const few = await rq('compare', ...runs.a.slice(0, 3), '--vs', ...runs.b.slice(0, 3));
    expect(few.code, why(few)).toBe(0);
    expect(few.stdout).toMatch(/\| master CPU avg % \| [\d.]+ \([\d.]+–[\d.]+\) \| [\d.]+ \([\d.]+–[\d.]+\) \| ~ \| 0\.1 \| 3\+3 \|/);
    expect(few.stdout).toContain('master CPU avg %: 3 vs 3 trials: the smallest possible p is 0.1');
    const one = await rq('compare', runs.a[0], '--vs', runs.b[0], '--format', 'json');
    expect(one.code, why(one)).toBe(0);
    const cpu = rowOf(JSON.parse(one.stdout), 'master CPU avg %');
    expect(cpu).toMatchObject({ p: null, significant: false, direction: '~', note: 'n=1: no interval' });
    expect(cpu.change.pct).toBeGreaterThan(0);
    const md = await rq('compare', runs.a[0], '--vs', runs.b[0]);
    expect(md.stdout).toMatch(/\| master CPU avg % \| [\d.]+ \| [\d.]+ \| \+[\d.]+% \(n=1: no interval\) \| - \| 1\+1 \|/);
  });

  it.each([
    [['--vs'], '--vs needs a value'],
    [['--vs', 'X', '--alpha', '2'], '--alpha must be a number between 0 and 1 (got 2)'],
    [['--vs', 'X', '--threshold', '-1'], '--threshold must be a percentage from 0 to below 100 (got -1)'],
    [['--vs', 'X', '--kind', 'nope'], '--kind must be produce, consume, queue-publish, queue-consume (got "nope")'],
    [['--vs', '/nonexistent'], '/nonexistent: no such directory'],
  ])('refuses %j in one line, exit 2, nothing on stdout', async (tail, line) => {
    const args = tail.map((x) => (x === 'X' ? runs.b[0] : x));
    const r = await rq('compare', runs.a[0], ...args);
    expect(r.code, why(r)).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(line);
  });

  it('refuses a directory holding no runs', async () => {
    const empty = tempDir('rqbench-empty-');
    const r = await rq('compare', empty, path.join(root, 'b'));
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr).toContain(`${empty}: no run directory in it (group A)`);
  });
});
