/**
 * Writes a run as it goes: each merged second becomes .hlog intervals and a timeline row,
 * and is added to the totals the summary is computed from.
 */
import path from 'node:path';
import { HlogWriter } from './hlog.js';
import { Timeline, clientColumns } from './timeline.js';

export class RunRecorder {
  /**
   * @param {object} p
   * @param {string} p.dir run directory
   * @param {number} p.t0 epoch ms of second 0
   * @param {Array<{ addr: string, role: string, shard: number }>} p.nodes
   * @param {number} p.warmupS seconds left out of the totals
   * @param {string[]} p.columns the command's timeline columns
   * @param {(iv: import('../measure/aggregate.js').MergedInterval) => Record<string, unknown>} p.rowOf their values
   */
  constructor({ dir, t0, nodes, warmupS, columns, rowOf }) {
    this.dir = dir;
    this.t0 = t0;
    this.warmupS = warmupS;
    this.rowOf = rowOf;
    this.timeline = new Timeline(path.join(dir, 'timeline.csv'), columns, nodes);
    this.hlogs = new Map();
    /** @type {Map<string, import('hdr-histogram-js').Histogram>} */
    this.totals = new Map();
    /** @type {import('./summary.js').SecondRow[]} */
    this.rows = [];
    this.counts = {};
    this.errorKinds = {};
    /** @type {Map<number, number>} acknowledged items by the second they were due in */
    this.ackedDue = new Map();
  }

  /**
   * @param {import('../measure/aggregate.js').MergedInterval} iv
   * @param {Array<{ addr: string, role: string, shard: number, cpuPct: number|null }>} cpu
   */
  second(iv, cpu) {
    for (const [name, h] of iv.hist) {
      const [op, tag] = name.includes('.') ? name.split('.') : [name, name];
      this.#hlog(op).writeInterval(h, { tag, startSec: iv.index, endSec: iv.index + 1 });
      if (iv.index >= this.warmupS) {
        const total = this.totals.get(name);
        if (total) total.add(h);
        else this.totals.set(name, h);
      }
    }
    for (const [k, v] of Object.entries(iv.counters)) this.counts[k] = (this.counts[k] || 0) + v;
    for (const [k, v] of Object.entries(iv.errorKinds)) this.errorKinds[k] = (this.errorKinds[k] || 0) + v;
    this.counts.intended = (this.counts.intended || 0) + iv.intended;
    for (const [sec, n] of Object.entries(iv.ackedDue)) this.ackedDue.set(Number(sec), (this.ackedDue.get(Number(sec)) || 0) + n);
    const c = iv.counters;
    const row = this.rowOf(iv);
    this.timeline.append({
      second: iv.index,
      time: new Date(this.t0 + iv.index * 1000).toISOString(),
      ...row,
      ...clientColumns(iv.client),
    }, cpu);
    this.rows.push({ index: iv.index, intended: iv.intended, counters: c, client: iv.client, cpu, row });
  }

  #hlog(op) {
    let w = this.hlogs.get(op);
    if (!w) {
      w = new HlogWriter(path.join(this.dir, `${op}.hlog`), { startTimeMs: this.t0, comment: `rqbench ${op}, microseconds; tags: intended (from the intended start, corrected), sent (from the actual start, uncorrected)` });
      this.hlogs.set(op, w);
    }
    return w;
  }

  close() {
    for (const w of this.hlogs.values()) w.close();
  }
}
