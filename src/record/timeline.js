/**
 * timeline.csv: one row per second, appended as the run goes so an interrupted run keeps
 * every second it measured; read back (readTimeline) when runs are merged into a report.
 *
 * Each Redis node has a `cpu_<role>_s<shard>_<addr>` column, its whole process's CPU (the meaning
 * it always had, so older run directories read the same), and, when the server reports it, an
 * `engine_<role>_s<shard>_<addr>` column: its main thread's CPU, the figure to size for.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { writeText } from './run-dir.js';
import { UsageError, shown } from '../usage-error.js';

/** Columns every timeline starts and ends with (the command's own go between). */
export const LEAD_COLUMNS = ['second', 'time'];
/** client_wall_ms: the shortest worker interval of the second (a short last one gives a noisy CPU figure). */
/**
 * Text columns after the client's: what happened in that second (--at actions, topology changes,
 * a target not answering), '; '-separated; and unsampled, the CPU columns of the nodes the sampler
 * had listed but got no figure from that second, ' '-separated (an empty CPU cell alone cannot
 * tell a gap from a node not listed yet or any more: a report recomputes coverage from this).
 */
export const TEXT_COLUMNS = ['events', 'unsampled'];
export const CLIENT_COLUMNS = ['client_cpu_pct', 'client_cpu_max_pct', 'loop_delay_p99_ms', 'client_rss_mb', 'client_wall_ms'];

export class Timeline {
  /**
   * @param {string} file
   * @param {string[]} columns the command's columns, between LEAD_COLUMNS and CLIENT_COLUMNS
   * @param {Array<{ addr: string, role: string, shard: number }>} nodes one CPU column each (more
   *   join when a second brings a node, or a node in a new role, not seen before; an engine column
   *   joins when a node first reports its main thread)
   */
  constructor(file, columns, nodes) {
    this.file = file;
    this.columns = columns;
    /** @type {NodeColumnOf[]} every node column, in file order */
    this.nodeColumns = nodes.map(({ addr, role, shard }) => ({ addr, role, shard, engine: false }));
    this.known = new Set(this.nodeColumns.map(columnOf));
    this.layout = timelineLayout(columns, this.nodeColumns);
    writeFileSync(file, `${this.layout.columns.join(',')}\n`);
  }

  /**
   * @param {Record<string, number|string|null|undefined>} row base columns by name
   * @param {NodeSample[]} cpu
   */
  append(row, cpu) {
    const added = [];
    for (const { addr, role, shard, enginePct } of cpu) {
      for (const engine of enginePct === undefined ? [false] : [false, true]) {
        const c = { addr, role, shard, engine };
        if (!this.known.has(columnOf(c))) added.push(c);
      }
    }
    if (added.length) this.#grow(added);
    appendFileSync(this.file, `${this.layout.line(row, cpu)}\n`);
  }

  /**
   * New node columns at the end: the file is rewritten (to a temp file, then renamed) with the
   * longer header and the earlier rows padded, so every line keeps the header's column count.
   * @param {NodeColumnOf[]} added
   */
  #grow(added) {
    const before = this.layout.columns.length;
    for (const c of added) {
      this.nodeColumns.push(c);
      this.known.add(columnOf(c));
    }
    this.layout = timelineLayout(this.columns, this.nodeColumns);
    const pad = ','.repeat(this.layout.columns.length - before);
    const [, ...rows] = readFileSync(this.file, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    writeText(this.file, [this.layout.columns.join(','), ...rows.map((r) => r + pad)].map((l) => `${l}\n`).join(''));
  }
}

/**
 * A node's figures for one second, as the sampler gives them (measure/server-sampler.js NodeCpu).
 * The timeline's columns are its CPU; the memory and byte counts stay in the run's own rows,
 * where its summary's cost per item is made from.
 * @typedef {{ addr: string, role: string, shard: number, cpuPct: number|null, enginePct?: number|null, cpuS?: number|null, engineS?: number|null, usedMemory?: number|null,
 *   netIn?: number|null, netOut?: number|null, replIn?: number|null, replOut?: number|null }} NodeSample
 */

