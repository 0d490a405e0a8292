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

/** Hours in the month of the seed's cost table: Monthly rate = Hourly rate × 720. */
export const HOURS_PER_MONTH = 720;

/**
 * A run's instance facts in words, e.g. "r6g.large: 2 vCPU, 16 GB, 0.1008/h = 72.58/month", or ''.
 * @param {{ instanceType?: string, vcpu?: number, memoryGb?: number, hourlyPrice?: number }} f a run's flags
 */
export function instanceText(f) {
  if (!f?.instanceType) return '';
  const parts = [
    f.vcpu !== undefined ? `${f.vcpu} vCPU` : '',
    f.memoryGb !== undefined ? `${f.memoryGb} GB` : '',
    f.hourlyPrice !== undefined ? `${f.hourlyPrice}/h = ${fixed(f.hourlyPrice * HOURS_PER_MONTH, 2)}/month` : '',
  ].filter(Boolean);
  return `${f.instanceType}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}
