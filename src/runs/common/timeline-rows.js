/**
 * What a kind's timeline rows hold between `time` and the client's columns: how a merged second
 * fills them (rowOf), what a row gives back (countsOf), so that `rqbench report` can merge
 * timelines written by separate processes with the same code that wrote them, and which of them a
 * report cannot do without. Each kind declares its own rows (runs/<kind>/) with rows() below.
 */
import { stats } from '../../measure/histogram.js';

/**
 * @typedef {object} TimelineRows
 * @property {string[]} columns
 * @property {string[]} needed the columns a report cannot do without (a timeline without one is refused)
 * @property {string[]} histograms the per-second histograms rowOf reads
 * @property {(iv: { intended: number, counters: Record<string, number>, hist: Map<string, import('hdr-histogram-js').Histogram> }) => Record<string, number|null>} rowOf
 * @property {(row: Record<string, number|string|null>) => { intended: number, counters: Record<string, number> }} countsOf
 * @property {{ p99Column: string, countColumns: string[], ackedColumn?: string, levels?: import('./disturbance.js').Level[], minRiseMs?: number }} disturbedBy
 *   what marks a second as disturbed (runs/common/disturbance.js), besides acknowledgements by the second they were due in
 */

export const of = (h, q) => (h ? stats(h)[q] : null);
export const ofNonEmpty = (h, q) => (h?.totalCount ? stats(h)[q] : null);
export const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * @param {object} p
 * @param {string[]} p.columns in file order
 * @param {string[]} p.needed of them, those a report cannot do without
 * @param {string[]} p.counted columns that are a counter of the same name, summed over the second
 * @param {string[]} p.histograms
 * @param {(iv: any) => Record<string, number|null>} p.derived the other columns
 * @param {(row: Record<string, any>, counters: Record<string, number>) => { intended: number, counters: Record<string, number> }} p.restore
 *   what the other columns give back
 * @param {TimelineRows['disturbedBy']} p.disturbedBy
 * @returns {TimelineRows}
 */
export function rows({ columns, needed, counted, histograms, derived, restore, disturbedBy }) {
  return {
    columns,
    needed,
    histograms,
    disturbedBy,
    rowOf(iv) {
      const row = derived(iv);
      for (const k of counted) row[k] = iv.counters[k];
      return row;
    },
    countsOf(row) {
      /** @type {Record<string, number>} */
      const counters = {};
      for (const k of counted) counters[k] = num(row[k]);
      return restore(row, counters);
    },
  };
}

/**
 * A timeline cell read back as a number; null when empty (a second without a sample).
 * @param {number|string|null|undefined} cell
 * @returns {number|null}
 */
export function cellValue(cell) {
  if (cell === undefined || cell === null || cell === '') return null;
  const v = Number(cell);
  return Number.isFinite(v) ? v : null;
}
