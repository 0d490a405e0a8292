// `rqbench capacity` on real local Redis servers (issue 14, points 2, 3, 5 and 6): the maximum it
// reports held in its own step and the step just above it did not; the projection lands near
// it; a node capped at half a core holds about half the rate. Bad input (one line, exit 2, nothing
// written) is refused in test/unit/capacity-flags.test.js.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, describeRun, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { rqbench } from '../helpers/in-process.js';
import { limitBracket } from '../../src/report/capacity/cost-table.js';
import { confirmWords } from '../../src/report/capacity/capacity-md.js';

afterAll(() => removeTempDirs());

/**
 * Short steps; 50 chunks a second, so the load is smooth (a bursty one saturates a node before its
 * average CPU says so) and a chunk's latency is not the limit; each chunk through the Lua script
 * (--ws), which costs the server several times what it costs the writers: on 2 shared cores the
 * server, not the machine, gives out first. No engine ceiling below 100%: the maximum is then where
 * the node saturates, which is what the projection predicts (with the default 90% ceiling the
 * maximum stops short of saturation by design, and the two differ by that much and more).
 */
const SEARCH = [
  '--local',
  '-t',
  '2',
  '-c',
  '50',
  '--ws',
  '--start-rate',
  '25000',
  '--step-seconds',
  '3',
  '--step-warmup',
  '1',
  '--slo-p99',
  '1000',
  '--engine-ceiling',
  '100',
  // a 10% bracket: one bisection less per search than the default 5% (this file runs alone, its minutes count whole)
  '--precision',
  '0.1',
];

/** @returns {Promise<{ run: any, doc: any, dir: string }>} */
async function search(extra = []) {
  const out = tempDir('rqbench-capacity-');
  const run = await runNode([CLI, 'capacity', ...SEARCH, ...extra, '--out', out], { timeoutMs: 240_000 });
  const [name] = fs.readdirSync(out);
  const dir = path.join(out, name ?? '');
  const doc = name ? JSON.parse(fs.readFileSync(path.join(dir, 'capacity.json'), 'utf8')) : null;
  return { run, doc, dir };
}

