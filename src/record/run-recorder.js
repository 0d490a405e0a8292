/**
 * Writes a run as it goes: each merged second becomes .hlog intervals and a timeline row,
 * and is added to the totals the summary is computed from when it lies in the window.
 *
 * The window is the seconds [warmupS, windowEnd): the summary's rate, CPU and latency all cover
 * exactly these. windowEnd is the planned duration, or the second a stop was asked for (a
 * Ctrl-C): that second and the drain after it are in the files, not in the totals. It is set
 * before any second at or past it arrives (a second is handed over only once it is over).
 *
 * A failed write (full disk, the directory removed) never throws: it is kept in `writeError`,
 * writing stops there (what is on disk stays readable), and the run decides to stop.
 */
import path from 'node:path';
import { HlogWriter } from './hlog.js';
import { Timeline, clientColumns } from './timeline.js';
import { isFsError } from './run-dir.js';

/**
 * @typedef {object} SecondRow one second of a run, as the recorder keeps it and a summary reads it
 * @property {number} index
 * @property {number} intended
 * @property {Record<string, number>} counters
 * @property {{ cpuPct: number, cpuPctMax: number, loopP99Ms: number, rssMb: number, wallMs?: number }} client
 * @property {import('./timeline.js').NodeSample[]} cpu each node's process and main-thread CPU
 * @property {Record<string, unknown>} [row] the second's timeline columns (RunRecorder's rowOf)
 */

export class RunRecorder {
  /**
   * @param {object} p
   * @param {string} p.dir run directory
   * @param {number} p.t0 epoch ms of second 0
   * @param {Array<{ addr: string, role: string, shard: number }>} p.nodes
   * @param {number} p.warmupS seconds left out of the totals
   * @param {string[]} p.columns the command's timeline columns
   * @param {(iv: import('../measure/aggregate.js').MergedInterval) => Record<string, unknown>} p.rowOf their values
   * @param {Record<string, string>} [p.hlogComments] an .hlog file's header comment by operation, where the usual one does not fit its tags
   */
  constructor({ dir, t0, nodes, warmupS, columns, rowOf, hlogComments = {} }) {
    this.dir = dir;
    this.t0 = t0;
    this.warmupS = warmupS;
    this.rowOf = rowOf;
    this.hlogComments = hlogComments;
    this.timeline = new Timeline(path.join(dir, 'timeline.csv'), columns, nodes);
    this.hlogs = new Map();
    /** @type {Map<string, import('hdr-histogram-js').Histogram>} */
    this.totals = new Map();
    /** @type {SecondRow[]} */
    this.rows = [];
    this.counts = {};
    this.errorKinds = {};
    /** @type {Map<number, number>} acknowledged items by the second they were due in */
    this.ackedDue = new Map();
    /** First second after the window (see above). */
    this.windowEnd = Infinity;
    /** @type {NodeJS.ErrnoException|null} the write that failed; nothing is written after it */
    this.writeError = null;
  }

  /** @param {number} second first second no longer in the window */
  endWindowAt(second) {
    this.windowEnd = Math.min(this.windowEnd, Math.max(second, this.warmupS));
  }

  /**
   * @param {import('../measure/aggregate.js').MergedInterval} iv
   * @param {Array<{ addr: string, role: string, shard: number, cpuPct: number|null }>} cpu
   */
  second(iv, cpu) {
    const row = this.rowOf(iv);
    this.#write(() => {
      for (const [name, h] of iv.hist) {
        const [op, tag] = name.includes('.') ? name.split('.') : [name, name];
        this.#hlog(op).writeInterval(h, { tag, startSec: iv.index, endSec: iv.index + 1 });
      }
      this.timeline.append(
        { second: iv.index, time: new Date(this.t0 + iv.index * 1000).toISOString(), ...row, ...clientColumns(iv.client) },
        cpu,
      );
    });
    for (const [name, h] of iv.hist) {
      if (iv.index >= this.warmupS && iv.index < this.windowEnd) {
        const total = this.totals.get(name);
        if (total) total.add(h);
        else this.totals.set(name, h);
      }
    }
    for (const [k, v] of Object.entries(iv.counters)) this.counts[k] = (this.counts[k] || 0) + v;
    for (const [k, v] of Object.entries(iv.errorKinds)) this.errorKinds[k] = (this.errorKinds[k] || 0) + v;
    this.counts.intended = (this.counts.intended || 0) + iv.intended;
    for (const [sec, n] of Object.entries(iv.ackedDue)) this.ackedDue.set(Number(sec), (this.ackedDue.get(Number(sec)) || 0) + n);
    this.rows.push({ index: iv.index, intended: iv.intended, counters: iv.counters, client: iv.client, cpu, row });
  }

  /** Runs one second's file writes unless an earlier one failed; a failure is kept, not thrown. */
  #write(fn) {
    if (this.writeError) return;
    try {
      fn();
    } catch (e) {
      if (!isFsError(e)) throw e;
      this.writeError = /** @type {NodeJS.ErrnoException} */ (e);
      this.close();
    }
  }

  #hlog(op) {
    let w = this.hlogs.get(op);
    if (!w) {
      w = new HlogWriter(path.join(this.dir, `${op}.hlog`), {
        startTimeMs: this.t0,
        comment:
          this.hlogComments[op] ??
          `rqbench ${op}, microseconds; tags: intended (from the intended start, corrected), sent (from the actual start, uncorrected)`,
      });
      this.hlogs.set(op, w);
    }
    return w;
  }

  close() {
    for (const w of this.hlogs.values()) {
      try {
        w.close();
      } catch {
        // closing a file on a full disk can fail too; what was written stays
      }
    }
  }
}
