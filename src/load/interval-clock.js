/** Ticks at t0 + 1 s, t0 + 2 s, … on the monotonic clock: the one-second grid every worker reports on. */
import { performance } from 'node:perf_hooks';
import { settings } from '../settings.js';

export class IntervalClock {
  /**
   * @param {number} t0Perf performance.now() time of second 0
   * @param {(index: number) => void} onTick called when second `index` is over
   */
  constructor(t0Perf, onTick) {
    this.t0Perf = t0Perf;
    this.onTick = onTick;
    this.index = 0;
  }

  start() {
    const at = this.t0Perf + (this.index + 1) * settings.sampleIntervalMs;
    this.timer = setTimeout(() => {
      this.onTick(this.index);
      this.index++;
      this.start();
    }, Math.max(0, at - performance.now()));
  }

  stop() {
    clearTimeout(this.timer);
  }
}