/**
 * One node column: the node's process CPU, or (engine) its main thread's.
 * @typedef {{ addr: string, role: string, shard: number, engine: boolean }} NodeColumnOf
 */

/**
 * The columns of a timeline and how a second becomes a CSV line (the run's file and a report's
 * merged timeline share it).
 * @param {string[]} columns the command's columns, between LEAD_COLUMNS and CLIENT_COLUMNS
 * @param {NodeColumnOf[]} nodeColumns the node columns, in file order
 */
export function timelineLayout(columns, nodeColumns) {
  const base = [...LEAD_COLUMNS, ...columns, ...CLIENT_COLUMNS, ...TEXT_COLUMNS];
  const names = nodeColumns.map(columnOf);
  return {
    columns: [...base, ...names],
    /**
     * @param {Record<string, unknown>} row base columns by name
     * @param {NodeSample[]} cpu
     */
    line(row, cpu) {
      // by column, not address: a node whose role changed fills its new column from then on
      const byColumn = new Map();
      for (const c of cpu) byColumn.set(nodeColumn(c), c.cpuPct).set(engineColumn(c), c.enginePct);
      // the process columns only: a node's main thread has a figure exactly when its process has
      // (one INFO reply gives both), so a report knows the engine gaps from these
      const gaps = cpu
        .filter((c) => c.cpuPct === null || c.cpuPct === undefined)
        .map(nodeColumn)
        .join(' ');
      return [...base.map((c) => cell(c === 'unsampled' ? gaps : row[c])), ...names.map((c) => cell(byColumn.get(c)))].join(',');
    },
  };
}

/**
 * The load generator's columns of a second.
 * @param {{ cpuPct: number, cpuPctMax: number, loopP99Ms: number, rssMb: number, wallMs?: number }} c
 */
export function clientColumns(c) {
  return {
    client_cpu_pct: c.cpuPct,
    client_cpu_max_pct: c.cpuPctMax,
    loop_delay_p99_ms: c.loopP99Ms,
    client_rss_mb: c.rssMb,
    client_wall_ms: Number.isFinite(c.wallMs) ? c.wallMs : null,
  };
}

/**
 * The load generator's figures read back from a row (null where not measured).
 * @param {Record<string, number|string|null>} row
 */
export function clientOf(row) {
  const n = (v) => (typeof v === 'number' ? v : null);
  return {
    cpuPct: n(row.client_cpu_pct),
    cpuPctMax: n(row.client_cpu_max_pct),
    loopP99Ms: n(row.loop_delay_p99_ms),
    rssMb: n(row.client_rss_mb),
    wallMs: n(row.client_wall_ms),
  };
}

/** @param {unknown} v a cell: empty for a value not measured */
function cell(v) {
  if (v === undefined || v === null || v === '' || Number.isNaN(v)) return '';
  // a text cell (events: add-shard's node list) must not split the row: commas become semicolons
  if (typeof v === 'string') return v.replaceAll(',', ';').replaceAll('\n', ' ');
  // 12 significant digits: a sum of per-writer figures (1.7 + 6.7) is written 8.4, not 8.399999999999999
  return typeof v === 'number' && !Number.isInteger(v) ? String(Number(v.toPrecision(12))) : String(v);
}

/**
 * The CPU column of a Redis node: role, shard and address in the name, so the file alone says
 * what each column is.
 * @param {{ addr: string, role: string, shard: number }} n
 */
export function nodeColumn(n) {
  return `cpu_${n.role}_s${n.shard}_${n.addr}`;
}

/**
 * The main-thread CPU column of a Redis node (written only for a node that reports it).
 * @param {{ addr: string, role: string, shard: number }} n
 */
export function engineColumn(n) {
  return `engine_${n.role}_s${n.shard}_${n.addr}`;
}

/** @param {NodeColumnOf} c */
const columnOf = (c) => (c.engine ? engineColumn(c) : nodeColumn(c));

const NODE_COLUMN_RE = /^(cpu|engine)_(\w+?)_s(\d+)_(.+)$/;

/**
 * What a node column is, from its name; null for any other column.
 * @param {string} column
 * @returns {NodeColumnOf|null}
 */
