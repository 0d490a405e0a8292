/**
 * A real browser for the HTML reports' tests: Debian's Chromium (apt-get install chromium) driven
 * by playwright-core, which downloads no browser of its own. Tests that need it are skipped with
 * a visible message when it is not installed, except under CI=true (.ci/run installs it), where
 * they run and fail. The browser is launched by the test and closed by it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe } from 'vitest';
import { chromium } from 'playwright-core';
import { ROOT } from './producer-run.js';

/** The Chromium binary, or null. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p)) ?? null;

/** Where the tests' screenshots go (.tmp/ is not committed). */
export const SCREENSHOTS = path.join(ROOT, '.tmp', 'screenshots');

/**
 * describe() for tests that need Chromium.
 * @param {string} name
 * @param {() => void} fn
 */
export function describeBrowser(name, fn) {
  const run = !!CHROMIUM || process.env.CI === 'true';
  if (run) return describe(name, fn);
  process.stderr.write(`\nSKIPPED "${name}": Chromium is not installed (apt-get install chromium)\n`);
  // skipped only for want of Chromium, and said so above and in the test's name
  return describe.skipIf(!run)(`${name} (SKIPPED: chromium not installed)`, fn);
}

/**
 * @typedef {object} OpenedReport
 * @property {import('playwright-core').Page} page
 * @property {string[]} problems console errors and warnings, page errors, failed requests, and any request off this file
 * @property {{ expected: number, rendered: number, errors: string[] }} state what the page's own script reports
 */

/**
 * Opens a report.html offline and waits until every chart has rendered or failed.
 * @param {import('playwright-core').Browser} browser
 * @param {string} file
 * @returns {Promise<OpenedReport>}
 */
export async function openReport(browser, file) {
  // no network at all: a page that needs one fails here as it would on a plane
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, offline: true });
  const page = await context.newPage();
  const problems = [];
  const url = pathToFileURL(file).href;
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  page.on('request', (r) => {
    if (r.url() !== url) problems.push(`request: ${r.url()}`);
  });
  await page.goto(url);
  await page.waitForFunction(() => /** @type {any} */ (window).rqbenchReport?.done, null, { timeout: 30_000 });
  const state = await page.evaluate(() => {
    const s = /** @type {any} */ (window).rqbenchReport;
    return { expected: s.expected, rendered: s.rendered, errors: s.errors };
  });
  return { page, problems, state };
}

/**
 * What each chart drew: its marks by type (items of Vega's mark groups with something to
 * show), axes and legends, and every text, read from its SVG.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<Record<string, { marks: Record<string, number>, axes: number, legends: number, texts: string[] }>>}
 */
export function drawnCharts(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('div.vega')].map((div) => {
        const svg = div.querySelector('svg');
        /** @type {Record<string, number>} */
        const marks = {};
        for (const g of svg ? svg.querySelectorAll('g.role-mark') : []) {
          const type = [...g.classList].find((c) => c.startsWith('mark-'))?.slice(5) ?? '?';
          const items = [...g.children].filter((e) => {
            const b = e.getBoundingClientRect();
            return b.width + b.height > 0 && e.getAttribute('d') !== '';
          });
          marks[type] = (marks[type] ?? 0) + items.length;
        }
        return [
          div.id,
          {
            marks,
            axes: svg ? svg.querySelectorAll('.role-axis').length : 0,
            legends: svg ? svg.querySelectorAll('.role-legend').length : 0,
            texts: svg ? [...svg.querySelectorAll('text')].map((t) => t.textContent ?? '') : [],
          },
        ];
      }),
    ),
  );
}

/**
 * Moves the pointer over a time chart at a given second and returns the tooltip's rows.
 * @param {import('playwright-core').Page} page
 * @param {string} id the chart's element id
 * @param {number} second
 * @returns {Promise<Record<string, string>>} tooltip title → value as shown
 */
export async function hoverSecond(page, id, second) {
  const at = await page.evaluate(([chart, s]) => {
    const view = /** @type {any} */ (window).rqbenchReport.views[chart];
    const el = /** @type {HTMLElement} */ (document.getElementById(chart));
    el.scrollIntoView({ block: 'center' });
    const box = /** @type {SVGElement} */ (el.querySelector('svg')).getBoundingClientRect();
    const [ox, oy] = view.origin();
    return { x: box.left + ox + view.scale('x')(s), y: box.top + oy + view.height() / 2 };
  }, /** @type {[string, number]} */ ([id, second]));
  await page.mouse.move(at.x - 40, at.y);
  await page.mouse.move(at.x, at.y, { steps: 4 });
  await page.waitForFunction(() => document.getElementById('vg-tooltip-element')?.classList.contains('visible'), null, { timeout: 5_000 });
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('#vg-tooltip-element tr')].map((tr) => {
        const [k, v] = [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '');
        return [k, v];
      }),
    ),
  );
}

/** Launches Debian's Chromium headless (as root it needs --no-sandbox). */
export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
}
