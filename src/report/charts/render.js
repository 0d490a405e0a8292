/**
 * Vega-Lite spec → SVG (Vega's headless SVG renderer, no canvas or browser) → PNG (resvg, a
 * native build shipped in the npm package), with the same TrueType font for both.
 */
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { Resvg } from '@resvg/resvg-js';
import { FONT } from './vega-spec.js';
import { advanceWidths, vegaTextWidth } from './text-width.js';

const require = createRequire(import.meta.url);
// resvg reads only the fonts it is given: the result does not depend on what the machine has.
const FONT_FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((f) => require.resolve(`dejavu-fonts-ttf/ttf/${f}`));
// Vega lays text out with the same font's widths (a process-wide Vega setting). The cast: vega
// exports textMetrics (from vega-scenegraph), but vega-typings does not declare it.
/** @type {any} */ (vega).textMetrics.width = vegaTextWidth({ regular: advanceWidths(FONT_FILES[0]), bold: advanceWidths(FONT_FILES[1]) });

/**
 * @param {Record<string, any>} spec Vega-Lite
 * @returns {Promise<string>} SVG text
 */
export async function toSvg(spec) {
  const view = new vega.View(vega.parse(compile(/** @type {any} */ (spec)).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/**
 * @param {string} svg
 * @returns {Buffer} PNG at the SVG's own size
 */
export function toPng(svg) {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'original' },
    background: 'white',
    font: { loadSystemFonts: false, fontFiles: FONT_FILES, defaultFontFamily: FONT, sansSerifFamily: FONT },
  });
  return resvg.render().asPng();
}

/**
 * Draws a chart in memory: nothing is written until every chart of a call has been drawn.
 * @param {Record<string, any>} spec Vega-Lite
 * @returns {Promise<{ svgText: string, pngBytes: Buffer }>}
 */
export async function renderChart(spec) {
  let svgText = await toSvg(spec);
  // Stacked panels (vega-spec.js panelsSpec) are corrected to the size asked for. Resizing the
  // panels moves their ticks, and a label or point at a plot's edge reaches a few pixels past it
  // or not, so panel heights alone can swing around the goal; what is left after two passes is
  // taken up by the padding, which moves nothing inside the drawing.
  const fit = spec.usermeta?.fit;
  if (!fit || !Array.isArray(spec.vconcat)) return { svgText, pngBytes: toPng(svgText) };
  for (let pass = 0; pass < 2; pass++) {
    const got = svgSize(svgText);
    if (got.width === fit.width && got.height === fit.height) break;
    spec = refit(spec, fit, got);
    svgText = await toSvg(spec);
  }
  const got = svgSize(svgText);
  if (got.width !== fit.width || got.height !== fit.height) {
    spec = { ...spec, padding: padTo(spec.padding, fit, got) };
    svgText = await toSvg(spec);
  }
  return { svgText, pngBytes: toPng(svgText) };
}

/**
 * Padding that makes a drawing of size got exactly want: the difference goes to the right and the
 * bottom, and what they cannot give up (padding is never negative) to the left and the top.
 * @param {number|{ left?: number, right?: number, top?: number, bottom?: number }} padding
 * @param {{ width: number, height: number }} want
 * @param {{ width: number, height: number }} got
 * @returns {{ left: number, right: number, top: number, bottom: number }}
 */
export function padTo(padding, want, got) {
  const p =
    typeof padding === 'number'
      ? { left: padding, right: padding, top: padding, bottom: padding }
      : { left: 0, right: 0, top: 0, bottom: 0, ...padding };
  const share = (/** @type {number} */ first, /** @type {number} */ second, /** @type {number} */ d) => {
    const a = Math.max(0, first + d);
    return [a, Math.max(0, second + d - (a - first))];
  };
  const [right, left] = share(p.right, p.left, Math.round(want.width - got.width));
  const [bottom, top] = share(p.bottom, p.top, Math.round(want.height - got.height));
  return { left, right, top, bottom };
}

/**
 * @param {string} svg
 * @returns {{ width: number, height: number }} the root element's
 */
function svgSize(svg) {
  const root = /<svg\b[^>]*>/.exec(svg)?.[0] ?? '';
  const attr = (name) => Number(new RegExp(`\\s${name}="([\\d.]+)"`).exec(root)?.[1]);
  return { width: attr('width'), height: attr('height') };
}

/**
 * The same panels, each wider by what the image lacks in width and taller by its share of what
 * it lacks in height (whole pixels, the odd ones to the top panels).
 * @param {Record<string, any>} spec with vconcat
 * @param {{ width: number, height: number }} want
 * @param {{ width: number, height: number }} got
 */
function refit(spec, want, got) {
  const n = spec.vconcat.length;
  const dw = Math.round(want.width - got.width);
  const dh = Math.round(want.height - got.height);
  const each = Math.trunc(dh / n);
  const rest = dh - each * n;
  return {
    ...spec,
    vconcat: spec.vconcat.map((p, i) => ({
      ...p,
      width: Math.max(10, p.width + dw),
      height: Math.max(10, p.height + each + (i < Math.abs(rest) ? Math.sign(rest) : 0)),
    })),
  };
}

/**
 * Writes `<base>.svg` and `<base>.png` of each chart, each file whole or not at all (a temp file
 * renamed into place: a full disk leaves no cut-off image behind).
 * @param {Array<{ base: string, svgText: string, pngBytes: Buffer }>} charts base: path without extension
 * @returns {Promise<Array<{ svg: string, png: string }>>} the paths written, in order
 */
export async function writeCharts(charts) {
  const out = [];
  for (const { base, svgText, pngBytes } of charts) {
    const files = { svg: `${base}.svg`, png: `${base}.png` };
    await writeWhole(files.svg, svgText);
    await writeWhole(files.png, pngBytes);
    out.push(files);
  }
  return out;
}

/**
 * @param {string} file
 * @param {string|Buffer} data
 */
async function writeWhole(file, data) {
  const tmp = `${file}.tmp`;
  try {
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
}
