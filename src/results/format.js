/** Number formatting shared by tables and status lines. */

/** 37500 → "37.5k", 2500 → "2.5k", 1200000 → "1.2M" (the seed's "Items per writer per sec"). */
export function short(n) {
  if (!Number.isFinite(n)) return '-';
  const abs = Math.abs(n);
  if (abs >= 1e6) return `${trim(n / 1e6)}M`;
  if (abs >= 1e3) return `${trim(n / 1e3)}k`;
  return trim(n);
}

function trim(x) {
  return String(Math.round(x * 10) / 10);
}

/** 1234567 → "1,234,567". */
export function grouped(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-';
}

/** Fixed decimals, '-' for missing. */
export function fixed(n, d = 1) {
  return Number.isFinite(n) ? n.toFixed(d) : '-';
}

/**
 * A markdown table; the first column left-aligned, the rest right-aligned.
 * @param {string[]} header
 * @param {Array<Array<string|number>>} rows
 */
export function mdTable(header, rows) {
  const align = header.map((_, i) => (i === 0 ? '---' : '---:'));
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(align), ...rows.map(line)].join('\n');
}
