/**
 * Merges the per-second intervals of several writers into one interval per second. Counts are
 * summed and histograms added (exact), never averaged; second i is handed on once every writer
 * has reported it or finished.
 */
import { fromSparse } from './sparse.js';

/**
 * What a worker (a writer or a reader) hands the merger each second.
 * @typedef {object} Interval
 * @property {number} index       seconds since t0
 * @property {number} intended    items due in this second by the schedule
 * @property {boolean} final      the writer's last interval
 * @property {object} counters    Counters.snapshot(): the counts by name, and errorKinds
 * @property {Record<number, number>} ackedDue  items acknowledged in this interval, by the second they were due in
 * @property {Record<string, number[]>} hist  sparse histograms (sparse.js): '<op>.intended', '<op>.sent', 'lag'
 * @property {object} client      ClientSampler.sample()
 * @property {Array<[number, number]>} [ackedIds]  --verify, final interval only: [lo, hi] runs of ids acknowledged
 */

/**
 * @typedef {object} MergedInterval
 * @property {number} index
 * @property {number} intended
 * @property {Record<string, number>} counters
 * @property {Record<string, number>} errorKinds
 * @property {Record<number, number>} ackedDue  acknowledged items by the second they were due in
 * @property {Map<string, import('hdr-histogram-js').Histogram>} hist
 * @property {{ cpuPct: number, cpuPctMax: number, loopP99Ms: number, rssMb: number, wallMs: number, writers?: number }} client  wallMs: the shortest writer interval; writers: how many were merged (IntervalMerger only)
 */

/**
 * A worker's interval shorter than this is the tail of a run (its last few ms): its counts are
 * counts, but a rate or a CPU % over it says nothing. The summary and the live gauges leave it out.
 */
export const FULL_SECOND_MS = 500;

export class IntervalMerger {
  /**
   * @param {number} sources
   * @param {(iv: MergedInterval) => void} onMerged
   */
  constructor(sources, onMerged) {
    this.onMerged = onMerged;
    this.last = new Array(sources).fill(-1);
    this.finished = new Array(sources).fill(false);
    this.pending = new Map();
    this.next = 0;
  }

  /**
   * @param {number} source
   * @param {Interval} iv
   */
  add(source, iv) {
    const m = this.#slot(iv.index);
    m.intended += iv.intended;
    for (const [k, v] of Object.entries(iv.counters)) {
      if (k === 'errorKinds') for (const [e, n] of Object.entries(v)) m.errorKinds[e] = (m.errorKinds[e] || 0) + n;
      else m.counters[k] = (m.counters[k] || 0) + v;
    }
    for (const [sec, n] of Object.entries(iv.ackedDue || {})) m.ackedDue[sec] = (m.ackedDue[sec] || 0) + n;
    for (const [name, pairs] of Object.entries(iv.hist)) {
      const h = fromSparse(pairs);
      const have = m.hist.get(name);
      if (have) have.add(h);
      else m.hist.set(name, h);
    }
    const c = iv.client;
    m.client.cpuPct += c.cpuPct;
    m.client.cpuPctMax = Math.max(m.client.cpuPctMax, c.cpuPct);
    m.client.loopP99Ms = Math.max(m.client.loopP99Ms, c.loopP99Ms);
    m.client.rssMb += c.rssMb;
    m.client.wallMs = Math.min(m.client.wallMs, c.wallMs ?? Infinity);
    m.client.writers++;
    this.last[source] = Math.max(this.last[source], iv.index);
    if (iv.final) this.finished[source] = true;
    this.#emitReady();
  }

  /** A writer that will report no more (exited, or crashed). */
  finish(source) {
    this.finished[source] = true;
    this.#emitReady();
  }

  #slot(index) {
    let m = this.pending.get(index);
    if (!m) {
      m = {
        index,
        intended: 0,
        counters: {},
        ackedDue: {},
        errorKinds: {},
        hist: new Map(),
        client: { cpuPct: 0, cpuPctMax: 0, loopP99Ms: 0, rssMb: 0, wallMs: Infinity, writers: 0 },
      };
      this.pending.set(index, m);
    }
    return m;
  }

  #emitReady() {
    for (;;) {
      const i = this.next;
      const ready = this.last.every((last, s) => last >= i || this.finished[s]);
      if (!ready) return;
      const allDone = this.finished.every(Boolean);
      const m = this.pending.get(i);
      if (!m && allDone && ![...this.pending.keys()].some((k) => k > i)) return;
      this.pending.delete(i);
      this.next++;
      if (m) this.onMerged(m);
    }
  }
}
