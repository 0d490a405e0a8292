/**
 * What the charts need from one run directory: its timeline (one row per second), the CPU
 * column of every Redis node, the main operation's .hlog and a few manifest facts.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * @typedef {object} NodeColumn
 * @property {string} column timeline column, e.g. cpu_master_s1_127.0.0.1:7000
 * @property {'master'|'replica'} role the role when the run started
 * @property {number} shard
 * @property {string} addr host:port
 */

/**
 * @typedef {object} RunData
 * @property {string} dir
 * @property {string} name the directory's name without its timestamp
 * @property {'produce'|'consume'} kind
 * @property {Record<string, any>|null} manifest
 * @property {Array<Record<string, string>>} rows timeline cells by column name
 * @property {NodeColumn[]} nodes
 * @property {number} seconds length of the run on the time axis (last second + 1)
 * @property {string} op the main operation: 'batch' (producer) or 'cycle' (consumer)
 * @property {string|null} hlog path of `<op>.hlog`, null when the run has none
 * @property {number} warmupSec seconds the summary leaves out
 * @property {number|null} targetPerSec consumer: cycles per second asked for (readers x 1000 / period)
 */

const NODE_COLUMN = /^cpu_(master|replica)_s(\d+)_(.+)$/;

/** A directory that is not a run directory: the command turns this into exit 2. */
export class NotARunDirError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.code = 'ENORUN';
  }
}

/**
 * Reads one run directory (its manifest is optional: a timeline alone still charts).
 * @param {string} dir
 * @returns {RunData}
 * @throws {NotARunDirError} when dir or its timeline.csv is missing or has no rows
 */
export function readRunDir(dir) {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new NotARunDirError(`${dir}: no such directory`);
  const timeline = path.join(dir, 'timeline.csv');
  if (!fs.existsSync(timeline)) throw new NotARunDirError(`${dir}: not a run directory (no timeline.csv)`);
  const { columns, rows } = parseCsv(fs.readFileSync(timeline, 'utf8'));
  if (rows.length === 0) throw new NotARunDirError(`${timeline}: no rows`);
  const manifest = readJson(path.join(dir, 'manifest.json'));
  const kind = manifest?.command === 'consume' || (!manifest && columns.includes('cycles')) ? 'consume' : 'produce';
  const op = kind === 'consume' ? 'cycle' : 'batch';
  const hlog = path.join(dir, `${op}.hlog`);
  const last = Number(rows[rows.length - 1].second);
  return {
    dir,
    name: path.basename(path.resolve(dir)).replace(/^\d{8}-\d{6}-/, ''),
    kind,
    manifest,
    rows,
    nodes: nodeColumns(columns),
    seconds: (Number.isFinite(last) ? last : rows.length - 1) + 1,
    op,
    hlog: fs.existsSync(hlog) ? hlog : null,
    warmupSec: Number(manifest?.flags?.warmup) || 0,
    targetPerSec: kind === 'consume' ? consumerTarget(manifest) : null,
  };
}

/**
 * CPU columns, masters before replicas within a shard, shards in order: the legend's order.
 * @param {string[]} columns
 * @returns {NodeColumn[]}
 */
function nodeColumns(columns) {
  /** @type {NodeColumn[]} */
  const nodes = [];
  for (const column of columns) {
    const m = NODE_COLUMN.exec(column);
    if (m) nodes.push({ column, role: /** @type {'master'|'replica'} */ (m[1]), shard: Number(m[2]), addr: m[3] });
  }
  return nodes.sort((a, b) => a.shard - b.shard || (a.role === b.role ? a.addr.localeCompare(b.addr) : a.role === 'master' ? -1 : 1));
}

/** @param {Record<string, any>|null} manifest */
function consumerTarget(manifest) {
  const period = Number(manifest?.flags?.period);
  const readers = Array.isArray(manifest?.readers) ? manifest.readers.length : Number(manifest?.flags?.readers) || 1;
  return period > 0 ? (readers * 1000) / period : null;
}

/**
 * timeline.csv has no quoting: the writer replaces commas in event text.
 * @param {string} text
 */
function parseCsv(text) {
  const lines = text.split(/\r?\n/).filter((l) => l !== '');
  const columns = (lines[0] ?? '').split(',');
  const rows = lines.slice(1).map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? '']));
  });
  return { columns, rows };
}

/** @param {string} file */
function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * A timeline cell as a number; null when empty (a second without a sample).
 * @param {string|undefined} cell
 * @returns {number|null}
 */
export function num(cell) {
  if (cell === undefined || cell === '') return null;
  const v = Number(cell);
  return Number.isFinite(v) ? v : null;
}
