/**
 * Is the queue service still there? Answers come by themselves while messages flow (an ack, a
 * message, an SQS receive); when nothing has answered for PROBE_AFTER_MS a probe asks (one at a
 * time), so an idle run — a consumer before its publisher starts, a slow publisher — still knows.
 * When nothing at all has answered for UNREACHABLE_MS, the run is told to stop with one line
 * naming the endpoint: a dead endpoint otherwise looks like a quiet queue for the whole run.
 */
import { performance } from 'node:perf_hooks';
import { PROBE_AFTER_MS, UNREACHABLE_MS } from '../targets/bounds.js';

export class Contact {
  /**
   * @param {object} p
   * @param {() => Promise<void>} p.probe one cheap call to the service (bounded by the target)
   * @param {string} p.where the service and endpoint, as the line names them
   * @param {number} [p.boundMs]
   */
  constructor({ probe, where, boundMs = UNREACHABLE_MS }) {
    this.probe = probe;
    this.where = where;
    this.boundMs = boundMs;
    this.lastAnswerAt = performance.now();
    this.probing = false;
    /** @type {unknown} the last call that did not get through, for the line */
    this.lastError = null;
  }

  /** The service answered. */
  answered() {
    this.lastAnswerAt = performance.now();
    this.lastError = null;
  }

  /** A call did not get through (kept for the line; it is not an answer). @param {unknown} e */
  failed(e) {
    this.lastError = e;
  }

  /**
   * Once a second: probes when it has been quiet, and says when it has been quiet too long.
   * @returns {string|null} the line the run ends with, or null while the service may be there
   */
  check() {
    const silentMs = performance.now() - this.lastAnswerAt;
    if (silentMs >= this.boundMs) {
      const why = this.lastError ? `; last error: ${oneLine(this.lastError)}` : '';
      return `cannot reach ${this.where}: nothing answered for ${(silentMs / 1000).toFixed(1)} s (the bound is ${this.boundMs / 1000} s)${why}`;
    }
    if (silentMs >= PROBE_AFTER_MS && !this.probing) {
      this.probing = true;
      this.probe().then(() => this.answered(), (e) => this.failed(e)).finally(() => { this.probing = false; });
    }
    return null;
  }
}

/** @param {unknown} e */
function oneLine(e) {
  return String(/** @type {any} */ (e)?.message ?? e).replace(/\s+/g, ' ').trim().slice(0, 300);
}
