/**
 * The reports' markdown (a summary, RESULTS.md) as HTML for the page, through marked (GitHub's
 * tables and alignment). A markdown image of a chart the page draws itself (charts/cpu.png →
 * the interactive cpu chart) becomes that chart in place; any other image becomes a link to
 * its file, so the page never loads a file: it opens the same wherever it is copied. Raw HTML
 * in the markdown is shown as text: a run name or an error message is never markup; a URL's
 * credentials are masked, as in every file rqbench writes.
 */
import path from 'node:path';
import { Marked } from 'marked';
import { chartFigure, escapeHtml } from './html-page.js';
import { redactString } from '../../record/redact.js';

/**
 * @param {string} md
 * @param {Map<string, import('./html-page.js').Chart>} [charts] by the image file's name
 *   without its extension (charts/cpu.png → 'cpu')
 * @returns {{ html: string, placed: Set<string> }} placed: ids of the charts put in the text
 */
export function markdownHtml(md, charts = new Map()) {
  /** @type {Set<string>} */
  const placed = new Set();
  const marked = new Marked({
    gfm: true,
    renderer: {
      image({ href, text }) {
        const chart = charts.get(path.basename(String(href)).replace(/\.(png|svg)$/i, ''));
        if (chart && !placed.has(chart.id)) {
          placed.add(chart.id);
          return chartFigure(chart);
        }
        return chart ? '' : `<span class="image">[${escapeHtml(text)}: <code>${escapeHtml(href)}</code>]</span>`;
      },
      html({ text }) {
        return escapeHtml(text);
      },
    },
  });
  // a linked image ([![t](a.png)](a.svg)) would wrap the interactive chart in a link: unwrap it
  const text = redactString(md).replace(/\[(!\[[^\]]*\]\([^)]*\))\]\([^)]*\)/g, '$1');
  return { html: /** @type {string} */ (marked.parse(text, { async: false })), placed };
}
