/**
 * An experiment's report.html, beside its RESULTS.md: the same text (the finding with its
 * verdicts and intervals, the seed's figures beside each step's, the commands) with every chart
 * the markdown links drawn in place as an interactive chart (hover a dot for its trial, a line
 * for its value; toggle series from the legend), from the same specs as the PNG/SVG files.
 * Not committed (.gitignore): it inlines the chart libraries (~900 KB).
 */
import path from 'node:path';
import { htmlPage, writeHtml } from '../report/html/html-page.js';
import { markdownHtml } from '../report/html/html-markdown.js';

export const REPORT_FILE = 'report.html';

/**
 * @param {import('./spec.js').Spec} spec
 * @param {string} md RESULTS.md as written
 * @param {Array<{ name: string, title: string, spec?: Record<string, any> }>} charts the charts drawn for it
 * @returns {string} the file written
 */
export function writeExperimentHtml(spec, md, charts) {
  const byName = new Map(
    charts
      .filter((c) => c.spec)
      .map((c) => [c.name, { id: `chart-${c.name}`, title: c.title, spec: /** @type {Record<string, any>} */ (c.spec), placed: true }]),
  );
  // the page's own title is RESULTS.md's first line
  const { html, placed } = markdownHtml(md.replace(/^# .*\n/, ''), byName);
  const file = path.join(spec.dir, REPORT_FILE);
  writeHtml(
    file,
    htmlPage({
      title: spec.title,
      subtitle: `experiments/${spec.name}: RESULTS.md with its charts drawn live`,
      sections: [{ html, charts: [...byName.values()].filter((c) => placed.has(c.id)) }],
    }),
  );
  return file;
}
