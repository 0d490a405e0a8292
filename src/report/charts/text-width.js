/**
 * Text widths from the font's own advance widths. Without a canvas, Vega estimates every
 * character as 0.8 em, about a third too wide for DejaVu Sans: legends take room the plot
 * needs and labels are cut early. Vega lets a program supply the measure (vl-convert does the
 * same); the widths here are the ones resvg draws the PNG with, so the layout fits the picture.
 */
import fs from 'node:fs';

/**
 * Advance width of each character, in em, from a TrueType file's cmap (format 4, the Basic
 * Multilingual Plane) and hmtx tables.
 * @param {string} file
 * @returns {(code: number) => number|undefined} undefined for a character the font lacks
 */
export function advanceWidths(file) {
  const b = fs.readFileSync(file);
  /** @type {Record<string, number>} */
  const tables = {};
  for (let i = 0, n = b.readUInt16BE(4); i < n; i++) {
    const rec = 12 + 16 * i;
    tables[b.toString('latin1', rec, rec + 4)] = b.readUInt32BE(rec + 8);
  }
  for (const t of ['head', 'hhea', 'hmtx', 'cmap']) if (tables[t] === undefined) throw new Error(`${file}: no ${t} table`);
  const unitsPerEm = b.readUInt16BE(tables.head + 18);
  const metrics = b.readUInt16BE(tables.hhea + 34);
  const advance = (/** @type {number} */ glyph) => b.readUInt16BE(tables.hmtx + 4 * Math.min(glyph, metrics - 1)) / unitsPerEm;
  const sub = bmpSubtable(b, tables.cmap);
  if (sub === null) throw new Error(`${file}: no Unicode BMP cmap`);
  const segs = b.readUInt16BE(sub + 6) / 2;
  const ends = sub + 14;
  const starts = ends + 2 * segs + 2;
  const deltas = starts + 2 * segs;
  const rangeOffsets = deltas + 2 * segs;
  /** @type {Map<number, number|undefined>} */
  const cache = new Map();
  return (code) => {
    if (cache.has(code)) return cache.get(code);
    let width;
    for (let s = 0; s < segs && code <= 0xffff; s++) {
      if (code > b.readUInt16BE(ends + 2 * s)) continue;
      const start = b.readUInt16BE(starts + 2 * s);
      if (code < start) break;
      const delta = b.readInt16BE(deltas + 2 * s);
      const ro = b.readUInt16BE(rangeOffsets + 2 * s);
      let glyph = ro === 0 ? code : b.readUInt16BE(rangeOffsets + 2 * s + ro + 2 * (code - start));
      if (ro === 0 || glyph !== 0) glyph = (glyph + delta) & 0xffff;
      if (glyph !== 0) width = advance(glyph);
      break;
    }
    cache.set(code, width);
    return width;
  };
}

/**
 * Offset of the cmap's format-4 subtable for Windows Unicode BMP (3,1) or Unicode (0,x).
 * @param {Buffer} b
 * @param {number} cmap
 * @returns {number|null}
 */
function bmpSubtable(b, cmap) {
  for (let i = 0, n = b.readUInt16BE(cmap + 2); i < n; i++) {
    const rec = cmap + 4 + 8 * i;
    const platform = b.readUInt16BE(rec);
    const encoding = b.readUInt16BE(rec + 2);
    const sub = cmap + b.readUInt32BE(rec + 4);
    if ((platform === 3 && encoding === 1) || platform === 0) {
      if (b.readUInt16BE(sub) === 4) return sub;
    }
  }
  return null;
}

/**
 * A Vega textMetrics.width: the text's width in px, at most the item's limit (Vega truncates
 * to the limit itself, asking this function for the width of each candidate).
 * @param {{ regular: (code: number) => number|undefined, bold: (code: number) => number|undefined }} fonts
 * @returns {(item: { fontSize?: number, fontWeight?: string|number, limit?: number }, text: unknown) => number}
 */
export function vegaTextWidth(fonts) {
  return (item, text) => {
    const size = item.fontSize != null ? Number(item.fontSize) || 0 : 11;
    const weight = item.fontWeight;
    const font = weight === 'bold' || weight === 'bolder' || Number(weight) >= 600 ? fonts.bold : fonts.regular;
    let em = 0;
    // Characters the font lacks fall back to Vega's own estimate (0.8 em).
    for (const ch of text == null ? '' : String(text).trim()) em += font(/** @type {number} */ (ch.codePointAt(0))) ?? 0.8;
    const px = em * size;
    return item.limit && item.limit > 0 ? Math.min(px, item.limit) : px;
  };
}
