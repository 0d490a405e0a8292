/**
 * A capacity search's report.html, beside its capacity.md: the answer and the steps' table, then
 * every step's producer run laid end to end in the order it ran (CPU per node, throughput
 * against the target, latency, the percentile spectrum), interactive.
 */
import path from 'node:path';
import { htmlPage, writeHtml } from '../html/html-page.js';
import { markdownHtml } from '../html/html-markdown.js';

/**
 * @param {string} dir the search's run directory
 * @param {string} title
 * @param {string} md capacity.md as written
 * @param {Array<{ rate: number, dir: string }>} steps in the order they ran; dir relative to `dir`
 * @returns {Promise<string>} the file written
 */
export async function writeCapacityHtml(dir, title, md, steps) {
  let charts = [];
  let note = '';
  if (steps.length) {
    try {
      // loaded here: run-charts brings Vega, which a search that never gets here need not load
      const { runChartSpecs } = await import('../charts/run-charts.js');
      charts = runChartSpecs(
        steps.map((s) => path.join(dir, s.dir)),
        { stepLabels: steps.map((s, i) => `${i + 1}: ${s.rate}/s`), title: 'every step, in the order it ran' },
      ).map((c) => ({ id: `chart-${c.name}`, title: c.title, spec: c.spec }));
    } catch (e) {
      // a step cut short (Ctrl-C) has no finished run directory: the table still stands
      note = `<p>Charts: not drawn (${String(/** @type {Error} */ (e).message).split('\n')[0]}).</p>`;
    }
  }
  const { html } = markdownHtml(md);
  const file = path.join(dir, 'report.html');
  writeHtml(
    file,
    htmlPage({
      title,
      subtitle: path.resolve(dir),
      sections: [
        { heading: 'Capacity', html },
        { heading: 'The steps, end to end', html: note, charts },
      ],
    }),
  );
  return file;
}
