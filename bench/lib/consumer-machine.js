/**
 * The consumer bench's view of the machine (Linux /proc), sampled every 250 ms while it runs:
 * whole-machine CPU and steal (/proc/stat, all cores) and the CPU of every Redis node's process
 * (/proc/<pid>/stat). With the CPU of the measured child (proc.js: cutime/cstime), the rest is
 * what other processes on this shared machine used at the same time.
 */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { CLK_TCK, processCpuSeconds } from './proc.js';

const EVERY_MS = 250;

/** Busy and steal ticks of the whole machine (all cores) from /proc/stat's first line. */
function machineTicks() {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq = 0, softirq = 0, steal = 0] = f;
    return { busy: user + nice + system + irq + softirq, steal };
  } catch {
    return null;
  }
}

export class ConsumerMachine {
  /** @param {number[]} redisPids every Redis node of the cluster */
  constructor(redisPids) {
    this.redisPids = redisPids;
    this.samples = [];
    this.timer = null;
  }

  start() {
    const tick = () => {
      let redisS = 0;
      for (const pid of this.redisPids) redisS += processCpuSeconds(pid) ?? 0;
      this.samples.push({ at: performance.now(), ticks: machineTicks(), redisS });
    };
    tick();
    this.timer = setInterval(tick, EVERY_MS);
    this.timer.unref();
    this.tick = tick;
    return this;
  }

  stop() {
    clearInterval(this.timer);
  }

  /** @returns {number} a mark for between(); takes a sample so the window has exact edges */
  mark() {
    this.tick?.();
    return this.samples.at(-1).at;
  }

  /**
   * Percentages of ONE core between two marks (machine figures are summed over all cores).
   * @param {number} from
   * @param {number} to
   * @param {number} [childCpuS] CPU seconds the measured child used in that window
   * @returns {{ wallS: number, machineBusyPct: number, stealPct: number, redisPct: number, otherPct: number|null }|null}
   */
  between(from, to, childCpuS) {
    const s = this.samples.filter((x) => x.at >= from && x.at <= to);
    if (s.length < 2 || !s[0].ticks || !s.at(-1).ticks) return null;
    const a = s[0];
    const b = s.at(-1);
    const wallS = (b.at - a.at) / 1000;
    const pct = (seconds) => (seconds / wallS) * 100;
    const machineBusyPct = pct((b.ticks.busy - a.ticks.busy) / CLK_TCK);
    const redisPct = pct(b.redisS - a.redisS);
    return {
      wallS,
      machineBusyPct,
      stealPct: pct((b.ticks.steal - a.ticks.steal) / CLK_TCK),
      redisPct,
      otherPct: Number.isFinite(childCpuS) ? machineBusyPct - redisPct - pct(childCpuS) : null,
    };
  }
}
