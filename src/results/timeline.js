/**
 * timeline.csv: one row per second, appended as the run goes so an interrupted run keeps
 * every second it measured.
 */
import { appendFileSync, writeFileSync } from 'node:fs';

/** Columns every timeline starts and ends with (the command's own go between). */
export const LEAD_COLUMNS = ['second', 'time'];
export const CLIENT_COLUMNS = ['client_cpu_pct', 'client_cpu_max_pct', 'loop_delay_p99_ms', 'client_rss_mb'];

export class Timeline {
  /**
   * @param {string} file
   * @param {string[]} columns the command's columns, between LEAD_COLUMNS and CLIENT_COLUMNS
   * @param {Array<{ addr: string, role: string, shard: number }>} nodes one CPU column each
   */
  constructor(file, columns, nodes) {
    this.file = file;
    this.base = [...LEAD_COLUMNS, ...columns, ...CLIENT_COLUMNS];
    this.nodeColumns = nodes.map((n) => ({ addr: n.addr, name: `cpu_${n.role}_s${n.shard}_${n.addr}` }));
    this.columns = [...this.base, ...this.nodeColumns.map((c) => c.name)];
    writeFileSync(file, `${this.columns.join(',')}\n`);
  }

  /**
   * @param {Record<string, number|string|null|undefined>} row base columns by name
   * @param {Array<{ addr: string, cpuPct: number|null }>} cpu
   */
  append(row, cpu) {
    const byAddr = new Map(cpu.map((c) => [c.addr, c.cpuPct]));
    const cells = this.base.map((c) => cell(row[c]));
    for (const c of this.nodeColumns) cells.push(cell(byAddr.get(c.addr)));
    appendFileSync(this.file, `${cells.join(',')}\n`);
  }
}

function cell(v) {
  if (v === undefined || v === null || Number.isNaN(v)) return '';
  return String(v);
}
