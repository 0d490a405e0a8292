/**
 * One self-contained HTML page: Vega, Vega-Lite and vega-embed inlined from node_modules (the
 * charting stack the PNG/SVG charts use), every chart's spec and data inlined as JSON, no URL
 * fetched when it opens — a report mailed or copied off a CI machine opens offline. Sections
 * are HTML the callers made (a summary from markdown) and charts; the page's script embeds each
 * chart and records on `window.rqbenchReport` what rendered, so a browser test reads it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { writeText } from '../../record/run-dir.js';
import { redactString } from '../../record/redact.js';

const require = createRequire(import.meta.url);

/**
 * The browser builds, found beside each package's own entry (their exports maps hide build/).
 * vega-embed's UMD build reads the globals `vega` and `vegaLite`, so the order matters.
 */
const LIBRARIES = [
  ['vega', 'vega.min.js'],
  ['vega-lite', 'vega-lite.min.js'],
  ['vega-embed', 'vega-embed.min.js'],
];

/** @type {string|null} read once per process: ~830 KB */
let inlined = null;

function libraries() {
  if (inlined === null) {
    inlined = LIBRARIES.map(([pkg, file]) => {
      const text = fs.readFileSync(path.join(path.dirname(require.resolve(pkg)), file), 'utf8');
      // a source map comment makes a browser with devtools open ask for a file that is not there
      return `<script>${scriptSafe(text.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'))}</script>`;
    }).join('\n');
  }
  return inlined;
}

/**
 * @typedef {object} Chart
 * @property {string} id unique in the page
 * @property {string} title
 * @property {Record<string, any>} spec Vega-Lite, data inlined
 * @property {boolean} [placed] already in the section's html (markdownHtml put it where its
 *   image was); otherwise it goes after the html
 */

/**
 * Where a chart is drawn.
 * @param {Chart} c
 */
export function chartFigure(c) {
  return `<figure class="chart"><div id="${escapeHtml(c.id)}" class="vega" role="img" aria-label="${escapeHtml(c.title)}"></div></figure>`;
}

/**
 * @typedef {object} Section
 * @property {string} [heading] none: the html brings its own
 * @property {string} [html] body above the charts, already HTML
 * @property {Chart[]} [charts]
 */

/**
 * @param {{ title: string, subtitle?: string, sections: Section[] }} page
 * @returns {string} the whole file
 */
export function htmlPage({ title, subtitle, sections }) {
  const charts = sections.flatMap((s) => s.charts ?? []);
  const ids = new Set();
  for (const c of charts) {
    if (ids.has(c.id)) throw new TypeError(`htmlPage: chart id ${c.id} twice`);
    ids.add(c.id);
  }
  const body = sections
    .map((s) =>
      [
        `<section>${s.heading ? `<h2>${escapeHtml(s.heading)}</h2>` : ''}`,
        s.html ?? '',
        ...(s.charts ?? []).filter((c) => !c.placed).map(chartFigure),
        '</section>',
      ].join('\n'),
    )
    .join('\n');
  const specs = Object.fromEntries(charts.map((c) => [c.id, c.spec]));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="rqbench">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
${libraries()}
</head>
<body>
<header><h1>${escapeHtml(title)}</h1>${subtitle ? `<p class="sub">${escapeHtml(subtitle)}</p>` : ''}
<p class="help">Charts: hover a line for that second's values; scroll or pinch over a time chart to zoom, drag to pan, double-click to reset; click a legend entry to show one series alone (shift-click for several, click the background to show all).</p></header>
<main>
${body}
</main>
<script type="application/json" id="rqbench-specs">${jsonInScript(specs)}</script>
<script>${BOOT}</script>
</body>
</html>
`;
}

/** Embeds every chart; `window.rqbenchReport` says how many rendered and what failed. */
const BOOT = `
(function () {
  var specs = JSON.parse(document.getElementById('rqbench-specs').textContent);
  var state = window.rqbenchReport = { expected: Object.keys(specs).length, rendered: 0, errors: [], views: {} };
  Promise.all(Object.keys(specs).map(function (id) {
    return vegaEmbed('#' + CSS.escape(id), specs[id], { actions: false, renderer: 'svg', tooltip: { theme: 'light' } })
      .then(function (r) { state.views[id] = r.view; state.rendered += 1; })
      .catch(function (e) { state.errors.push(id + ': ' + e.message); console.error(id, e); });
  })).then(function () { state.done = true; });
})();
`;

const STYLE = `
body { font-family: "DejaVu Sans", system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 0 16px 48px; color: #222; }
h1 { font-size: 22px; margin: 20px 0 4px; } h2 { font-size: 18px; border-bottom: 1px solid #ddd; padding-bottom: 4px; margin-top: 32px; }
h3 { font-size: 15px; } .sub { color: #555; margin: 0; } .help { color: #666; font-size: 12px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; } th, td { border: 1px solid #ddd; padding: 3px 8px; }
th { background: #f5f5f5; } td[align="right"], th[align="right"] { text-align: right; font-variant-numeric: tabular-nums; }
code { background: #f3f3f3; padding: 0 3px; } pre { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 12px; }
figure.chart { margin: 12px 0 24px; overflow-x: auto; }
`;

/**
 * Text as HTML text or attribute value, credentials in URLs masked.
 * @param {string} s
 */
export function escapeHtml(s) {
  // a URL's credentials are masked in every text a page shows, as in every file rqbench writes
  return redactString(String(s)).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/**
 * A library's code inside a <script> element: `</script` would end it early. The builds have it
 * only inside strings (none today), where `<\/` reads the same; `<!--` would change how the rest
 * is parsed, so a build holding it is refused rather than rewritten.
 * @param {string} s
 */
function scriptSafe(s) {
  if (s.includes('<!--')) throw new Error('htmlPage: a chart library holds "<!--", which an inline script cannot');
  return s.replace(/<\/(script)/gi, '<\\/$1');
}

/**
 * Data as JSON inside a <script> element: every `<` written `\u003c` (it only occurs inside JSON
 * strings, where the escape reads the same), so no value — a run name, an event — can close it.
 * @param {unknown} value
 */
function jsonInScript(value) {
  // a URL with credentials in a run's name or an event (never in a run directory; still) is masked
  return redactString(JSON.stringify(value)).replace(/</g, '\\u003c');
}

/**
 * Writes a page whole or not at all (run-dir.js's temp file and rename), so a failed write never
 * leaves half a page where a report was; the error names the file.
 * @param {string} file
 * @param {string} html
 */
export function writeHtml(file, html) {
  try {
    writeText(file, html);
  } catch (e) {
    const err = /** @type {NodeJS.ErrnoException} */ (e);
    throw new Error(`could not write ${file}: ${err.code ?? err.message}`, { cause: e });
  }
}
