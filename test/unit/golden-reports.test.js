// What `rqbench report`, `compare` and `chart` print on the recorded runs of test/fixtures/runs/,
// held to committed golden files (test/fixtures/golden/), benchstat-style: the exit code, stdout and
// stderr of each command line, the SVG of each chart, the HTML page with its inlined libraries left
// out; damaged copies of the runs included. UPDATE_GOLDEN=1 writes them again (test/helpers/golden.js).
// The commands run in-process (runCommand) on a copy of the fixtures in a temp directory; the two
// places that differ from run to run read `<fixtures>` (the copy) and `<tmp>` (outputs, damaged copies).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFixtures, editJson, rq } from '../helpers/fixture-runs.js';
import { GOLDEN, UPDATE, caseText, expectGolden, normalise } from '../helpers/golden.js';
import { removeTempDirs } from '../helpers/producer-run.js';

afterAll(() => removeTempDirs());

const fx = copyFixtures();
/** the temp directory holding the copy (`runs/`), the charts drawn and the damaged copies */
const base = path.dirname(fx.root);
const places = /** @type {Array<[string, string]>} */ ([
  [fx.root, '<fixtures>'],
  [base, '<tmp>'],
]);
const norm = (text) => normalise(text, places);

// one run directory of each kind, and the runs of one run id
const S = fx.run('produce-standalone');
const F = fx.run('produce-cluster-failover');
const [W1, W2] = fx.runs('produce-two-writers');
const C = fx.run('consume');
const [P1, P2] = fx.runs('queue-publish');
const [Q1, Q2] = fx.runs('queue-consume');
const O = fx.run('queue-consume-one-publisher');
const [K1, K2] = fx.runs('produce-killed');
const L = fx.run('load');
const X = fx.run('ops');
const V = fx.run('kv');

/** Every golden file a case below wrote or read: the rest are left over from cases that are gone. */
const used = new Set();

/**
 * Runs `rqbench <argv>` and holds its exit code and output to golden/<name>.txt.
 * @param {string} name
 * @param {string[]} argv
 */
async function golden(name, argv) {
  const r = await rq(...argv);
  used.add(`${name}.txt`);
  expectGolden(`${name}.txt`, caseText(argv.map(norm), { code: r.code, stdout: norm(r.stdout), stderr: norm(r.stderr) }));
  return r;
}

/** [fixture name, its run (or runs, merged), the operation read from the actual send] */
const KINDS = /** @type {Array<[string, string[], string]>} */ ([
  ['produce-standalone', [S], 'setex'],
  ['produce-cluster-failover', [F], 'setex'],
  ['produce-two-writers-1', [W1], 'setex'],
  ['produce-two-writers-merged', [W1, W2], 'setex'],
  ['consume', [C], 'cycle'],
  ['queue-publish-a', [P1], 'publish'],
  ['queue-publish-merged', [P1, P2], 'publish'],
  ['queue-consume-1', [Q1], 'e2e'],
  ['queue-consume-merged', [Q1, Q2], 'e2e'],
  ['queue-consume-one-publisher', [O], 'e2e'],
  ['kv', [V], 'get'],
]);

