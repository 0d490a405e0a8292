/**
 * The load generator reports on itself: CPU of this process (% of one core), event-loop delay
 * and memory, once per interval. A writer at 100% of its core cannot hold a rate, whatever
 * Redis does; the summary says so.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

export class ClientSampler {
  constructor() {
    this.resolutionMs = 10;
    this.loop = monitorEventLoopDelay({ resolution: this.resolutionMs });
    this.loop.enable();
    this.lastCpu = process.cpuUsage();
    this.lastAt = performance.now();
  }

  /**
   * Event-loop delay is what the sampling timer was late by (its own period taken off);
   * wallMs tells how long the interval was: a short last interval makes a noisy CPU figure.
   * @returns {{ cpuPct: number, loopP99Ms: number, loopMaxMs: number, rssMb: number, wallMs: number }}
   */
  sample() {
    const now = performance.now();
    const cpu = process.cpuUsage(this.lastCpu);
    const wallUs = (now - this.lastAt) * 1000;
    this.lastCpu = process.cpuUsage();
    this.lastAt = now;
    const out = {
      cpuPct: wallUs > 0 ? round1(((cpu.user + cpu.system) / wallUs) * 100) : 0,
      loopP99Ms: this.#late(this.loop.percentile(99)),
      loopMaxMs: this.#late(this.loop.max),
      rssMb: round1(process.memoryUsage.rss() / 1048576),
      wallMs: Math.round(wallUs / 1000),
    };
    this.loop.reset();
    return out;
  }

  #late(ns) {
    return this.loop.count ? Math.max(0, round1(ns / 1e6 - this.resolutionMs)) : 0;
  }

  stop() {
    this.loop.disable();
  }
}

function round1(x) {
  return Math.round(x * 10) / 10;
}
