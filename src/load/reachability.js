/**
 * Is the target there at all? A run against nodes that are all gone must not go on for its
 * whole duration blaming the load generator: once no node has answered — neither the CPU
 * sampler's INFO nor any worker's command — for longer than the retry budget (every write that
 * could still land has been retried by then), the run says so on stderr and stops. A silence
 * of a few seconds is said as it happens too, and so is the end of one.
 */
import { performance } from 'node:perf_hooks';

/** A silence this long is said on stderr (then the run goes on, retrying). */
const WARN_AFTER_MS = 3000;

export class Reachability {
  /**
   * @param {object} p
   * @param {{ silentForMs: () => number }} p.sampler
   * @param {string} p.target shown in the lines (no secrets: describeConnection)
   * @param {number} p.stopAfterMs
   * @param {(text: string) => void} p.say one line on stderr (and an event on the timeline)
   * @param {() => void} p.onStop
   */
  constructor({ sampler, target, stopAfterMs, say, onStop }) {
    this.sampler = sampler;
    this.target = target;
    this.stopAfterMs = stopAfterMs;
    this.say = say;
    this.onStop = onStop;
    this.lastProgressAt = performance.now();
    this.warned = false;
    /** @type {null|{ silentS: number }} set when the run was stopped for it */
    this.stopped = null;
  }

  /** A worker's command was answered (an item acknowledged, a cycle completed). */
  progress() {
    this.lastProgressAt = performance.now();
  }

  /** Once a second: how long has nothing answered? */
  check() {
    if (this.stopped) return;
    const silentMs = Math.min(this.sampler.silentForMs(), performance.now() - this.lastProgressAt);
    const s = (silentMs / 1000).toFixed(1);
    if (silentMs < WARN_AFTER_MS) {
      if (this.warned) this.say(`${this.target} answers again`);
      this.warned = false;
      return;
    }
    if (silentMs >= this.stopAfterMs) {
      this.stopped = { silentS: Math.round(silentMs / 100) / 10 };
      this.say(`no node of ${this.target} has answered for ${s} s, longer than the retry budget (${(this.stopAfterMs / 1000).toFixed(1)} s): stopping the run`);
      this.onStop();
      return;
    }
    if (!this.warned) this.say(`no node of ${this.target} has answered for ${s} s, retrying for up to ${(this.stopAfterMs / 1000).toFixed(1)} s`);
    this.warned = true;
  }
}
