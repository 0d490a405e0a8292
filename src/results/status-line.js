/** The one-line live status on stderr (TTY only): elapsed, rate, p99, errors, master CPU per shard. */
import { stats } from '../measure/histogram.js';
import { grouped, fixed } from './format.js';

export class StatusLine {
  /**
   * @param {number} targetRate items/s
   * @param {number} durationS 0: open-ended
   */
  constructor(targetRate, durationS) {
    this.targetRate = targetRate;
    this.durationS = durationS;
    this.errors = 0;
  }

  /**
   * @param {import('../measure/aggregate.js').MergedInterval} iv
   * @param {Array<{ role: string, shard: number, cpuPct: number|null }>} cpu
   */
  update(iv, cpu) {
    const c = iv.counters;
    this.errors += (c.failed || 0) + (c.errors || 0);
    const batch = iv.hist.get('batch.intended');
    const p99 = batch ? stats(batch).p99 : NaN;
    const masters = cpu.filter((n) => n.role === 'master').sort((x, y) => x.shard - y.shard)
      .map((n) => `s${n.shard} ${n.cpuPct === null ? '-' : Math.round(n.cpuPct)}%`).join(' ');
    const elapsed = `${iv.index + 1}s${this.durationS ? `/${this.durationS}s` : ''}`;
    const line = `[${elapsed}] ${grouped(c.acked || 0)}/${grouped(this.targetRate)} items/s  p99 ${fixed(p99, 1)} ms  errors ${this.errors}  master CPU ${masters || '-'}  client ${fixed(iv.client.cpuPct, 0)}%`;
    process.stderr.write(`\r\x1b[K${line}`);
  }

  end() {
    process.stderr.write('\r\x1b[K');
  }
}
