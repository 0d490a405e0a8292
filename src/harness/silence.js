/**
 * Is the target there at all? A run against a target that has gone must not go on for its whole
 * duration looking like a quiet queue or blaming the load generator. Answers come by themselves
 * while work flows (an item acknowledged, a cycle done, a message, an ack); other sources can
 * count too (the CPU sampler's INFO); when nothing has answered for `probeAfterMs` a probe asks,
 * one at a time, so an idle run — a consumer before its publisher starts — still knows. Once
 * nothing has answered for `boundMs`, check() says the run must stop, with the line that says why.
 * A silence of a few seconds can be said as it happens too, and so can the end of one.
 */
import { performance } from 'node:perf_hooks';

/**
 * @typedef {object} SilenceWords how the lines read (Redis and queue runs word them differently:
 *   users and their scripts know those lines)
 * @property {(silentS: string, boundMs: number, lastError: string|null) => string} stop
 * @property {(silentS: string, boundMs: number) => string} [warn] a silence worth a line, the run goes on
 * @property {() => string} [back] the target answers again
 */

export class Silence {
  /**
   * @param {object} p
   * @param {number} p.boundMs a silence this long stops the run
   * @param {SilenceWords} p.words
   * @param {() => Promise<unknown>} [p.probe] one cheap call to the target (bounded by the target)
   * @param {number} [p.probeAfterMs] a silence this long sends the probe
   * @param {() => number} [p.heardMs] ms since another source last heard from the target
   * @param {number} [p.warnAfterMs] a silence this long is said (through `say`)
   * @param {(line: string) => void} [p.say]
   */
  constructor({ boundMs, words, probe, probeAfterMs = Infinity, heardMs, warnAfterMs = Infinity, say }) {
    this.boundMs = boundMs;
    this.words = words;
    this.probe = probe;
    this.probeAfterMs = probeAfterMs;
    this.heardMs = heardMs;
    this.warnAfterMs = warnAfterMs;
    this.say = say ?? (() => {});
    this.lastAnswerAt = performance.now();
    this.probing = false;
    this.warned = false;
    /** @type {unknown} the last call that did not get through, for the line */
    this.lastError = null;
    /** @type {null|{ silentS: number, line: string }} set when the run was told to stop for it */
    this.stopped = null;
  }

  /** The target answered. */
  answered() {
    this.lastAnswerAt = performance.now();
    this.lastError = null;
  }

  /** A call did not get through (kept for the line; it is not an answer). @param {unknown} e */
  failed(e) {
    this.lastError = e;
  }

  /** @returns {number} ms since anything heard from the target */
  silentMs() {
    const own = performance.now() - this.lastAnswerAt;
    return this.heardMs ? Math.min(own, this.heardMs()) : own;
  }

  /**
   * Once a second: probes when it has been quiet, says a long silence, and decides.
   * @returns {null|{ silentS: number, line: string }} why the run must stop, or null while the target may be there
   */
  check() {
    if (this.stopped) return null;
    const silentMs = this.silentMs();
    const s = (silentMs / 1000).toFixed(1);
    if (silentMs >= this.boundMs) {
      const why = this.lastError ? oneLine(this.lastError) : null;
      this.stopped = { silentS: Math.round(silentMs / 100) / 10, line: this.words.stop(s, this.boundMs, why) };
      return this.stopped;
    }
    if (silentMs >= this.probeAfterMs && this.probe && !this.probing) {
      this.probing = true;
      this.probe()
        .then(
          () => this.answered(),
          (e) => this.failed(e),
        )
        .finally(() => {
          this.probing = false;
        });
    }
    if (silentMs < this.warnAfterMs) {
      if (this.warned && this.words.back) this.say(this.words.back());
      this.warned = false;
    } else if (!this.warned) {
      if (this.words.warn) this.say(this.words.warn(s, this.boundMs));
      this.warned = true;
    }
    return null;
  }
}

/** @param {unknown} e */
function oneLine(e) {
  return String(/** @type {any} */ (e)?.message ?? e)
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);
}
