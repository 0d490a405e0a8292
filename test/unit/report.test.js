// `rqbench report` and `rqbench compare` on recorded run directories (test/fixtures/runs/): one
// producer run split into two processes (-t 2 -a 1, -t 2 -a 2, one --start-at and --run-id, as on
// two hosts) and a consumer run on the same schedule, all against one local Redis master with a
// replica. The merge is checked against a histogram built here from both runs' .hlog lines, not
// against the code under test. The commands run in-process (runCommand) on a copy of the fixtures.
import fs from 'node:fs';
import path from 'node:path';
import hdr from 'hdr-histogram-js';
import { afterAll, describe, expect, it } from 'vitest';
import { settings } from '../../src/settings.js';
import { stats } from '../../src/measure/histogram.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { copyFixtures, readJson, rq } from '../helpers/fixture-runs.js';

const fx = copyFixtures();
/** A recorded run directory with its manifest and summary, as the tests read them. */
const recorded = (dir) => ({
  dir,
  manifest: readJson(dir, 'manifest.json'),
  summary: readJson(dir, 'summary.json'),
  t0: readJson(dir, 'manifest.json').t0,
});
/** the two halves of one producer run, and a consumer run */
const [A, B] = fx.runs('produce-two-writers').map(recorded);
const C = recorded(fx.run('consume'));

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(0, 300)}`;

afterAll(() => removeTempDirs());

/** Every interval of a run's <op>.hlog with this tag, decoded here and added into one histogram. */
function referenceHistogram(dirs, op, tag) {
  const { lowest, highest, digits } = settings.histogram;
  const h = hdr.build({
    bitBucketSize: 64,
    lowestDiscernibleValue: lowest,
    highestTrackableValue: highest,
    numberOfSignificantValueDigits: digits,
    useWebAssembly: false,
  });
  for (const dir of dirs) {
    for (const line of fs.readFileSync(path.join(dir, `${op}.hlog`), 'utf8').split('\n')) {
      if (!line.startsWith(`Tag=${tag},`)) continue;
      h.add(hdr.decodeFromCompressedBase64(line.split(',')[4], 64, false));
    }
  }
  return h;
}

/** timeline.csv as { header, rows: [{ column: value }] }. */
function timeline(dir) {
  const [head, ...lines] = fs.readFileSync(path.join(dir, 'timeline.csv'), 'utf8').trim().split('\n');
  const header = head.split(',');
  return { header, rows: lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [header[i], v]))) };
}

describe('rqbench report: one run written by two processes', () => {
  it('each writer acknowledged its 2000 items (both were up before the shared --start-at)', () => {
    for (const r of [A, B]) expect(r.summary.totals.acked, `writer ${r.manifest.writers}`).toBe(2000);
  });

  it('shares the run id and the start', () => {
    expect(A.manifest.runId).toBe('two-writers');
    expect(B.manifest.runId).toBe('two-writers');
    expect(A.t0).toBe(B.t0);
    expect([A.manifest.writers, B.manifest.writers]).toEqual([[1], [2]]);
  });

  it('one directory alone: its own summary.json and timeline.csv, recomputed from its files', async () => {
    const [js, csv] = await Promise.all([rq('report', A.dir, '--format', 'json'), rq('report', A.dir, '--format', 'csv')]);
    expect(js.code, why(js)).toBe(0);
    const { merged, ...s } = JSON.parse(js.stdout);
    expect(s).toEqual(A.summary);
    expect(merged).toMatchObject({ runId: 'two-writers', runs: [{ dir: A.dir, writers: [1] }] });
    expect(csv.stdout).toBe(fs.readFileSync(path.join(A.dir, 'timeline.csv'), 'utf8'));
  });

  it('--format json: counts are the sums, percentiles those of one histogram of all values', async () => {
    const r = await rq('report', A.dir, B.dir, '--format', 'json');
    expect(r.code, why(r)).toBe(0);
    const s = JSON.parse(r.stdout);
    for (const k of ['intended', 'sent', 'acked', 'failed', 'errors'])
      expect(s.totals[k], k).toBe(A.summary.totals[k] + B.summary.totals[k]);
    expect(s.totals.acked).toBe(4000);
    expect(s.writers).toBe(2);
    expect(s.target.itemsPerSec).toBe(2000);
    expect(s.achieved.items).toBe(A.summary.achieved.items + B.summary.achieved.items);
    expect(s.merged).toMatchObject({ runId: 'two-writers', sharedT0: true, notes: [] });
    // every histogram both runs recorded, rebuilt here from the .hlog lines: exact, not close
    const names = new Set(
      [A, B].flatMap((run) => Object.entries(run.summary.latency).flatMap(([op, tags]) => Object.keys(tags).map((t) => `${op}/${t}`))),
    );
    expect(names.size).toBeGreaterThanOrEqual(7);
    for (const name of names) {
      const [op, tag] = name.split('/');
      const ref = referenceHistogram([A.dir, B.dir], op, tag);
      expect(ref.totalCount, name).toBe((A.summary.latency[op]?.[tag]?.count ?? 0) + (B.summary.latency[op]?.[tag]?.count ?? 0));
      expect(s.latency[op][tag], name).toEqual(stats(ref));
    }
    // a node sampled by both processes is one node, its CPU averaged, not added
    expect(s.cpu.nodes.map((n) => n.role)).toEqual(['master', 'replica']);
  });

  it('--format csv: the merged timeline, counts summed and node CPU averaged per second', async () => {
    const r = await rq('report', A.dir, B.dir, '--format', 'csv');
    expect(r.code, why(r)).toBe(0);
    const [head, ...lines] = r.stdout.trim().split('\n');
    const merged = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [head.split(',')[i], v])));
    const [ta, tb] = [timeline(A.dir), timeline(B.dir)];
    expect(head.split(',')).toEqual(ta.header);
    // a process that fell behind can have a second more than the other
    const seconds = [...new Set([...ta.rows, ...tb.rows].map((row) => Number(row.second)))].sort((x, y) => x - y);
    expect(merged.map((m) => Number(m.second))).toEqual(seconds);
    const cpuCols = ta.header.filter((c) => c.startsWith('cpu_'));
    expect(cpuCols).toHaveLength(2);
    for (const m of merged) {
      const both = [ta, tb].map((t) => t.rows.find((row) => row.second === m.second)).filter(Boolean);
      for (const k of ['intended', 'sent', 'acked'])
        expect(Number(m[k]), `${k} in second ${m.second}`).toBe(both.reduce((x, row) => x + Number(row[k]), 0));
      for (const c of cpuCols) {
        const v = both
          .map((row) => row[c])
          .filter((x) => x !== '')
          .map(Number);
        const want = v.length ? String(Math.round((v.reduce((x, y) => x + y, 0) / v.length) * 100) / 100) : '';
        expect(m[c], `${c} in second ${m.second}`).toBe(want);
      }
    }
  });

  it('md: the summary of both, with the runs merged listed', async () => {
    const r = await rq('report', A.dir, B.dir);
    expect(r.code, why(r)).toBe(0);
    expect(r.stdout).toContain('| Writers | Items per writer per sec | master CPU | replica CPU |');
    expect(r.stdout).toMatch(/\n\| 2 \| 1k \|/);
    expect(r.stdout).toContain(A.dir);
    expect(r.stdout).toContain(B.dir);
  });

  it("--spectrum: wrk2's Detailed Percentile spectrum of the merged histogram, parseable", async () => {
    for (const [args, op, tag] of [
      [[], 'batch', 'intended'],
      [['setex', '--tag', 'sent'], 'setex', 'sent'],
    ]) {
      const r = await rq('report', '--spectrum', ...args, A.dir, B.dir);
      expect(r.code, why(r)).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines.slice(0, 3)).toEqual(['  Detailed Percentile spectrum:', '       Value   Percentile   TotalCount 1/(1-Percentile)', '']);
      const rows = lines.slice(3, -3).map((l) => l.trim().split(/\s+/));
      const total = referenceHistogram([A.dir, B.dir], op, tag).totalCount;
      expect(rows.length, op).toBeGreaterThanOrEqual(2);
      rows.forEach((cols, i) => {
        expect(cols, `row ${i}`).toHaveLength(4);
        const last = i === rows.length - 1;
        for (const [j, c] of cols.entries())
          expect(Number.isFinite(Number(c)) || (last && j === 3 && c === 'inf'), `row ${i}: ${cols}`).toBe(true);
        if (i) expect(Number(cols[1])).toBeGreaterThanOrEqual(Number(rows[i - 1][1]));
      });
      expect(rows.at(-1)[1]).toBe('1.000000');
      expect(Number(rows.at(-1)[2])).toBe(total);
      expect(lines.at(-3)).toMatch(/^#\[Mean {4}= +\d+\.\d{3}, StdDeviation {3}= +\d+\.\d{3}\]$/);
      expect(lines.at(-2)).toMatch(new RegExp(`^#\\[Max {5}= +\\d+\\.\\d{3}, Total count {4}= +${total}\\]$`));
      expect(lines.at(-1)).toMatch(/^#\[Buckets = +\d+, SubBuckets {5}= +2048\]$/);
    }
  });
});

