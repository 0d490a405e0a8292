/**
 * The one-second grid every part of a run reports on: ticks at t0 + 1 s, t0 + 2 s, … on the
 * monotonic clock. Writers and readers close their intervals on it, the run samples server CPU
 * on it, a queue run takes its seconds on it: the same second means the same wall-clock second
 * everywhere, so rows from different processes line up without any resampling.
 */
import { performance } from 'node:perf_hooks';
import { settings } from '../settings.js';

export class IntervalClock {
  /**
   * @param {number} t0Perf performance.now() time of second 0
   * @param {(index: number) => unknown} onTick called when second `index` is over; when it
   *   returns a promise the next tick waits for it (a slow INFO must not overlap the next one),
   *   and still fires on the grid, at once if it is already late
   * @param {number} [periodMs]
   */
  constructor(t0Perf, onTick, periodMs = settings.sampleIntervalMs) {
    this.t0Perf = t0Perf;
    this.onTick = onTick;
    this.periodMs = periodMs;
    this.index = 0;
    this.stopped = false;
    /** @type {NodeJS.Timeout|undefined} */
    this.timer = undefined;
  }

  start() {
    this.stopped = false;
    const at = this.t0Perf + (this.index + 1) * this.periodMs;
    this.timer = setTimeout(
      () => {
        const done = this.onTick(this.index);
        this.index++;
        // stopped while the tick ran: no new timer, or the process never exits
        const next = () => {
          if (!this.stopped) this.start();
        };
        if (done && typeof (/** @type {any} */ (done).then) === 'function') /** @type {Promise<unknown>} */ (done).then(next, next);
        else next();
      },
      Math.max(0, at - performance.now()),
    );
  }

  /**
   * Ticks now when second `index` is already over by `now` but its timer has not fired yet (a busy
   * loop runs timers late): whoever counts something that happened at `now` calls this first, so
   * it lands in the second it happened in, not in the one before. For synchronous onTick only.
   * @param {number} now performance.now() time
   */
  catchUp(now) {
    if (this.stopped || now < this.t0Perf + (this.index + 1) * this.periodMs) return;
    clearTimeout(this.timer);
    while (now >= this.t0Perf + (this.index + 1) * this.periodMs) {
      this.onTick(this.index);
      this.index++;
    }
    this.start();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
