// The HTML report's page as a file (issue 25, point 1): `rqbench report --html` of a recorded
// producer run with a failover under load (test/fixtures/runs/produce-cluster-failover), a merged
// run's page written unasked, bad --html values, and the page's own rules. Run in-process; what the
// page does in a real browser (no error, every chart drawn, hover, zoom, legend) is
// test/e2e/html-report.test.js, on the same recorded runs.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { READABLE_KINDS } from '../../src/runs/kinds.js';
import { htmlPage } from '../../src/report/html/html-page.js';
import { markdownHtml } from '../../src/report/html/html-markdown.js';
import { removeTempDirs } from '../helpers/producer-run.js';
import { copyFixtures, rq } from '../helpers/fixture-runs.js';

afterAll(() => removeTempDirs());

const fx = copyFixtures();

describe('the page itself (pure)', () => {
  it("every column of every kind's timeline is in one of its panels", () => {
    for (const kind of READABLE_KINDS) {
      const shown = kind.panels.flatMap(([, , columns]) => columns);
      expect(
        kind.rows.columns.filter((c) => !shown.includes(c)),
        kind.name,
      ).toEqual([]);
    }
  });

  it("a name or an event cannot close the data's script or become markup, and credentials are masked", () => {
    const evil = '</script><script>alert(1)</script> redis://u:hunter2@h:1';
    const page = htmlPage({
      title: evil,
      sections: [
        {
          heading: evil,
          html: markdownHtml(`# ${evil}\n\n<b>${evil}</b>\n\n![x](charts/none.png)`).html,
          charts: [{ id: 'c', title: evil, spec: { title: evil, mark: 'point', data: { values: [{ a: evil }] } } }],
        },
      ],
    });
    expect(page.match(/<script>alert\(1\)/g)).toBeNull();
    expect(page.includes('hunter2')).toBe(false);
    const markup = page.replace(/<script>[\s\S]*?<\/script>/g, '<script></script>');
    expect(markup.match(/<img|src="http|href="http/g)).toBeNull();
    expect(markup.includes('[x: <code>charts/none.png</code>]')).toBe(true);
  });
});

describe('rqbench report --html', () => {
  it('writes <dir>/report.html whole, one file that needs nothing else', async () => {
    const dir = fx.run('produce-cluster-failover');
    const r = await rq('report', dir, '--html');
    expect(r.code, r.stderr).toBe(0);
    const html = path.join(dir, 'report.html');
    expect(r.stderr.trim()).toBe(`report: ${html}`);
    expect(r.stdout).toContain('Rate:');
    const text = fs.readFileSync(html, 'utf8');
    expect(text).toMatch(/^<!doctype html>/);
    // outside the inlined scripts, no element that loads a file
    const markup = text.replace(/<script>[\s\S]*?<\/script>/g, '<script></script>');
    expect(markup.match(/<script[^>]+src=|<link[^>]+href=|<img|<iframe/g)).toBeNull();
    expect(text.length).toBeGreaterThan(500_000);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a merged run (two writer processes of one run) gets its page unasked, inside the first directory; --no-html leaves it out', async () => {
    const dirs = fx.runs('produce-two-writers');
    const page = path.join(dirs[0], 'report-merged-two-writers.html');
    const quiet = await rq('report', ...dirs, '--no-html');
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(fs.existsSync(page)).toBe(false);
    const r = await rq('report', ...dirs);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(`report: ${page}`);
    expect(r.stdout).toMatch(/^# run two-writers \(2 directories merged\)/);
    expect(fs.readFileSync(page, 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('bad --html values are one line naming the flag, exit 2, nothing written', async () => {
    const dir = fx.run('produce-standalone');
    for (const [args, re] of /** @type {Array<[string[], RegExp]>} */ ([
      [
        ['--html', '/nonexistent/dir/r.html'],
        /^rqbench report: --html "\/nonexistent\/dir\/r\.html": its directory "\/nonexistent\/dir" cannot be written \(ENOENT\)$/,
      ],
      [['--html', `${dir}.html`, '--spectrum'], /^rqbench report: --html must be left out with --spectrum/],
    ])) {
      const before = fs.readdirSync(dir);
      const r = await rq('report', dir, ...args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim()).toMatch(re);
      expect(r.stdout).toBe('');
      expect(fs.readdirSync(dir)).toEqual(before);
      expect(fs.existsSync(`${dir}.html`)).toBe(false);
    }
  });
});
