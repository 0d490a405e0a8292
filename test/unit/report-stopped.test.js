// `rqbench report` on a producer run that was killed (SIGKILL) mid-run: no summary.json, but its
// manifest.json, timeline.csv (appended every second) and .hlog files. Read alone or merged with
// the other writers of its run, it counts up to its last second, names its writer, host and the
// second it stopped in, and exits 1; what it cannot be is still refused in one line, exit 2. A run
// whose final save failed (a full disk: the placeholder summary.json that says so, or none beside a
// closed manifest) is read the same way, the failed save named (issue 38, point 5).
// Recorded runs against a local Redis (test/fixtures/runs/produce-killed: writer 2 of a run killed
// 2.5 s in, writer 1 finished, --verify), read in-process; a writer killed live on another host:
// test/e2e/netns-hosts.test.js.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { copyFixtures, copyRun, readJson, rq } from '../helpers/fixture-runs.js';

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(0, 400)}`;

const fx = copyFixtures();
/** writer 1 of 2, finished; writer 2 of the same run, killed 2.5 s in */
const [finished, killed] = fx.runs('produce-killed');
const A = { dir: finished, summary: readJson(finished, 'summary.json') };
/** a producer run that finished, alone */
const standalone = fx.run('produce-standalone');
/** the host the killed writer ran on, as its manifest names it */
const host = readJson(killed, 'manifest.json').host.hostname;

afterAll(() => removeTempDirs());

/** timeline.csv's rows as objects of numbers (and text). */
function timeline(dir) {
  const [head, ...lines] = fs.readFileSync(path.join(dir, 'timeline.csv'), 'utf8').trim().split('\n');
  const cols = head.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [cols[i], v === '' || Number.isNaN(Number(v)) ? v : Number(v)])));
}

/**
 * A copy of the killed run's directory to spoil, named as run directories are.
 * @param {(dir: string) => void} spoil
 */
function spoiled(spoil) {
  const dir = path.join(tempDir('rqbench-stopped-bad-'), path.basename(killed));
  fs.cpSync(killed, dir, { recursive: true });
  spoil(dir);
  return dir;
}

describe('a producer run whose final save failed (a full disk): read up to its last second, the failed save named, exit 1', () => {
  const planned = readJson(standalone, 'summary.json');
  const failed = `cannot write the run directory ${standalone}: no space left on device (ENOSPC)`;
  /** @param {string} dir */
  const unsaved = (dir) => {
    fs.writeFileSync(
      path.join(dir, 'summary.json'),
      JSON.stringify({ incomplete: true, interrupted: false, failed: `${failed}; its summary could not be saved`, unsaved: true }),
    );
    fs.rmSync(path.join(dir, 'summary.md'));
  };

  it.each([
    ['the placeholder summary.json it left says so', unsaved, `its final save failed: ${failed}`],
    [
      'not even that fitted: no summary.json beside its closed manifest',
      (/** @type {string} */ dir) => fs.rmSync(path.join(dir, 'summary.json')),
      'no summary.json beside a closed manifest.json: its final save failed, or it was removed',
    ],
  ])('%s', async (_what, damage, said) => {
    const dir = copyRun(standalone, damage);
    const host = readJson(dir, 'manifest.json').host.hostname;
    const rows = timeline(dir);
    const [js, md] = await Promise.all([rq('report', dir, '--format', 'json'), rq('report', dir, '--no-html')]);
    expect(js.code, why(js)).toBe(1);
    const s = JSON.parse(js.stdout);
    // its window as its own end would have had it: up to its planned end
    expect(s.window).toEqual({ fromSecond: 1, toSecond: planned.window.toSecond, seconds: planned.window.seconds });
    expect(s.totals.acked).toBe(rows.reduce((n, r) => n + r.acked, 0));
    expect(s.achieved.itemsPerSec).toBe(planned.achieved.itemsPerSec);
    const words = `writer 1 on host ${host} ran to second ${planned.window.toSecond}, but its summary is missing (${said}); its counts up to second ${planned.window.toSecond - 1} are read from timeline.csv and its .hlog files`;
    expect(s.outcome).toEqual({ exitCode: 1, problems: [words] });
    expect(s.stopped).toMatchObject({ unsaved: said });
    expect(md.code, why(md)).toBe(1);
    expect(md.stdout).toContain(`**Outcome:** exit 1 — ${words}.`);
    // compare and chart read finished runs only
    const refused = await Promise.all([
      rq('compare', standalone, dir),
      rq('chart', dir, '--out', path.join(tempDir('rqbench-unsaved-'), 'c')),
    ]);
    for (const r of refused) expect(r.code, why(r)).toBe(2);
  });
});

describe('a consumer run whose final save failed, or that was killed: its cycles up to its last second, its readers named, exit 1', () => {
  const reader = fx.run('consume');
  const planned = readJson(reader, 'summary.json');
  const failed = `cannot write the run directory ${reader}: no space left on device (ENOSPC)`;
  const cases = [
    [
      'the placeholder summary.json its failed save left',
      (/** @type {string} */ dir) => {
        fs.writeFileSync(
          path.join(dir, 'summary.json'),
          JSON.stringify({ incomplete: true, interrupted: false, failed: `${failed}; its summary could not be saved`, unsaved: true }),
        );
        fs.rmSync(path.join(dir, 'summary.md'));
      },
      (/** @type {number} */ second, /** @type {string} */ host) =>
        `reader 1 on host ${host} ran to second ${second}, but its summary is missing (its final save failed: ${failed}); its cycles up to second ${second - 1} are read from timeline.csv and its .hlog files (not the keys' TTL read back after the run, nor its errors' kinds)`,
    ],
    [
      'killed: no summary.json beside a manifest it never closed',
      (/** @type {string} */ dir) => {
        fs.rmSync(path.join(dir, 'summary.json'));
        const { noise: _closed, ...open } = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
        fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(open));
      },
      (/** @type {number} */ second, /** @type {string} */ host) =>
        `reader 1 on host ${host} stopped in second ${second} (no summary.json: the process was killed or its host went down); its cycles up to second ${second - 1} are included, what it read after that is missing`,
    ],
  ];
  it.each(cases)('%s', async (_what, damage, words) => {
    const dir = copyRun(reader, damage);
    const host = readJson(dir, 'manifest.json').host.hostname;
    const rows = timeline(dir);
    const [js, md] = await Promise.all([rq('report', dir, '--format', 'json'), rq('report', dir, '--no-html')]);
    expect(js.code, why(js)).toBe(1);
    const s = JSON.parse(js.stdout);
    // the same window, cycles and items per cycle its own end wrote, from its files alone
    expect(s.window).toEqual(planned.window);
    expect(s.cycles.count).toBe(rows.reduce((n, r) => n + r.cycles, 0));
    expect(s.cycles).toEqual(planned.cycles);
    expect(s.perCycle).toEqual(planned.perCycle);
    expect(s.latency.cycle.sent.count).toBe(planned.latency.cycle.sent.count);
    expect(s.stopped).toMatchObject({ readers: [1], host });
    expect(s.outcome).toEqual({ exitCode: 1, problems: [words(planned.window.toSecond, host)] });
    expect(md.code, why(md)).toBe(1);
    expect(md.stdout).toContain(`**Outcome:** exit 1 — ${words(planned.window.toSecond, host)}.`);
  });
});

describe('a killed producer run', () => {
  it('alone: its seconds up to the last one in timeline.csv, its writer, host and second named, exit 1', async () => {
    expect(fs.existsSync(path.join(killed, 'summary.json'))).toBe(false);
    expect(readJson(killed, 'manifest.json').runId).toBe('stopped-1');
    const rows = timeline(killed);
    const last = rows.at(-1).second;
    const [js, md] = await Promise.all([rq('report', killed, '--format', 'json'), rq('report', killed)]);
    expect(js.code, why(js)).toBe(1);
    const s = JSON.parse(js.stdout);
    expect(s.stopped).toEqual({ second: last + 1, lastSecond: last, host, writers: [2] });
    expect(s.window).toEqual({ fromSecond: 0, toSecond: last + 1, seconds: last + 1 });
    for (const k of ['sent', 'acked', 'failed', 'moved', 'errors']) expect(s.totals[k], k).toBe(rows.reduce((n, r) => n + r[k], 0));
    expect(s.target.itemsPerSec).toBe(1000);
    expect(s.outcome).toEqual({
      exitCode: 1,
      problems: [
        `writer 2 on host ${host} stopped in second ${last + 1} (no summary.json: the process was killed or its host went down); its counts up to second ${last} are included, its share after that is missing`,
      ],
    });
    // the batches of its window, from its .hlog files
    expect(s.latency.batch.intended.count).toBe(rows.length);
    expect(md.code, why(md)).toBe(1);
    expect(md.stdout).toContain(`**Stopped:** ${killed}: writer 2 on host ${host} stopped in second ${last + 1}`);
    expect(md.stderr).toBe('');
  });

  it('merged with the finished writer of its run: its counts added, the missing share in the rate, verify over the run that read back, exit 1', async () => {
    const r = await rq('report', A.dir, killed, '--format', 'json');
    expect(r.code, why(r)).toBe(1);
    // the merged page reads finished runs only: left out, in one line
    expect(r.stderr.trim()).toBe(`rqbench report: the HTML page is left out (${killed} stopped before its end); --no-html says so quietly`);
    const m = JSON.parse(r.stdout);
    const rows = timeline(killed);
    expect(m.totals.acked).toBe(A.summary.totals.acked + rows.reduce((n, x) => n + x.acked, 0));
    expect(m.merged.stopped).toMatchObject([{ dir: killed, writers: [2], lastSecond: rows.at(-1).second }]);
    expect(m.merged.runs.map((x) => x.stopped?.second ?? null)).toEqual([null, rows.at(-1).second + 1]);
    expect(m.verify).toMatchObject({ acked: A.summary.verify.acked, lost: 0, notRun: [killed], ofRuns: 2 });
    expect(m.achieved.itemsPerSec).toBeLessThan(m.target.itemsPerSec * 0.95);
    expect(m.outcome.exitCode).toBe(1);
    const md = await rq('report', A.dir, killed, '--no-html');
    expect(md.code, why(md)).toBe(1);
    expect(md.stdout).toContain(`**Verify coverage:** covers 1 of the 2 runs that asked for it; not read back: ${killed}.`);
    const csv = await rq('report', A.dir, killed, '--format', 'csv', '--no-html');
    expect(csv.code, why(csv)).toBe(1);
  });

  it('a last timeline line cut by the kill is left out; the second it stopped in follows the whole lines', async () => {
    const dir = spoiled((d) => fs.appendFileSync(path.join(d, 'timeline.csv'), '9,2026-11-26T00:00:09.000Z,1000,10'));
    const r = await rq('report', dir, '--format', 'json');
    expect(r.code, why(r)).toBe(1);
    expect(JSON.parse(r.stdout).stopped.lastSecond).toBe(timeline(killed).at(-1).second);
  });

  it('refused in one line, exit 2: --html asked for, compare and chart, a spoilt .hlog, no second at all, a stopped queue consumer', async () => {
    const cases = [
      [
        ['report', killed, '--html'],
        /^rqbench report: --html must be left out when a run stopped before its end \(.+: no summary\.json\)$/,
      ],
      [['compare', A.dir, killed], /no summary\.json \(the run did not finish\)$/],
      [['chart', killed, '--out', path.join(tempDir('rqbench-stopped-chart-'), 'c')], /no summary\.json \(the run did not finish\)$/],
      [
        ['report', spoiled((d) => fs.appendFileSync(path.join(d, 'batch.hlog'), 'Tag=intended,0.1,1,2,garbage\nTag=sent,0.2,1,2,AAAA\n'))],
        /batch\.hlog:\d+: /,
      ],
      [
        [
          'report',
          spoiled((d) =>
            fs.writeFileSync(path.join(d, 'timeline.csv'), `${fs.readFileSync(path.join(d, 'timeline.csv'), 'utf8').split('\n')[0]}\n`),
          ),
        ],
        /no summary\.json, and timeline\.csv has no second: the run stopped before its first second ended$/,
      ],
      [
        [
          'report',
          spoiled((d) => {
            const m = JSON.parse(fs.readFileSync(path.join(d, 'manifest.json'), 'utf8'));
            fs.writeFileSync(path.join(d, 'manifest.json'), JSON.stringify({ ...m, kind: 'queue-consume', command: 'queue-consume' }));
          }),
        ],
        /no summary\.json \(the run did not finish\); report reads a stopped run of a Redis producer or a Redis consumer only, not of a .*queue consumer$/,
      ],
      // the placeholder of a run that failed before its end: that run reported its own end
      [
        [
          'report',
          copyRun(standalone, (d) =>
            fs.writeFileSync(
              path.join(d, 'summary.json'),
              JSON.stringify({ incomplete: true, interrupted: false, failed: 'cannot connect' }),
            ),
          ),
        ],
        /summary\.json: the run did not finish: it failed: cannot connect$/,
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => rq(...args)));
    results.forEach((r, i) => {
      expect(r.code, `${cases[i][0].join(' ')} → ${why(r)}`).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(cases[i][1]);
    });
  });
});
