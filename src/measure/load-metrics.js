/**
 * `rqbench load` as Prometheus metrics (--metrics-port): a load has no schedule and no seconds of
 * its own, only cells of the grid run as fast as they go, so what is live is the records stored
 * so far, the cell under way, and each finished cell's rate, redirects and errors.
 */
import client from 'prom-client';

/** The load's cell, as run-load.js reports it. */
/** @typedef {{ threads: number, connections: number, stored: number, done?: { recordsPerSec: number, errors: number, redirects: { moved: number, ask: number, retries: number } } }} CellReport */

export class LoadMetrics {
  /** @param {import('prom-client').Registry} registry */
  constructor(registry) {
    const reg = { registers: [registry] };
    const cell = ['threads', 'connections'];
    new client.Gauge({ name: 'rqbench_run_info', help: "The run's kind (1 while it is served)", labelNames: ['kind'], ...reg }).set(
      { kind: 'load' },
      1,
    );
    this.ended = new client.Gauge({
      name: 'rqbench_run_ended',
      help: '1 once the run is over: the values are final (the endpoint lingers with them)',
      ...reg,
    });
    this.stored = new client.Counter({
      name: 'rqbench_load_records_stored_total',
      help: 'Records stored, every cell of the grid together',
      ...reg,
    });
    this.stored.inc(0);
    this.under = new client.Gauge({
      name: 'rqbench_load_cell_running',
      help: '1 for the cell of the grid under way',
      labelNames: cell,
      ...reg,
    });
    this.finished = new client.Counter({ name: 'rqbench_load_cells_finished_total', help: 'Cells of the grid finished', ...reg });
    this.finished.inc(0);
    this.rate = new client.Gauge({
      name: 'rqbench_load_cell_records_per_second',
      help: "A finished cell's load rate: records over the time from every thread ready to the last record stored",
      labelNames: cell,
      ...reg,
    });
    this.redirects = new client.Counter({
      name: 'rqbench_redirects_total',
      help: 'Commands sent again where the cluster said (MOVED, ASK)',
      labelNames: ['kind'],
      ...reg,
    });
    this.retries = new client.Counter({
      name: 'rqbench_retries_total',
      help: 'Commands sent again after a wait, by why',
      labelNames: ['kind'],
      ...reg,
    });
    this.errors = new client.Counter({ name: 'rqbench_errors_total', help: 'Commands that failed', labelNames: ['kind'], ...reg });
    for (const k of ['moved', 'ask']) this.redirects.inc({ kind: k }, 0);
    this.retries.inc({ kind: 'other' }, 0);
    /** records of the cell under way already counted */
    this.counted = 0;
    /** @type {string|null} */
    this.current = null;
  }

  /** @param {{ cell?: CellReport }} s what run-load.js says each second of a cell, and at its end */
  second({ cell }) {
    if (cell) this.cell(cell);
  }

  /** @param {CellReport} c */
  cell(c) {
    const labels = { threads: String(c.threads), connections: String(c.connections) };
    const key = JSON.stringify(labels);
    if (this.current !== key) {
      this.counted = 0;
      this.current = key;
    }
    if (c.stored > this.counted) this.stored.inc(c.stored - this.counted);
    this.counted = Math.max(this.counted, c.stored);
    if (!c.done) {
      this.under.set(labels, 1);
      return;
    }
    this.under.remove(labels);
    this.current = null;
    this.finished.inc();
    this.rate.set(labels, c.done.recordsPerSec);
    for (const k of /** @type {const} */ (['moved', 'ask'])) if (c.done.redirects[k]) this.redirects.inc({ kind: k }, c.done.redirects[k]);
    if (c.done.redirects.retries) this.retries.inc({ kind: 'other' }, c.done.redirects.retries);
    if (c.done.errors) this.errors.inc({ kind: 'command' }, c.done.errors);
  }

  end() {
    // a cell stopped half way is under way no more
    this.under.reset();
    this.ended.set(1);
  }
}