export function parseNodeColumn(column) {
  const m = NODE_COLUMN_RE.exec(column);
  return m ? { role: m[2], shard: Number(m[3]), addr: m[4], engine: m[1] === 'engine' } : null;
}
/** Every other column: a lower-case name, as the writers name them. */
const NAME_RE = /^[a-z][a-z0-9_]*$/;

/**
 * @typedef {object} TimelineFile
 * @property {string[]} columns every column, in file order
 * @property {Array<{ addr: string, role: string, shard: number, column: string, engineColumn?: string }>} nodes
 *   one per process CPU column; engineColumn: the node's main-thread column, when the file has it
 * @property {Array<Record<string, number|string|null>>} rows numbers as numbers, `time` as text, empty cells as null
 * @property {number} lines how many lines the file has, header included
 */

/**
 * Reads a timeline.csv back. A last line cut short (a run killed mid-write: no newline after it)
 * is left out; anything else that is not what the writer writes throws, naming the file and line.
 * @param {string} file
 * @returns {TimelineFile}
 * @throws {UsageError} on a missing or malformed header, a row with other cells than the header's,
 *   a number column that does not hold a number, or seconds out of order
 */
export function readTimeline(file) {
  return parseTimeline(readFileSync(file, 'utf8'), file);
}

/**
 * A timeline's text read back as readTimeline reads its file (`rqbench report --format csv`'s
 * merged timeline too).
 * @param {string} text
 * @param {string} file named in errors
 * @returns {TimelineFile}
 */
export function parseTimeline(text, file) {
  if (text === '') throw new UsageError(`${file}: empty (not even the header line)`);
  const lines = text.split('\n');
  // each row is one append ending in its newline: only the text after the last one can be cut
  const tail = lines.at(-1) === '' ? (lines.pop(), null) : lines.length;
  const columns = readHeader(file, lines[0]);
  const nodes = [];
  for (const column of columns) {
    const c = parseNodeColumn(column);
    if (!c || c.engine) continue;
    const engine = engineColumn(c);
    nodes.push({ role: c.role, shard: c.shard, addr: c.addr, column, ...(columns.includes(engine) && { engineColumn: engine }) });
  }
  const rows = [];
  for (let i = 1; i < lines.length; i++) {
    const at = `${file}:${i + 1}`;
    const cells = lines[i].split(',');
    if (cells.length !== columns.length) {
      if (i + 1 === tail) break;
      throw new UsageError(`${at}: ${cells.length} cell${cells.length === 1 ? '' : 's'} where the header has ${columns.length}`);
    }
    /** @type {Record<string, number|string|null>} */
    const row = {};
    columns.forEach((c, k) => {
      const v = cells[k];
      if (c === 'time' || TEXT_COLUMNS.includes(c)) row[c] = v;
      else if (v === '') row[c] = null;
      else if (Number.isFinite(Number(v))) row[c] = Number(v);
      else throw new UsageError(`${at}: ${c} is not a number (got ${shown(v.slice(0, 40))})`);
    });
    const before = rows.at(-1)?.second ?? -1;
    if (!Number.isInteger(row.second) || row.second <= before) {
      throw new UsageError(`${at}: second must be a whole number after the previous row's ${before} (got ${shown(cells[0].slice(0, 40))})`);
    }
    rows.push(row);
  }
  return { columns, nodes, rows, lines: lines.length };
}

/**
 * @param {string} file
 * @param {string} head the first line
 * @returns {string[]} the columns
 */
function readHeader(file, head) {
  const columns = head.split(',');
  if (columns[0] !== LEAD_COLUMNS[0] || columns[1] !== LEAD_COLUMNS[1]) {
    throw new UsageError(`${file}:1: not a timeline header: it starts with ${LEAD_COLUMNS.join(',')} (got ${shown(head.slice(0, 40))})`);
  }
  const seen = new Set();
  for (const c of columns) {
    if (!NAME_RE.test(c) && !NODE_COLUMN_RE.test(c)) throw new UsageError(`${file}:1: ${shown(c.slice(0, 40))} is not a column name`);
    if (seen.has(c)) throw new UsageError(`${file}:1: column ${c} appears twice`);
    seen.add(c);
  }
  return columns;
}