describe('rqbench compare', () => {
  it('puts two runs side by side with deltas (md and json)', async () => {
    const md = await rq('compare', A.dir, B.dir);
    expect(md.code, why(md)).toBe(0);
    expect(md.stdout).toContain(A.dir);
    expect(md.stdout).toContain(B.dir);
    expect(md.stdout).toContain('| Metric | A | B | Δ | Δ % |');
    for (const m of ['Achieved items/s', 'master CPU avg %', 'replica CPU avg %', 'batch p50 ms', 'batch p99 ms', 'batch p99.9 ms'])
      expect(md.stdout).toContain(`| ${m} |`);
    const js = await rq('compare', A.dir, B.dir, '--format', 'json');
    expect(js.code, why(js)).toBe(0);
    const c = JSON.parse(js.stdout);
    expect(c.latency).toEqual({ op: 'batch', tag: 'intended' });
    const p99 = c.metrics.find((m) => m.metric === 'batch p99 ms');
    expect(p99.a).toBe(A.summary.latency.batch.intended.p99);
    expect(p99.b).toBe(B.summary.latency.batch.intended.p99);
    expect(p99.delta).toBeCloseTo(p99.b - p99.a, 3);
    const achieved = c.metrics.find((m) => m.metric === 'Achieved items/s');
    expect(achieved).toMatchObject({ a: A.summary.achieved.itemsPerSec, b: B.summary.achieved.itemsPerSec });
    expect(achieved.delta).toBeCloseTo(achieved.b - achieved.a, 0);
  });
});

describe('bad input: one line, exit 2', () => {
  it.each([
    ['a missing directory', () => ['report', path.join(tempDir(), 'nope')], /nope: no such directory$/],
    ['a directory without manifest.json', () => ['report', A.dir, tempDir('rqbench-empty-')], /rqbench-empty-\w+: no manifest\.json/],
    [
      'a producer and a consumer run',
      () => ['report', A.dir, C.dir],
      /cannot mix kinds of run: .* is a Redis producer run, .* a Redis consumer run$/,
    ],
    ['an unknown --format', () => ['report', A.dir, '--format', 'xml'], /--format must be md, json, csv \(got "xml"\)/],
    [
      'an operation no run recorded',
      () => ['report', A.dir, '--spectrum', 'nope'],
      /--spectrum must be an operation these runs recorded: .*batch/,
    ],
    [
      'compare across kinds',
      () => ['compare', A.dir, C.dir],
      /cannot mix kinds of run: .* is a Redis producer run, .* a Redis consumer run$/,
    ],
  ])('%s', async (_name, args, message) => {
    const r = await rq(...args());
    expect(r.code, why(r)).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(message);
  });
});