describe('rqbench capacity on a local Redis', () => {
  let uncapped;

  let capped;

  it('reports a maximum whose own step held and whose next step above did not, and a projection within ±25% of it', async () => {
    uncapped = await search(['--confirm', '1', '--instance-type', 'local-1', '--vcpu', '1', '--memory-gb', '2', '--hourly-price', '0.1']);
    const { run, doc, dir } = uncapped;
    expect(run.code, describeRun(run)).toBe(0);
    expect(doc.search.end).toBe('converged');
    const max = doc.search.max;
    const above = doc.search.failedAbove;
    const searched = doc.steps.filter((s) => s.phase === 'ramp' || s.phase === 'bisect');
    const stepAt = (rate) => searched.find((s) => s.rate === rate);
    expect(stepAt(max).held).toBe(true);
    expect(stepAt(above).held).toBe(false);
    expect(stepAt(above).reasons.length).toBeGreaterThan(0);
    // nothing the search ran held above the maximum, nothing failed below it
    expect(searched.filter((s) => s.held && s.rate > max)).toEqual([]);
    expect(searched.filter((s) => !s.held && s.rate < max)).toEqual([]);
    // --confirm 1: each end once more, after the search, and the record counts them with the search's own try
    const again = doc.steps.filter((s) => s.phase === 'confirm');
    expect(again.map((s) => s.rate)).toEqual([max, above]);
    const c = doc.confirmation;
    expect(c.at).toEqual({ rate: max, held: 1 + (again[0].held ? 1 : 0), of: 2 });
    expect(c.above).toEqual({ rate: above, failed: 1 + (again[1].held ? 0 : 1), of: 2 });
    expect(c.confirmed).toBe(again[0].held && !again[1].held);
    // then each end that did not repeat itself moved out (phase widen) until it did, or was left open
    const widened = doc.steps.filter((s) => s.phase === 'widen');
    expect(widened.length).toBe(c.lower.rates.length - 1 + c.upper.rates.length - 1);
    const [lo, hi] = c.bracket;
    expect(lo === null || lo <= max, `bracket ${c.bracket}`).toBe(true);
    expect(hi === null || hi >= above, `bracket ${c.bracket}`).toBe(true);
    if (lo !== null) expect(doc.steps.filter((s) => s.rate === lo && s.phase !== 'ramp' && s.phase !== 'bisect' && !s.held)).toEqual([]);
    if (hi !== null) expect(doc.steps.filter((s) => s.rate === hi && s.phase !== 'ramp' && s.phase !== 'bisect' && s.held)).toEqual([]);
    expect((above - max) / max).toBeLessThanOrEqual(0.1);
    // every step is a producer run directory of its own
    for (const s of doc.steps) expect(fs.existsSync(path.join(dir, s.dir, 'summary.json'))).toBe(true);
    const g = (x) => x.toLocaleString('en-US');
    expect(run.stdout).toMatch(new RegExp(`^max sustainable(, not confirmed:)? ${g(max)} items/s \\(p99 \\d+ ms\\) — `));
    expect(run.stdout.split('\n')[0]).toContain(` — ${confirmWords(c)}; limited by `);
    expect(confirmWords(c)).toMatch(/the limit lies in \[[\d,?]+, [\d,?]+\] items\/s \((open|[\d.]+% wide)\): /);
    const p = doc.projection[0];
    const story = `${doc.answer}; ${doc.projectionLine}; steps: ${doc.steps.map((s) => `${s.rate} ${s.held ? 'held' : `not: ${s.reasons.join(', ')}`} (engine ${s.figures.busiestMaster?.engine})`).join(' | ')}`;
    expect(p.trusted, story).toBe(true);
    expect(p.saturatesAt / max, story).toBeGreaterThan(0.75);
    expect(p.saturatesAt / max, story).toBeLessThan(1.25);
    expect(p.atHeadroom).toBeLessThan(p.saturatesAt);
    // the projection is checked against this very search where the engine stopped it (with the
    // ceiling at 100%, where the line reaches the ceiling is where it saturates)
    const k = doc.projectionCheck;
    if ('errorPct' in k) expect([k.projected, k.searchedMax, k.failedAbove]).toEqual([p.saturatesAt, max, above]);
    expect(run.stdout).toMatch(
      /^projection: .*; (checked against this search: its line reaches the 100% ceiling at ≈ [\d,]+ items\/s, [+−][\d.]+% from the searched maximum|not checked against this search \()/m,
    );
    const md = fs.readFileSync(path.join(dir, 'capacity.md'), 'utf8');
    expect(md).toContain(`**${doc.answer}**`);
    expect(md).toMatch(/\| # \| Phase \| Target items\/s \| Achieved items\/s \| p50 ms \| p99 ms \| Busiest master engine % \|/);
    // report.html: the same answer, and every step's run on one time axis (the page is opened in a
    // browser by test/e2e/html-report.test.js; here: it was written, whole, with a chart per figure)
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(html.includes(`${g(max)} items/s`)).toBe(true);
    const specs = JSON.parse(
      /** @type {string} */ (/<script type="application\/json" id="rqbench-specs">(.*?)<\/script>/s.exec(html)?.[1]),
    );
    expect(Object.keys(specs)).toEqual(expect.arrayContaining(['chart-cpu', 'chart-throughput', 'chart-latency', 'chart-percentiles']));
    expect(JSON.stringify(specs['chart-throughput'])).toContain(`${doc.steps.length}: ${doc.steps.at(-1).rate}/s`);
  }, 240_000);

  it("with every node capped at half a core, the maximum falls to 25–65% of the uncapped one (or the steps' noise sentinels say the host was busy), and the limit is read against the cap", async () => {
    expect(uncapped?.doc?.search.max, 'the uncapped search ran first').toBeGreaterThan(0);
    capped = await search([
      '--confirm',
      '0',
      '--node-cpus',
      '0.5',
      '--instance-type',
      'local-half',
      '--vcpu',
      '0.5',
      '--memory-gb',
      '1',
      '--hourly-price',
      '0.04',
    ]);
    const { run, doc } = capped;
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stderr).toMatch(/each node capped at 0\.5 of a core/);
    expect(doc.criteria.nodeCpus).toBe(0.5);
    const ratio = doc.search.max / uncapped.doc.search.max;
    const story = [uncapped, capped]
      .map(
        ({ doc: d }) =>
          `${d.answer} (${d.noiseLine}): ${d.steps.map((s) => `${s.rate} ${s.held ? 'held' : `not: ${s.reasons.join(', ')}`}`).join(' | ')}`,
      )
      .join(' /// ');
    // A node that shares the host with other work (CI runs test files side by side) cannot get
    // even its half core, and the search stops low; the steps' noise sentinels must then say so.
    // On a quiet host the ratio is held to the cap.
    const noisy = (doc.noise?.noisyRuns ?? 0) + (uncapped.doc.noise?.noisyRuns ?? 0);
    // Not half exactly: the cgroup's quota throttles a capped node in slices and its cost per item
    // rises near the cap — bench:projection measured a half core at 0.34–0.41 of a whole one on this
    // VM (bench/RESULTS.md), and a CI run read 0.32 on a quiet host. A cap of a quarter core (0.20
    // of a whole one in 002-instance-types' first run: 71,900 against 363,000 items/s) or none at all
    // still fails here.
    if (ratio < 0.25 || ratio > 0.65) expect(noisy, `ratio ${ratio.toFixed(2)} with no noisy step: ${story}`).toBeGreaterThan(0);
    expect(run.stdout).toMatch(
      /^noise: (quiet host|\d+ of \d+ step runs were noisy) \(outside CPU up to [\d.]+% of a core, noisy at [\d.]+%\)/m,
    );
    // a capped node's engine never shows more than its half core
    for (const s of doc.steps) for (const n of s.figures.nodes) expect(n.engine).toBeLessThanOrEqual(60);
  }, 240_000);

  it("compare puts the searches in the seed's instance table with their cost per 100k items/s, shards and the cheapest, and their runs in the seed's table", async () => {
    expect(capped?.doc, 'the searches ran first').toBeTruthy();
    const r = await runNode([CLI, 'compare', uncapped.dir, capped.dir, '--for-rate', '1000000'], { timeoutMs: 20_000 });
    expect(r.code, describeRun(r)).toBe(0);
    const [big, half] = [uncapped.doc, capped.doc];
    const per100k = (doc, monthly) => ((monthly * 100_000) / doc.search.max).toFixed(2);
    // Monthly rate = Hourly rate × 720 per node; one node searched
    // the uncapped search re-tested its boundary once (--confirm 1): its record and where it puts the limit; the capped one did not
    const g = (x) => (x === null ? '?' : x.toLocaleString('en-US'));
    const b = limitBracket(big);
    expect(b?.record).toBe(
      `held ${big.confirmation.at.held}/2 at ${g(big.search.max)}, failed ${big.confirmation.above.failed}/2 at ${g(big.search.failedAbove)}`,
    );
    expect(r.stdout).toContain(
      `| local-1 | ${big.steps.find((x) => x.rate === big.search.max).figures.busiestMaster.engine.toFixed(1)} | - | 1 | 2 | 0.1 | 72.00 | 1 | ${g(big.search.max)} | ${g(b.lo)}–${g(b.hi)} (${b.record}) | ${per100k(big, 72)} |`,
    );
    expect(r.stdout).toContain(`| local-half |`);
    expect(r.stdout).toContain(`| 0.5 | 1 | 0.04 | 28.80 | 1 | ${g(half.search.max)} | - | ${per100k(half, 28.8)} |`);
    // shards at the headroom, from each search's trusted projection (none: no shard count, no price for the rate)
    const shards = (doc) => {
      const p = doc.projection.find((x) => x.trusted);
      return p ? Math.ceil(1_000_000 / p.atHeadroom) : null;
    };
    const cost = Object.entries({ 'local-1': [shards(big), 72], 'local-half': [shards(half), 28.8] })
      .filter(([, [n]]) => n)
      .map(([k, [n, m]]) => [k, n, n * m]);
    const [cheap] = cost.sort((a, b) => a[2] - b[2]);
    if (cheap)
      expect(r.stdout).toContain(
        `**Cheapest for 1,000,000 items/s at 60% engine CPU: ${cheap[0]}, ${cheap[1]} shard(s), ${cheap[2].toFixed(2)} per month`,
      );
    else expect(r.stdout).toContain('No priced instance with a trusted projection');
    // two of the searches' runs: the plain comparison, and the seed's table under it
    const runOf = (x) => path.join(x.dir, x.doc.steps[0].dir);
    const plain = await runNode([CLI, 'compare', runOf(uncapped), runOf(capped)], { timeoutMs: 20_000 });
    expect(plain.code, describeRun(plain)).toBe(0);
    expect(plain.stdout).toContain('| EC2 type | master CPU | replica CPU | vCPU | GB | Hourly rate | Monthly rate |');
    expect(plain.stdout).toMatch(/\| A: local-1 \| \d+\.\d \| - \| 1 \| 2 \| 0\.1 \| 72\.00 \|/);
    expect(plain.stdout).toMatch(/\| B: local-half \| \d+\.\d \| - \| 0\.5 \| 1 \| 0\.04 \| 28\.80 \|/);
    // and a wrong mix is one line, exit 2
    const mixed = await rqbench(['compare', uncapped.dir, runOf(capped)]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr.trim()).toMatch(
      /^rqbench compare: <a> <b> \[more\.\.\] must be all capacity directories \(rqbench capacity\) or two run directories/,
    );
  }, 60_000);

  it("runs a consumer beside every step when asked, reading the step's data model", async () => {
    const out = tempDir('rqbench-capacity-consumer-');
    const run = await runNode(
      [
        CLI,
        'capacity',
        '--local',
        '-t',
        '1',
        '--start-rate',
        '2000',
        '--max-rate',
        '4000',
        '--step-seconds',
        '2',
        '--step-warmup',
        '0',
        // two steps whatever the second's outcome (2,000 and 4,000 are within 50% of each other):
        // what is tested is the consumer beside each, not whether 4,000 holds on a busy host
        '--precision',
        '0.5',
        '--consumer=--limit 100 --fetch pipeline',
        '--out',
        out,
      ],
      { timeoutMs: 90_000 },
    );
    expect(run.code, describeRun(run)).toBe(0);
    const [name] = fs.readdirSync(out);
    const doc = JSON.parse(fs.readFileSync(path.join(out, name, 'capacity.json'), 'utf8'));
    expect(doc.steps.map((x) => x.rate)).toEqual([2000, 4000]);
    expect(doc.steps[0].held, 'the first step, 2,000 items/s, held').toBe(true);
    for (const st of doc.steps) {
      const stepDir = path.dirname(path.join(out, name, st.dir));
      const consumer = fs.readdirSync(stepDir).find((d) => d.endsWith('-consumer'));
      const c = JSON.parse(fs.readFileSync(path.join(stepDir, consumer, 'summary.json'), 'utf8'));
      // it read the step's data model: at most the newest 100 items a cycle
      expect(c.outcome.exitCode).toBe(0);
      expect(c.perCycle.fetched).toBeGreaterThan(0);
      expect(c.perCycle.fetched).toBeLessThanOrEqual(100);
    }
  }, 120_000);
});
