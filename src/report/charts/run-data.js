/**
 * What the charts need from one run directory: its timeline (one row per second), the CPU
 * column of every Redis node, the .hlog curves of its latency distribution (the main operation's;
 * a queue consumer's three seed metrics) and every .hlog file (a queue consumer's per-second
 * percentiles are read from them), the summary's window and a few manifest facts. The directory is read and checked by report/read/run-dirs.js, as the reports
 * read it, so a chart never starts from a file a report would refuse.
 */
import path from 'node:path';
import { readRunDir as readChecked } from '../read/run-dirs.js';
import { readKind } from '../../runs/kinds.js';

/**
 * @typedef {object} Curve one line of the percentile chart
 * @property {string} label e.g. 'batch', 'E2E'
 * @property {string} hlog path of the .hlog file
 * @property {string} tag the tag read from it
 * @property {number[]} dash its line's dash when each step has several curves (E2E solid)
 */

/**
 * @typedef {object} NodeColumn
 * @property {string} column timeline column of the process's CPU, e.g. cpu_master_s1_127.0.0.1:7000
 * @property {string} [engineColumn] of the main thread's, e.g. engine_master_s1_127.0.0.1:7000, when the run has it
 * @property {'master'|'replica'} role the role when the run started
 * @property {number} shard
 * @property {string} addr host:port
 */

/**
 * @typedef {object} RunData
 * @property {string} dir
 * @property {string} name the directory's name without its timestamp
 * @property {string} kind
 * @property {Record<string, any>} manifest
 * @property {Array<Record<string, number|string|null>>} rows timeline cells by column name (numbers, or null when empty)
 * @property {NodeColumn[]} nodes
 * @property {number} seconds length of the run on the time axis (last second + 1)
 * @property {string} op the main operation: 'batch' (producer), 'cycle' (consumer), 'publish'
 *   (queue publisher) or 'e2e' (queue consumer); its timeline has `<op>_p50_ms` and `<op>_p99_ms`
 * @property {Curve[]} curves the latency distributions the run has files for
 * @property {Map<string, string>} hlogs every .hlog file of the run by operation ('e2e' → …/e2e.hlog)
 * @property {{ fromSecond: number, toSecond: number }} window the seconds [fromSecond, toSecond) the summary covers
 * @property {number|null} targetPerSec a target of the kind's own per second (a consumer's cycles: readers x 1000 / period)
 */

/**
 * Reads one run directory.
 * @param {string} dir
 * @returns {RunData}
 * @throws {import('../../usage-error.js').UsageError} when dir is not a finished run
 *   directory of a kind the reports read, or a file of it is damaged
 */
export function readRunDir(dir) {
  const run = readChecked(dir);
  const { rows } = run.timeline;
  const { mainOp: op, chart } = readKind(run.kind);
  const last = rows.at(-1)?.second;
  return {
    dir,
    name: path.basename(path.resolve(dir)).replace(/^\d{8}-\d{6}-/, ''),
    kind: run.kind,
    manifest: run.manifest,
    rows,
    nodes: nodeColumns(run.timeline.nodes),
    seconds: typeof last === 'number' ? last + 1 : 0,
    op,
    curves: curvesOf(run, chart.curves ?? [[op, op, 'intended', [1, 0]]]),
    hlogs: run.hlogs,
    window: run.window,
    targetPerSec: chart.targetPerSec?.(run.manifest) ?? null,
  };
}

/**
 * The kind's percentile lines the run has files for.
 * @param {import('../read/run-dirs.js').RunDir} run
 * @param {import('../../runs/run-kind.js').Curve[]} wanted
 * @returns {Curve[]}
 */
function curvesOf(run, wanted) {
  return wanted.filter(([, o]) => run.hlogs.has(o)).map(([label, o, tag, dash]) => ({ label, hlog: run.hlogs.get(o), tag, dash }));
}

/**
 * The master and replica CPU columns, masters before replicas within a shard, shards in order:
 * the legend's order.
 * @param {Array<{ column: string, engineColumn?: string, role: string, shard: number, addr: string }>} columns
 * @returns {NodeColumn[]}
 */
function nodeColumns(columns) {
  /** @type {NodeColumn[]} */
  const nodes = [];
  for (const { column, engineColumn, role, shard, addr } of columns) {
    if (role === 'master' || role === 'replica') nodes.push({ column, role, shard, addr, ...(engineColumn && { engineColumn }) });
  }
  return nodes.sort((a, b) => a.shard - b.shard || (a.role === b.role ? a.addr.localeCompare(b.addr) : a.role === 'master' ? -1 : 1));
}
