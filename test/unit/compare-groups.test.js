// How `rqbench compare` prints groups of runs (issue 22, point 4), benchstat-style, read from trial
// data the repository keeps: experiments/002-lua's six trials of the plain SETEX writes (A) against
// six of one Lua call per item (B), at the same rate on one local Redis: Redis CPU up, significant
// (p 0.0022: the smallest p of 6+6, every B above every A), the rate unchanged ("~"). Whether the
// verdicts mean what they say on a live Redis (A/A "~", A/B significant) is the calibration in
// test/e2e/compare-groups.test.js. The commands run in-process; the output is held to golden files.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { FIXTURES, rq, why } from '../helpers/fixture-runs.js';
import { caseText, expectGolden, normalise } from '../helpers/golden.js';

afterAll(() => removeTempDirs());

const ROOT = path.join(import.meta.dirname, '..', '..');
const DATA = path.join(ROOT, 'experiments', '002-lua', 'data');
/** the kept run of the spec: <stamp>/<step>/trial-<k>/<run> */
const STAMP = path.join(DATA, fs.readdirSync(DATA)[0]);
const A = path.join(STAMP, 'plain');
const B = path.join(STAMP, 'sk');
/** a step's run directories, trial by trial */
const trials = (step) =>
  fs
    .readdirSync(step)
    .sort()
    .map((t) => path.join(step, t))
    .map((t) =>
      path.join(
        t,
        fs.readdirSync(t).find((f) => f.endsWith('-producer')),
      ),
    );
const runs = { a: trials(A), b: trials(B) };

const rowOf = (doc, metric) => doc.metrics.find((m) => m.metric === metric);
/** The output held to golden/compare-groups/<name>.txt, the repository's root read as <repo>. */
async function golden(name, argv) {
  const r = await rq(...argv);
  const norm = (t) => normalise(t, [[ROOT, '<repo>']]);
  expectGolden(`compare-groups/${name}.txt`, caseText(argv.map(norm), { code: r.code, stdout: norm(r.stdout), stderr: norm(r.stderr) }));
  return r;
}

describe('rqbench compare on groups', () => {
  it('the trial data holds six runs a side', () => {
    expect([runs.a.length, runs.b.length]).toEqual([6, 6]);
  });

  it('prints benchstat-style rows: medians with intervals, the change with its interval, p, n, and "~"', async () => {
    const r = await golden('lua-plain-vs-sk.md', ['compare', A, B]);
    expect(r.code, why(r)).toBe(0);
    expect(r.stdout).toContain('| Metric | A median [95% CI] | B median [95% CI] | Change [95% CI] | p | n |');
    expect(r.stdout).toMatch(
      /\| master CPU avg % \| [\d.]+ \[[\d.]+, [\d.]+\] \| [\d.]+ \[[\d.]+, [\d.]+\] \| \+[\d.]+% \[\+[\d.]+%, \+[\d.]+%\] \| 0\.0022 \| 6\+6 \|/,
    );
    // both steps ran at one rate (the spec's, whatever its regime made it): "~", p 1
    expect(r.stdout).toMatch(/\| Achieved items\/s \| ([\d,]+) \[\1, \1\] \| \1 \[\1, \1\] \| ~ \| 1 \| 6\+6 \|/);
    expect(r.stdout).toContain('"~" means not significant at 0.05');
  });

  it("--format json: the groups as given, each row with its verdict and every run's value", async () => {
    const r = await golden('lua-plain-vs-sk.json', ['compare', A, B, '--format', 'json']);
    expect(r.code, why(r)).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.groups).toEqual({ a: [A], b: [B] });
    const cpu = rowOf(doc, 'master CPU avg %');
    // every B above every A: 2 of the C(12, 6) = 924 ways to split 12 runs are this far apart
    expect(cpu).toMatchObject({ significant: true, direction: 'up', p: 2 / 924 });
    expect(cpu.change.kind).toBe('ratio');
    expect(cpu.change.pctLo).toBeGreaterThan(0);
    expect([cpu.aValues.length, cpu.bValues.length]).toEqual([6, 6]);
    expect(rowOf(doc, 'Achieved items/s')).toMatchObject({ significant: false, direction: '~' });
  });

  it('with fewer than 6 runs a side shows the range instead of an interval, and with one a side a delta marked "n=1: no interval"', async () => {
    const few = await golden('lua-3-vs-3.md', ['compare', ...runs.a.slice(0, 3), '--vs', ...runs.b.slice(0, 3)]);
    expect(few.code, why(few)).toBe(0);
    expect(few.stdout).toMatch(/\| master CPU avg % \| [\d.]+ \([\d.]+–[\d.]+\) \| [\d.]+ \([\d.]+–[\d.]+\) \| ~ \| 0\.1 \| 3\+3 \|/);
    expect(few.stdout).toContain('master CPU avg %: 3 vs 3 trials: the smallest possible p is 0.1');
    const one = await rq('compare', runs.a[0], '--vs', runs.b[0], '--format', 'json');
    expect(one.code, why(one)).toBe(0);
    const cpu = rowOf(JSON.parse(one.stdout), 'master CPU avg %');
    expect(cpu).toMatchObject({ p: null, significant: false, direction: '~', note: 'n=1: no interval' });
    expect(cpu.change.pct).toBeGreaterThan(0);
    const md = await golden('lua-1-vs-1.md', ['compare', runs.a[0], '--vs', runs.b[0]]);
    expect(md.stdout).toMatch(/\| master CPU avg % \| [\d.]+ \| [\d.]+ \| \+[\d.]+% \(n=1: no interval\) \| - \| 1\+1 \|/);
  });

  it.each([
    [['--vs'], '--vs needs a value'],
    [['--vs', 'X', '--alpha', '2'], '--alpha must be a number between 0 and 1 (got 2)'],
    [['--vs', 'X', '--threshold', '-1'], '--threshold must be a percentage from 0 to below 100 (got -1)'],
    [['--vs', 'X', '--kind', 'nope'], '--kind must be produce, consume, queue-publish, queue-consume, kv (got "nope")'],
    [['--vs', '/nonexistent'], '/nonexistent: no such directory'],
  ])('refuses %j in one line, exit 2, nothing on stdout', async (tail, line) => {
    const args = tail.map((x) => (x === 'X' ? runs.b[0] : x));
    const r = await rq('compare', runs.a[0], ...args);
    expect(r.code, why(r)).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(line);
  });

  it('refuses groups of two kinds in one line naming both, not a --kind nobody typed', async () => {
    const r = await rq('compare', A, path.join(FIXTURES, 'consume'));
    expect(r.code, why(r)).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'rqbench compare: groups A and B hold runs of different kinds (A: Redis producer, B: Redis consumer): compare runs of one kind\n',
    );
  });

  it('refuses a directory holding no runs', async () => {
    const empty = tempDir('rqbench-empty-');
    const r = await rq('compare', empty, B);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr).toContain(`${empty}: no run directory in it (group A)`);
  });
});
