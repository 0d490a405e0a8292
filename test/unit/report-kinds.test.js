// `rqbench report`, `compare` and `chart` on every kind of run directory: two queue publishers
// and two consumers of one SQS queue (recorded runs on the fauxqs emulator: test/fixtures/runs/
// queue-publish and queue-consume) merged exactly — counts summed, percentiles those of the .hlog
// histograms added up here, not by the code under test — and load and ops runs (test/fixtures/runs/
// load and ops) refused in one line, exit 2. The commands run in-process on a copy of the fixtures.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newHistogram, decode, stats } from '../../src/measure/histogram.js';
import { listTree, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { copyFixtures, readJson, rq } from '../helpers/fixture-runs.js';

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(0, 400)}`;

const fx = copyFixtures();
/** A recorded run directory and its summary. */
const recorded = (dir) => ({ dir, summary: readJson(dir, 'summary.json') });
/** two publishers' and two consumers' runs: { dir, summary } */
const [P1, P2] = fx.runs('queue-publish').map(recorded);
const [C1, C2] = fx.runs('queue-consume').map(recorded);
/** a load run and an ops run (on fauxqs) */
const loadDir = fx.run('load');
const opsDir = fx.run('ops');

afterAll(() => removeTempDirs());

/**
 * The histogram of `op`.hlog lines tagged `tag` in each run's window [fromS, ceil(toS)), added up
 * here from the files.
 */
function reference(runs, op, tag) {
  const h = newHistogram();
  for (const r of runs) {
    const { fromS, toS } = r.summary.window;
    const file = path.join(r.dir, `${op}.hlog`);
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const [t, start, , , base64] = line.split(',');
      if (t !== `Tag=${tag}` || Number(start) < fromS || Number(start) >= Math.ceil(toS)) continue;
      h.add(decode(base64));
    }
  }
  return stats(h);
}

async function json(...args) {
  const r = await rq(...args);
  expect(r.code, why(r)).toBe(0);
  return JSON.parse(r.stdout);
}

describe('queue publishers merged', () => {
  it('counts are the sums, percentiles those of the merged histograms', async () => {
    const s = await json('report', P1.dir, P2.dir, '--format', 'json');
    expect(s.kind).toBe('publisher');
    expect(s.rate).toBe(40);
    for (const k of ['sent', 'acked', 'failed', 'unanswered', 'notSent'])
      expect(s.messages[k], k).toBe(P1.summary.messages[k] + P2.summary.messages[k]);
    expect(s.messages.acked).toBe(80);
    expect(s.inWindow.acked).toBe(P1.summary.inWindow.acked + P2.summary.inWindow.acked);
    expect(s.publish.intended.count).toBe(P1.summary.publish.intended.count + P2.summary.publish.intended.count);
    expect(s.publish.intended).toEqual(reference([P1, P2], 'publish', 'intended'));
    expect(s.publish.sent).toEqual(reference([P1, P2], 'publish', 'sent'));
    expect(s.lag).toEqual(reference([P1, P2], 'lag', 'lag'));
    expect(s.merged.runs.map((r) => r.publisher).sort()).toEqual(['pub-a', 'pub-b']);
  });

  it('one publisher alone reads like its own summary.md; the timeline sums second by second', async () => {
    const alone = await rq('report', P1.dir);
    expect(alone.code, why(alone)).toBe(0);
    expect(alone.stdout).toBe(`${fs.readFileSync(path.join(P1.dir, 'summary.md'), 'utf8')}\n`);
    const csv = await rq('report', P1.dir, P2.dir, '--format', 'csv');
    expect(csv.code, why(csv)).toBe(0);
    const [head, ...rows] = csv.stdout.trim().split('\n');
    const acked = head.split(',').indexOf('acked');
    expect(rows.reduce((n, l) => n + Number(l.split(',')[acked]), 0)).toBe(P1.summary.messages.acked + P2.summary.messages.acked);
  });
});

describe('queue consumers of one queue merged', () => {
  it("the seed's metrics from the merged histograms, counts summed, nothing lost across both", async () => {
    const s = await json('report', C1.dir, C2.dir, '--format', 'json');
    expect(s.kind).toBe('consumer');
    for (const k of ['messages', 'receives', 'rows', 'bytes', 'duplicates', 'malformed'])
      expect(s.counts[k], k).toBe(C1.summary.counts[k] + C2.summary.counts[k]);
    expect(s.countsAll.messages).toBe(80);
    expect(s.latency.e2e).toEqual(reference([C1, C2], 'e2e', 'intended'));
    expect(s.latency.e2eSent).toEqual(reference([C1, C2], 'e2e', 'sent'));
    expect(s.latency.read).toEqual(reference([C1, C2], 'read', 'read'));
    expect(s.latency.processing).toEqual(reference([C1, C2], 'processing', 'processing'));
    expect(s.latency.e2e.count).toBe(s.counts.messages);
    expect(s.threads).toBe(4);
    expect(s.nothingLost).toMatchObject({ ok: true, missing: 0, publishers: 2 });
    expect(s.publishers.map((p) => [p.publisher, p.received, p.last, p.missing]).sort()).toEqual([
      ['pub-a', 40, 40, 0],
      ['pub-b', 40, 40, 0],
    ]);
    const md = await rq('report', C1.dir, C2.dir);
    expect(md.stdout).toMatch(
      /\| Percentile \| Reading off SQS \| Server side processing \| E2E \|\n\| --- \|.*\n\| p50 \| \S+ \| \S+ \| \S+ \|\n\| p999 \|/,
    );
    expect(md.stdout).toContain('Nothing lost: every message of 2 publisher(s) was applied');
    expect(md.stdout).toContain('Runs merged:');
  });

  it('one consumer alone reads like its own summary.md; --spectrum is E2E by default', async () => {
    const alone = await rq('report', C1.dir);
    expect(alone.code, why(alone)).toBe(0);
    expect(alone.stdout).toBe(`${fs.readFileSync(path.join(C1.dir, 'summary.md'), 'utf8')}\n`);
    const sp = await rq('report', C1.dir, C2.dir, '--spectrum');
    expect(sp.code, why(sp)).toBe(0);
    expect(sp.stdout).toMatch(
      new RegExp(`Total count\\s+=\\s+${(C1.summary.latency.e2e?.count ?? 0) + (C2.summary.latency.e2e?.count ?? 0)}\\]`),
    );
  });
});

describe('compare', () => {
  it('two consumers: the seed metrics side by side, E2E from each run', async () => {
    const c = await json('compare', C1.dir, C2.dir, '--format', 'json');
    expect(c.kind).toBe('queue-consume');
    const row = (m) => c.metrics.find((r) => r.metric === m);
    expect(row('Messages applied')).toMatchObject({ a: C1.summary.counts.messages, b: C2.summary.counts.messages });
    expect(row('e2e p50 ms')).toMatchObject({ a: C1.summary.latency.e2e?.p50 ?? null, b: C2.summary.latency.e2e?.p50 ?? null });
    expect(row('Reading off the queue p99.9 ms').a).toBe(C1.summary.latency.read?.p999 ?? null);
  });

  it('two publishers; a publisher against a consumer is refused', async () => {
    const c = await json('compare', P1.dir, P2.dir, '--format', 'json');
    const row = (m) => c.metrics.find((r) => r.metric === m);
    expect(row('Target messages/s')).toMatchObject({ a: 20, b: 20, delta: 0 });
    expect(row('publish p99 ms')).toMatchObject({ a: P1.summary.publish.intended.p99, b: P2.summary.publish.intended.p99 });
    const mixed = await rq('compare', P1.dir, C1.dir);
    expect(mixed.code).toBe(2);
    expect(mixed.stdout).toBe('');
    expect(mixed.stderr).toMatch(/^rqbench compare: cannot mix kinds of run: .* is a queue publisher run, .* a queue consumer run\n$/);
  });
});

describe('chart', () => {
  it("a queue consumer: messages applied and the seed's metrics, no cycles, no Redis CPU; E2E by publisher (two publishers)", async () => {
    const out = path.join(tempDir('rqbench-kinds-chart-'), 'c');
    const r = await rq('chart', C1.dir, C2.dir, '--out', out);
    expect(r.code, why(r)).toBe(0);
    expect(listTree(out).sort()).toEqual(
      ['e2e-by-publisher', 'latency', 'percentiles', 'queue-latency', 'throughput'].flatMap((n) => [`${n}.png`, `${n}.svg`]),
    );
    const svg = (n) => fs.readFileSync(path.join(out, `${n}.svg`), 'utf8');
    expect(svg('throughput')).toContain('messages applied/s');
    expect(svg('throughput')).not.toMatch(/cycles/);
    for (const metric of ['Reading off the queue', 'Server side processing', 'E2E']) expect(svg('percentiles')).toContain(metric);
    for (const metric of ['Reading off the queue (', 'Server side processing (', 'E2E (']) expect(svg('queue-latency')).toContain(metric);
    expect(svg('latency')).toContain('e2e p99');
    for (const id of ['pub-a', 'pub-b']) expect(svg('e2e-by-publisher')).toContain(`>${id}<`);
  });

  it('a queue publisher: acknowledged against intended messages', async () => {
    const out = path.join(tempDir('rqbench-kinds-chart-'), 'p');
    const r = await rq('chart', P1.dir, '--out', out);
    expect(r.code, why(r)).toBe(0);
    const svg = fs.readFileSync(path.join(out, 'throughput.svg'), 'utf8');
    expect(svg).toContain('acked messages/s');
    expect(svg).toContain('intended messages/s (target)');
    expect(fs.readFileSync(path.join(out, 'percentiles.svg'), 'utf8')).toContain(`(publish, n=${P1.summary.publish.intended.count})`);
  });
});

describe('kinds told apart, and the ones reports cannot show refused', () => {
  /** A copy of a run directory with its manifest edited. */
  function edited(dir, edit) {
    const copy = path.join(tempDir('rqbench-kinds-copy-'), path.basename(dir));
    fs.cpSync(dir, copy, { recursive: true });
    const file = path.join(copy, 'manifest.json');
    const m = JSON.parse(fs.readFileSync(file, 'utf8'));
    edit(m);
    fs.writeFileSync(file, JSON.stringify(m));
    return copy;
  }

  it("a manifest's kind field is read before its command", async () => {
    const dir = edited(C1.dir, (m) => {
      m.kind = 'queue-consume';
      delete m.command;
    });
    const s = await json('report', dir, '--format', 'json');
    expect(s.counts).toEqual(C1.summary.counts);
    const bogus = await rq(
      'report',
      edited(C1.dir, (m) => {
        m.kind = 'stream';
      }),
    );
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toMatch(
      /manifest\.json kind must be one of produce, consume, queue-publish, queue-consume, load, ops, kv \(got "stream"\)\n$/,
    );
  });

  const refusals = [
    [
      'a load run',
      () => loadDir,
      /a load run \(one whole-file load per grid cell: no per-second timeline to merge or chart\); reports read produce, consume, queue publish, queue consume and kv runs \(its own table is in summary\.md\)$/,
    ],
    [
      'an ops run',
      () => opsDir,
      /an ops run \(single calls timed one at a time: no per-second timeline to merge or chart\); reports read .* \(its own table is in summary\.md\)$/,
    ],
    [
      'a run marked kind ops',
      () =>
        edited(P1.dir, (m) => {
          m.kind = 'ops';
        }),
      /an ops run/,
    ],
  ];
  it.each(refusals)('%s: report, compare and chart refuse it in one line, exit 2, nothing written', async (_what, dirOfCase, message) => {
    const dir = dirOfCase();
    const out = path.join(tempDir('rqbench-kinds-chart-'), 'x');
    const results = await Promise.all([
      rq('report', dir),
      rq('report', dir, '--format', 'json'),
      rq('compare', P1.dir, dir),
      rq('chart', dir, '--out', out),
    ]);
    for (const r of results) {
      expect(r.code, why(r)).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(message);
      expect(r.stderr).toContain(dir);
    }
    expect(listTree(out)).toEqual([]);
  });
});
