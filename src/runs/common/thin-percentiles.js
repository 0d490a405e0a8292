/**
 * A percentile is only as good as the samples beyond it: p99 of 50 samples is the largest one, and
 * moves with it from run to run. Where a table prints a percentile with fewer than BEYOND_MIN
 * samples past it (p50 under 20 samples, p90 under 100, p99 under 1,000, p99.9 under 10,000), the
 * cell is flagged ⚠ and a note under the table says why.
 */

/** Samples that must lie beyond a percentile for it to be read off them rather than off one or two. */
export const BEYOND_MIN = 10;
export const FLAG = '⚠';

/**
 * @param {number} n samples the percentile was read from
 * @param {number} q the quantile, 0.99 for p99
 */
export function isThin(n, q) {
  // 100 x (1 - 0.9) is 9.999… in floating point: round before comparing
  return Math.round(n * (1 - q) * 1e6) / 1e6 < BEYOND_MIN;
}

/**
 * A percentile's cell, flagged when thin.
 * @param {string} text the formatted value
 * @param {number} n
 * @param {number} q
 */
export function pctCell(text, n, q) {
  return text !== '-' && isThin(n, q) ? `${text} ${FLAG}` : text;
}

/**
 * Whether a table's rows flagged a cell (the note goes under it then).
 * @param {Array<Array<string|number>>} rows
 */
export function anyThin(rows) {
  return rows.some((r) => r.some((cell) => String(cell).endsWith(FLAG)));
}

/**
 * The note under a table that flagged a cell.
 * @param {string} [what] what the samples are (batches, calls, messages)
 */
export function thinNote(what = 'samples') {
  return `${FLAG} fewer than ${BEYOND_MIN} ${what} lie beyond this percentile (p50 needs ${2 * BEYOND_MIN}, p99 ${(BEYOND_MIN * 100).toLocaleString('en-US')}, p99.9 ${(BEYOND_MIN * 1000).toLocaleString('en-US')}): it is read off the few largest and moves with them from run to run; a longer run gives it the samples it needs.`;
}
