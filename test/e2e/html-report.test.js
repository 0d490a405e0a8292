// The HTML reports (issue 25, points 1 and 2), opened in a real browser: `rqbench report --html` of a
// recorded producer run with a failover under load on a local 3x1 cluster (test/fixtures/runs/
// produce-cluster-failover), a merged run of two writers, and an experiment's report.html written
// from committed trial data. Each page must open offline with no console error and no request, draw
// every chart (marks, axes, legend), show a hovered second's values as timeline.csv has them, zoom
// its time axis and toggle a series from the legend. Screenshots: .tmp/screenshots/. The page as a
// file (written whole, needing nothing else; bad --html values; its own rules): test/unit/html-report.test.js.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSpec } from '../../src/experiments/spec.js';
import { writeResults } from '../../src/experiments/results-md.js';
import { DATA_DIR } from '../../src/experiments/trial-data.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { copyFixtures, rq } from '../helpers/fixture-runs.js';
import { SCREENSHOTS, describeBrowser, drawnCharts, hoverSecond, launchChromium, openReport } from '../helpers/browser.js';

afterAll(() => removeTempDirs());

describeBrowser('report.html in Chromium', () => {
  const fx = copyFixtures();
  /** a producer run with a failover at second 2 (its copy: the page is written into it) */
  const prod = { dir: fx.run('produce-cluster-failover') };
  const html = path.join(prod.dir, 'report.html');
  /** @type {import('playwright-core').Browser} */ let browser;

  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    const r = await rq('report', prod.dir, '--html');
    expect(r.code, r.stderr).toBe(0);
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('a merged run (two writer processes of one run): its page, written unasked, draws the merged timeline', async () => {
    const dirs = fx.runs('produce-two-writers');
    const page = path.join(dirs[0], 'report-merged-two-writers.html');
    const r = await rq('report', ...dirs);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(`report: ${page}`);
    const { page: tab, problems, state } = await openReport(browser, page);
    expect(problems).toEqual([]);
    expect(state.rendered).toBe(state.expected);
    // the merged timeline: both writers' items in one line
    const [, ...lines] = fs.readFileSync(path.join(dirs[0], 'timeline.csv'), 'utf8').trim().split('\n');
    const shown = await hoverSecond(tab, 'timeline-1', 1);
    expect(Number(shown.intended)).toBe(2 * Number(lines[1].split(',')[2]));
    await tab.context().close();
  }, 60_000);

  it('opens offline with no error, and every chart rendered with its axes and legend', async () => {
    const { page, problems, state } = await openReport(browser, html);
    expect(problems).toEqual([]);
    expect(state.errors).toEqual([]);
    expect(state.expected).toBeGreaterThanOrEqual(6);
    expect(state.rendered).toBe(state.expected);
    const charts = await drawnCharts(page);
    expect(Object.keys(charts)).toEqual(expect.arrayContaining(['timeline-1', 'timeline-2', 'timeline-3', 'cpu', 'spectrum']));
    for (const [id, c] of Object.entries(charts)) {
      expect(c.marks.line, `${id}: lines drawn`).toBeGreaterThan(0);
      expect(c.axes, `${id}: axes`).toBeGreaterThanOrEqual(2);
      expect(c.legends, `${id}: legend`).toBeGreaterThanOrEqual(1);
    }
    // the failover is marked on the time charts, and the spectrum has both curves
    expect(charts['timeline-1'].texts.some((t) => t.includes('failover'))).toBe(true);
    expect(charts.spectrum.texts.some((t) => /intended start \(corrected/.test(t))).toBe(true);
    expect(charts.spectrum.texts.some((t) => /actual send \(uncorrected/.test(t))).toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'failover-report.png'), fullPage: true });
    await page.context().close();
  }, 60_000);

  it("hovering a second shows that second's values as timeline.csv has them", async () => {
    const { page } = await openReport(browser, html);
    const [head, ...lines] = fs.readFileSync(path.join(prod.dir, 'timeline.csv'), 'utf8').trim().split('\n');
    const columns = head.split(',');
    const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [columns[i], v])));
    const failover = rows.find((r) => /failover/.test(r.events));
    expect(failover, 'a second with the failover').toBeTruthy();
    for (const row of [rows[1], failover]) {
      const shown = await hoverSecond(page, 'timeline-1', Number(row.second));
      expect(shown.second).toBe(row.second);
      expect(shown.time).toBe(row.time);
      for (const c of ['intended', 'sent', 'acked']) expect(Number(shown[c]), `${c} at second ${row.second}`).toBe(Number(row[c]));
      expect(shown.events).toBe(row.events || '—');
      const errors = await hoverSecond(page, 'timeline-2', Number(row.second));
      for (const c of ['failed', 'moved', 'retries']) expect(Number(errors[c]), `${c} at second ${row.second}`).toBe(Number(row[c]));
    }
    // CPU: every node's figure that second, a gap shown as a gap
    const cpu = await hoverSecond(page, 'cpu', Number(failover?.second));
    const nodeColumns = columns.filter((c) => c.startsWith('cpu_'));
    expect(nodeColumns.length).toBeGreaterThanOrEqual(6);
    for (const c of nodeColumns) {
      const [, role, shard, addr] = /** @type {RegExpExecArray} */ (/^cpu_(master|replica)_s(\d+)_(.+)$/.exec(c));
      const cell = failover?.[c] ?? '';
      expect(cpu[`s${shard} ${role} ${addr} process`], c).toBe(cell === '' ? '—' : String(Number(cell)));
    }
    await page.context().close();
  }, 60_000);

  it('the time axis zooms, and a legend entry shows its series alone', async () => {
    const { page } = await openReport(browser, html);
    const before = await page.evaluate(() => /** @type {any} */ (window).rqbenchReport.views['timeline-1'].scale('x').domain());
    await hoverSecond(page, 'timeline-1', 2);
    await page.mouse.wheel(0, -400);
    await page.waitForTimeout(200);
    const after = await page.evaluate(() => /** @type {any} */ (window).rqbenchReport.views['timeline-1'].scale('x').domain());
    expect(after[1] - after[0], `zoomed from ${before} to ${after}`).toBeLessThan(before[1] - before[0]);
    const legend = page.locator('#timeline-1 .role-legend-label text', { hasText: /^acked$/ });
    await legend.click();
    const picked = await page.evaluate(() =>
      /** @type {any} */ (window).rqbenchReport.views['timeline-1'].data('pick_store').map((d) => d.values),
    );
    expect(picked).toEqual([['acked']]);
    await page.context().close();
  }, 60_000);

  it("an experiment's report.html: RESULTS.md with the trial dots, their median and interval, and the step charts, drawn", async () => {
    const from = path.join(import.meta.dirname, '..', '..', 'experiments', '002-increasing-load');
    const dir = path.join(tempDir('rqbench-html-'), '002-increasing-load');
    fs.mkdirSync(dir);
    fs.copyFileSync(path.join(from, 'experiment.yaml'), path.join(dir, 'experiment.yaml'));
    fs.cpSync(path.join(from, DATA_DIR), path.join(dir, DATA_DIR), { recursive: true });
    const r = await writeResults(loadSpec(dir));
    expect(r.html).toBe(path.join(dir, 'report.html'));
    const { page, problems, state } = await openReport(browser, r.html);
    expect(problems).toEqual([]);
    expect(state.errors).toEqual([]);
    expect(state.rendered).toBe(state.expected);
    const charts = await drawnCharts(page);
    expect(Object.keys(charts).sort()).toEqual([
      'chart-cpu',
      'chart-latency',
      'chart-percentiles',
      'chart-throughput',
      'chart-trials-master_cpu',
      'chart-trials-replica_cpu',
    ]);
    for (const [id, c] of Object.entries(charts))
      expect(
        Object.values(c.marks).reduce((a, b) => a + b, 0),
        id,
      ).toBeGreaterThan(0);
    // the finding's table and verdicts are in the page, the charts where RESULTS.md links them
    const text = await page.locator('main').innerText();
    expect(text).toMatch(/Finding/);
    expect(text).toMatch(/inconclusive|held|did not hold/);
    expect(text).toMatch(/What stands beside each of the seed's columns/);
    expect(text).toMatch(/Each step beside the seed/);
    // every trial a dot (6 per step), each step's median a tick and its interval a bar
    const dots = charts['chart-trials-master_cpu'].marks;
    expect(dots.symbol).toBe(18);
    expect(dots.tick ?? dots.rect).toBe(3);
    expect(dots.rule).toBe(3);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'experiment-report.png'), fullPage: true });
    await page.context().close();
  }, 90_000);
});
