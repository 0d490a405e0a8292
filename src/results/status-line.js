/** The one-line live status on stderr (TTY only), rewritten each second. */

export class StatusLine {
  /** @param {number} durationS 0: open-ended */
  constructor(durationS) {
    this.durationS = durationS;
  }

  /**
   * @param {number} index the second (0-based)
   * @param {string} text what the command has to say about it
   */
  show(index, text) {
    const elapsed = `[${index + 1}s${this.durationS ? `/${this.durationS}s` : ''}]`;
    process.stderr.write(`\r\x1b[K${elapsed} ${text}`);
  }

  end() {
    process.stderr.write('\r\x1b[K');
  }
}

/**
 * Master CPU per shard, e.g. `s1 45% s2 12%`.
 * @param {Array<{ role: string, shard: number, cpuPct: number|null }>} cpu
 * @param {'master'|'replica'} role
 */
export function cpuByShard(cpu, role) {
  return cpu.filter((n) => n.role === role).sort((x, y) => x.shard - y.shard)
    .map((n) => `s${n.shard} ${n.cpuPct === null ? '-' : Math.round(n.cpuPct)}%`).join(' ') || '-';
}
