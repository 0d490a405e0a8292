/**
 * The per-operation tables in seed 003's layout (the client's overhead, and whole calls): a `**Service**` row, then one `  —Operation`
 * row each; n, min, avg, med, p90, p99, max in ms with 3 decimals; the first column left-aligned,
 * the rest right-aligned, every column padded to its widest cell; a percentile with too few calls
 * beyond it is flagged (runs/common/thin-percentiles.js).
 */
import { anyThin, pctCell, thinNote } from '../common/thin-percentiles.js';

/**
 * @typedef {object} OpRow
 * @property {string} name
 * @property {{ count: number, min: number, mean: number, p50: number, p90: number, p99: number, max: number } | null} stats
 *   the warm calls, send to reply
 * @property {{ count: number, min: number, mean: number, p50: number, p90: number, p99: number, max: number } | null} [overhead]
 *   the client's own time in each warm call, where measured
 * @property {number|null} connectMs
 * @property {number|null} firstMs
 * @property {string} [error]
 * @property {boolean} [notEmulated] the endpoint does not implement the operation (an emulator's gap)
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
 * The seed's table of one quantity: its label heads the second column (empty in the seed's rows)
 * and every n/min/…/max under it is that quantity. An operation without it says why in that column.
 * @param {Array<{ service: string, ops: OpRow[] }>} services
 * @param {{ label: string, pick: (op: OpRow) => OpRow['stats'] | undefined, missing: (op: OpRow) => string }} how
 * @returns {string}
 */
function seedTable(services, { label, pick, missing }) {
  const rows = [];
  for (const s of services) {
    rows.push([`**${s.service}**`, '', '', '', '', '', '', '', '']);
    for (const op of s.ops) {
      const st = pick(op);
      const n = st?.count ?? 0;
      if (!st) rows.push([`  —${op.name}`, missing(op), '', '', '', '', '', '', '']);
      else
        rows.push([
          `  —${op.name}`,
          '',
          String(n),
          ms(st.min),
          ms(st.mean),
          pctCell(ms(st.p50), n, 0.5),
          pctCell(ms(st.p90), n, 0.9),
          pctCell(ms(st.p99), n, 0.99),
          ms(st.max),
        ]);
    }
  }
  const table = aligned(['', label, 'n', 'min', 'avg', 'med', 'p90', 'p99', 'max'], rows);
  return anyThin(rows) ? `${table}\n\n${thinNote('calls')}` : table;
}

/** How overhead is measured, per client: printed under the overhead table. */
export const OVERHEAD_HOW =
  "Overhead: for the AWS SDK (v3), each attempt (from the retry middleware through signing, the HTTP exchange and deserializing) less the request handler's time from the request to its response, as the SDK for Kotlin's `smithy.client.attempt_overhead_duration`; for Pub/Sub (gRPC), the call less the gRPC channel's time from the request handed to it to the call's status (an interceptor; protobuf encoding and parsing fall in the channel's time, so this is a lower bound); for Redis, encoding the command plus parsing the reply from the moment its bytes arrive; \"not measured\" where the client gives no hook for it.";

const failedOr = (why) => (op) => (op.notEmulated ? 'not emulated' : op.error ? 'failed' : why);

/**
 * Seed 003's table: the client's overhead in each warm call (the call less its time on the wire).
 * @param {Array<{ service: string, ops: OpRow[] }>} services
 */
export function overheadTable(services) {
  return seedTable(services, { label: 'Overhead (ms)', pick: (op) => op.overhead, missing: failedOr('not measured') });
}

/**
 * The same layout for whole calls, from send to reply (seed 003's S3 Express table: "E2E Duration").
 * @param {Array<{ service: string, ops: OpRow[] }>} services
 * @param {string} [label]
 * @returns {string}
 */
export function latencyTable(services, label = 'Round trip (ms)') {
  return seedTable(services, { label, pick: (op) => op.stats, missing: failedOr('') });
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
