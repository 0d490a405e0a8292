/**
 * The per-operation table in seed 003's layout: a `**Service**` row, then one `  —Operation`
 * row each; n, min, avg, med, p90, p99, max in ms with 3 decimals; the first column left-aligned,
 * the rest right-aligned, every column padded to its widest cell; a percentile with too few calls
 * beyond it is flagged (results/thin-percentiles.js).
 */
import { anyThin, pctCell, thinNote } from '../../results/thin-percentiles.js';

/**
 * @typedef {object} OpRow
 * @property {string} name
 * @property {{ count: number, min: number, mean: number, p50: number, p90: number, p99: number, max: number } | null} stats
 * @property {number|null} connectMs
 * @property {number|null} firstMs
 * @property {string} [error]
 */

const ms = (v) => (v === null || v === undefined ? '' : v.toFixed(3));

/**
 * @param {string[]} header
 * @param {string[][]} rows
 */
function aligned(header, rows) {
  const widths = header.map((h, c) => Math.max(c === 0 ? 4 : 4, h.length, ...rows.map((r) => r[c].length)));
  const line = (cells) => `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join(' | ')} |`;
  const rule = `| ${widths.map((w, c) => (c === 0 ? ':---'.padEnd(w) : '---:'.padStart(w))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/**
 * @param {Array<{ service: string, ops: OpRow[] }>} services
 * @returns {string} the seed's latency table
 */
export function latencyTable(services) {
  const rows = [];
  for (const s of services) {
    rows.push([`**${s.service}**`, '', '', '', '', '', '', '', '']);
    for (const op of s.ops) {
      const st = op.stats;
      const n = st?.count ?? 0;
      rows.push([`  —${op.name}`, '', String(n), ms(st?.min), ms(st?.mean), pctCell(ms(st?.p50), n, 0.5), pctCell(ms(st?.p90), n, 0.9), pctCell(ms(st?.p99), n, 0.99), ms(st?.max)]);
    }
  }
  const table = aligned(['', 'Overhead (ms)', 'n', 'min', 'avg', 'med', 'p90', 'p99', 'max'], rows);
  return anyThin(rows) ? `${table}\n\n${thinNote('calls')}` : table;
}

/**
 * Connecting, the first call and the warm calls, apart (seed 004 separates them).
 * @param {Array<{ service: string, ops: OpRow[] }>} services
 */
export function phasesTable(services) {
  const rows = [];
  for (const s of services) {
    rows.push([`**${s.service}**`, '', '', '']);
    for (const op of s.ops) rows.push([`  —${op.name}`, ms(op.connectMs), ms(op.firstMs), ms(op.stats?.p50)]);
  }
  return aligned(['', 'connect (ms)', 'first call (ms)', 'warm med (ms)'], rows);
}