describe("report: every kind of run, alone and merged (a merged run's page left out: --no-html)", () => {
  const cases = KINDS.flatMap(([name, dirs, op]) => {
    const quiet = dirs.length > 1 ? ['--no-html'] : [];
    return /** @type {Array<[string, string[]]>} */ ([
      [`report/${name}.md`, ['report', ...dirs, ...quiet]],
      [`report/${name}.json`, ['report', ...dirs, '--format', 'json', ...quiet]],
      [`report/${name}.csv`, ['report', ...dirs, '--format', 'csv', ...quiet]],
      [`report/${name}.spectrum`, ['report', '--spectrum', ...dirs]],
      [`report/${name}.spectrum-${op}-sent`, ['report', '--spectrum', op, '--tag', 'sent', ...dirs]],
    ]);
  });
  it.each(cases)('%s', async (name, argv) => {
    const r = await golden(name, argv);
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('report: a kv run read back', () => {
  it("prints the summary.md the run wrote, each node's share of the operations from its window counts", async () => {
    const r = await rq('report', V, '--no-html');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd()).toBe(fs.readFileSync(path.join(V, 'summary.md'), 'utf8').trimEnd());
    expect(r.stdout).toMatch(/\*\*Hot shard:\*\* shard \d \(127\.0\.0\.1:\d+\) took \d+(\.\d)? % of the operations/);
  });
});

describe('report: a producer run killed mid-run (no summary.json) is read up to its last second, exit 1', () => {
  it.each(
    /** @type {Array<[string, string[]]>} */ ([
      ['report/produce-killed-2.md', ['report', K2]],
      ['report/produce-killed-2.json', ['report', K2, '--format', 'json']],
      ['report/produce-killed-2.csv', ['report', K2, '--format', 'csv']],
      ['report/produce-killed-2.spectrum', ['report', '--spectrum', K2]],
      ['report/produce-killed-merged.md', ['report', K1, K2, '--no-html']],
      ['report/produce-killed-merged.json', ['report', K1, K2, '--format', 'json', '--no-html']],
      // unasked, the merged page is left out in one line: it reads finished runs only
      ['report/produce-killed-merged.page-left-out', ['report', K1, K2, '--format', 'json']],
    ]),
  )('%s', async (name, argv) => {
    const r = await golden(name, argv);
    expect(r.code, r.stderr).toBe(1);
  });
});

describe('compare: two runs of each kind side by side', () => {
  it.each(
    /** @type {Array<[string, string[]]>} */ ([
      ['compare/produce-standalone-vs-cluster.md', ['compare', S, F]],
      ['compare/produce-standalone-vs-cluster.json', ['compare', S, F, '--format', 'json']],
      ['compare/produce-standalone-vs-cluster.setex-sent', ['compare', S, F, '--op', 'setex', '--tag', 'sent']],
      ['compare/produce-two-writers.md', ['compare', W1, W2]],
      ['compare/produce-killed-writer-1-vs-two-writers-1.md', ['compare', K1, W1]],
      ['compare/consume-vs-itself.md', ['compare', C, C]],
      ['compare/queue-publish.md', ['compare', P1, P2]],
      ['compare/queue-publish.json', ['compare', P1, P2, '--format', 'json']],
      ['compare/queue-consume.md', ['compare', Q1, Q2]],
      ['compare/queue-consume.json', ['compare', Q1, Q2, '--format', 'json']],
      ['compare/queue-consume-vs-one-publisher.md', ['compare', Q1, O]],
      ['compare/kv-vs-itself.md', ['compare', V, V]],
      ['compare/kv-vs-itself.json', ['compare', V, V, '--format', 'json']],
    ]),
  )('%s', async (name, argv) => {
    const r = await golden(name, argv);
    expect(r.code, r.stderr).toBe(0);
  });
});

/** The SVGs of a chart run, each held to golden/<name>/<file>.svg; the PNGs are there and are PNGs. */
async function goldenCharts(name, dirs, extra = []) {
  const out = path.join(base, 'charts', name);
  const r = await golden(`${name}/stdout`, ['chart', ...dirs, '--out', out, ...extra]);
  expect(r.code, r.stderr).toBe(0);
  const files = fs.readdirSync(out).sort();
  expect(files.filter((f) => f.endsWith('.png')).map((f) => f.replace(/\.png$/, '.svg'))).toEqual(files.filter((f) => f.endsWith('.svg')));
  for (const f of files) {
    if (f.endsWith('.png')) {
      expect(fs.readFileSync(path.join(out, f)).subarray(0, 8).toString('hex'), f).toBe('89504e470d0a1a0a');
      continue;
    }
    used.add(`${name}/${f}`);
    expectGolden(`${name}/${f}`, norm(fs.readFileSync(path.join(out, f), 'utf8')));
  }
  return files;
}

describe('chart: the SVGs are drawn the same every time (Vega-Lite and resvg, fonts from npm)', () => {
  it('one producer run with a failover: CPU per node, throughput, latency, percentiles', async () => {
    expect(await goldenCharts('chart/produce-cluster-failover', [F])).toHaveLength(8);
  });

  it('two steps laid end to end, labelled and titled: the failover run and the consumer', async () => {
    expect(
      await goldenCharts(
        'chart/failover-then-consume',
        [F, C],
        ['--label', 'write 2k/s', '--label', 'read all', '--title', 'fixture steps'],
      ),
    ).toHaveLength(8);
  });

  it('a queue publisher: no Redis CPU', async () => {
    expect(await goldenCharts('chart/queue-publish-a', [P1])).toHaveLength(6);
  });

  it("two queue consumers as steps: the seed's metrics per second and E2E by publisher", async () => {
    expect(await goldenCharts('chart/queue-consume', [Q1, Q2])).toHaveLength(10);
  });

  it('a kv run on a cluster: CPU per node, operations per second, latency, percentiles', async () => {
    expect(await goldenCharts('chart/kv', [V])).toHaveLength(8);
  });

  it('the same chart drawn twice is the same file, byte for byte', async () => {
    const [a, b] = [path.join(base, 'twice', 'a'), path.join(base, 'twice', 'b')];
    for (const out of [a, b]) expect((await rq('chart', F, '--out', out)).code).toBe(0);
    for (const f of fs.readdirSync(a)) expect(fs.readFileSync(path.join(b, f)).equals(fs.readFileSync(path.join(a, f))), f).toBe(true);
  });
});

/**
 * The page with what does not come from the run left out (Vega, Vega-Lite and vega-embed, inlined
 * from node_modules: over 800 KB that a dependency update changes) and the charts' specs printed
 * one value a line, so that a change reads as a diff.
 * @param {string} file
 */
function pageOf(file) {
  const page = fs.readFileSync(file, 'utf8');
  const libraries = page.match(/<script>[\s\S]*?<\/script>/g)?.filter((s) => s.length > 20_000) ?? [];
  expect(libraries, 'the three libraries are inlined').toHaveLength(3);
  let out = page;
  for (const s of libraries) out = out.replace(s, '<script>/* library inlined from node_modules */</script>');
  return norm(
    out.replace(
      /(<script type="application\/json" id="rqbench-specs">)([\s\S]*?)(<\/script>)/,
      (_m, open, json, close) => `${open}\n${JSON.stringify(JSON.parse(json), null, 1)}\n${close}`,
    ),
  );
}

describe("report --html: the page's own part (summary, specs and their data, script)", () => {
  it('one run with a failover: --html writes <dir>/report.html', async () => {
    const dir = path.join(base, 'html', path.basename(F));
    fs.cpSync(F, dir, { recursive: true });
    const r = await golden('html/produce-cluster-failover', ['report', dir, '--html']);
    expect(r.code, r.stderr).toBe(0);
    used.add('html/produce-cluster-failover.html');
    expectGolden('html/produce-cluster-failover.html', pageOf(path.join(dir, 'report.html')));
  });

  it('a merged run gets its page unasked, inside the first directory', async () => {
    const [a, b] = [W1, W2].map((d) => {
      const copy = path.join(base, 'html-merged', path.basename(d));
      fs.cpSync(d, copy, { recursive: true });
      return copy;
    });
    const r = await golden('html/produce-two-writers-merged', ['report', a, b]);
    expect(r.code, r.stderr).toBe(0);
    used.add('html/produce-two-writers-merged.html');
    expectGolden('html/produce-two-writers-merged.html', pageOf(path.join(a, 'report-merged-two-writers.html')));
  });

  it("a kv run's page: its panels, each node's share of the operations in its summary", async () => {
    const out = path.join(base, 'html', 'kv.html');
    const r = await golden('html/kv', ['report', V, '--html', out]);
    expect(r.code, r.stderr).toBe(0);
    used.add('html/kv.html');
    const page = pageOf(out);
    expect(page).toContain('Operations per node');
    expect(page).toContain('Operations per second: due by the schedule, sent, answered');
    expectGolden('html/kv.html', page);
  });

  it("a queue consumer's page", async () => {
    const out = path.join(base, 'html', 'queue-consume.html');
    const r = await golden('html/queue-consume-one-publisher', ['report', O, '--html', out]);
    expect(r.code, r.stderr).toBe(0);
    used.add('html/queue-consume-one-publisher.html');
    expectGolden('html/queue-consume-one-publisher.html', pageOf(out));
  });
});

/**
 * A damaged copy of a run, in <tmp>/bad/<case>/<run>.
 * @param {string} name
 * @param {string} dir
 * @param {(dir: string) => void} damage
 */
function damaged(name, dir, damage) {
  const copy = path.join(base, 'bad', name, path.basename(dir));
  fs.cpSync(dir, copy, { recursive: true });
  damage(copy);
  return copy;
}
const rewrite = (dir, file, edit) => fs.writeFileSync(path.join(dir, file), edit(fs.readFileSync(path.join(dir, file), 'utf8')));

describe('refused in one line, exit 2: damaged copies, runs reports cannot read, bad flags', () => {
  /** @type {Array<[string, () => string[]]>} */
  const cases = [
    [
      'timeline-garbage-row',
      () => ['report', damaged('timeline-garbage-row', S, (d) => rewrite(d, 'timeline.csv', (t) => t.replace('\n', '\nnot,a,row\n')))],
    ],
    [
      'hlog-cut-mid-line',
      () => [
        'report',
        damaged('hlog-cut-mid-line', S, (d) => rewrite(d, 'batch.hlog', (t) => t.slice(0, t.indexOf('Tag=intended,1.') + 30))),
      ],
    ],
    // report reads such a run as one whose final save failed (test/unit/report-stopped.test.js); compare refuses it
    ['summary-missing', () => ['compare', S, damaged('summary-missing', F, (d) => fs.rmSync(path.join(d, 'summary.json')))]],
    [
      'summary-not-json',
      () => ['compare', S, damaged('summary-not-json', S, (d) => rewrite(d, 'summary.json', (t) => t.replace(':', ';')))],
    ],
    [
      'manifest-binary',
      () => [
        'chart',
        damaged('manifest-binary', C, (d) =>
          fs.writeFileSync(path.join(d, 'manifest.json'), Buffer.from([0x89, 0x50, 0x1b, 0x5b, 0x32, 0x4a, 0xff])),
        ),
        '--out',
        path.join(base, 'bad', 'manifest-binary-out'),
      ],
    ],
    [
      'consumer-timeline-missing',
      () => ['report', damaged('consumer-timeline-missing', C, (d) => fs.rmSync(path.join(d, 'timeline.csv')))],
    ],
    [
      'queue-target-unknown',
      () => [
        'report',
        damaged('queue-target-unknown', P1, (d) =>
          editJson(d, 'manifest.json', (m) => {
            delete m.kind;
            m.flags.target = 'kafka';
          }),
        ),
      ],
    ],
    [
      'queue-count-as-text',
      () => [
        'report',
        damaged('queue-count-as-text', Q1, (d) =>
          editJson(d, 'summary.json', (s) => {
            s.counts.messages = 'many';
          }),
        ),
      ],
    ],
    [
      'killed-hlog-garbage',
      () => [
        'report',
        damaged('killed-hlog-garbage', K2, (d) => fs.appendFileSync(path.join(d, 'batch.hlog'), 'Tag=intended,0.1,1,2,garbage\n')),
      ],
    ],
    ['killed-with-html', () => ['report', K2, '--html']],
    ['killed-compare', () => ['compare', K1, K2]],
    ['load-run', () => ['report', L]],
    ['ops-run', () => ['compare', P1, X]],
    ['mixed-kinds', () => ['report', S, C]],
    ['mixed-queue-kinds', () => ['compare', P1, Q1]],
    ['unknown-format', () => ['report', S, '--format', 'xml']],
    ['unknown-spectrum-op', () => ['report', '--spectrum', 'nope', S]],
    ['spectrum-with-format', () => ['report', '--spectrum', 'batch', '--format', 'json', S]],
  ];
  it.each(cases)('%s', async (name, argv) => {
    const r = await golden(`refused/${name}`, argv());
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('the golden files', () => {
  it('every golden file of these folders is one a case above holds the output to: none left from a case that is gone', () => {
    const all = ['report', 'compare', 'chart', 'html', 'refused']
      .flatMap((d) => fs.readdirSync(path.join(GOLDEN, d), { recursive: true }).map((f) => path.join(d, String(f))))
      .filter((f) => fs.statSync(path.join(GOLDEN, f)).isFile());
    if (UPDATE) for (const f of all.filter((x) => !used.has(x))) fs.rmSync(path.join(GOLDEN, f));
    else expect(all.filter((f) => !used.has(f)).sort()).toEqual([]);
  });
});
