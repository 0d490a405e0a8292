/**
 * One open-loop publisher: message k is due at t0 + k / rate (load/schedule.js's grid, so
 * lateness never turns into drift) and is sent then, whatever the earlier sends are doing, up
 * to `concurrency` in flight. Publish latency is recorded from the intended time (corrected for
 * coordinated omission) and from the actual send; schedule lag on its own. Every message says
 * when it was due (time_intended) as well as when it was sent, so the consumer's E2E can be
 * corrected the same way.
 *
 * The run is bounded whatever the service does: sending stops LATE_MS after the duration (what
 * was planned and not sent is counted), and calls in flight at the end are awaited DRAIN_MS at
 * most; those still unanswered then are counted as unanswered, never dropped.
 */
import { performance } from 'node:perf_hooks';
import { intendedAt, sendsWithin } from '../../harness/schedule.js';
import { OpHistograms } from '../../measure/op-histograms.js';
import { newHistogram, record } from '../../measure/histogram.js';
import { ATTR, attributesOf, epochNs, nowNs } from './message.js';
import { DRAIN_MS, LATE_MS, pause } from '../../transports/bounds.js';

/**
 * @typedef {object} PublisherCounts
 * @property {number} intended messages handed to a send so far
 * @property {number} sent
 * @property {number} acked
 * @property {number} failed refused, or the call failed
 * @property {number} unanswered no answer within the call's bound, or still in flight when the drain ended
 * @property {number} bytes body bytes acknowledged
 */

export class Publisher {
  /**
   * @param {object} p
   * @param {{ publish: (body: string, attrs: Record<string, string>) => Promise<void> }} p.target
   * @param {{ body: (seq: number) => string }} p.maker
   * @param {string} p.publisherId
   * @param {number} p.rate messages/s
   * @param {number} p.durationMs 0: until stop()
   * @param {number} p.concurrency
   * @param {() => void} [p.onAnswer] the service acknowledged a message
   * @param {(err: Error) => void} [p.onError]
   */
  constructor({ target, maker, publisherId, rate, durationMs, concurrency, onAnswer = () => {}, onError = () => {} }) {
    this.target = target;
    this.maker = maker;
    this.publisherId = publisherId;
    this.rate = rate;
    this.durationMs = durationMs;
    this.concurrency = concurrency;
    this.onAnswer = onAnswer;
    this.onError = onError;
    this.total = sendsWithin(1000, rate, durationMs);
    this.hist = new OpHistograms();
    this.lag = newHistogram();
    /** @type {PublisherCounts} */
    this.counts = { intended: 0, sent: 0, acked: 0, failed: 0, unanswered: 0, bytes: 0 };
    /** planned messages never sent: the schedule was still behind LATE_MS after the duration */
    this.notSent = 0;
    this.inflight = 0;
    this.stopped = false;
    /** set once the drain is over: answers arriving later change nothing */
    this.ended = false;
    this.lastError = null;
    this.wake = new AbortController();
  }

  /**
   * Publishes until the last message is answered (or the drain gave up on it), or stop() was called.
   * @param {number} t0 performance.now() of message 0
   */
  async run(t0) {
    /** @type {Set<Promise<void>>} */
    const pending = new Set();
    const lastChance = this.durationMs ? t0 + this.durationMs + LATE_MS : Infinity;
    let k = 0;
    for (; k < this.total && !this.stopped; k++) {
      const due = intendedAt(t0, 1000, this.rate, k);
      // never before it is due: a message sent early would carry a time_intended after its
      // time_sent and shorten its E2E (a timer may fire a fraction of a millisecond early)
      while (!this.stopped && performance.now() < due) await this.#pause(due - performance.now());
      // full: wait for a send to finish, but not past the end (a dead service answers none)
      while (this.inflight >= this.concurrency && !this.stopped && performance.now() < lastChance) {
        await this.#raceFor([...pending], lastChance - performance.now());
      }
      if (this.stopped || performance.now() >= lastChance) break;
      this.counts.intended++;
      const p = this.#send(k + 1, due, k + 1 === this.total);
      pending.add(p);
      p.finally(() => pending.delete(p));
    }
    if (!this.stopped && Number.isFinite(this.total)) this.notSent = this.total - k;
    let timer;
    await Promise.race([
      Promise.all(pending),
      new Promise((r) => {
        timer = setTimeout(r, DRAIN_MS);
      }),
    ]);
    clearTimeout(timer);
    this.ended = true;
    this.counts.unanswered += this.inflight;
  }

  /** Ends run(): no more sends, then the drain of those in flight. */
  stop() {
    this.stopped = true;
    this.wake.abort();
  }

  /** This interval's schedule lag, and a fresh histogram for the next. */
  takeLag() {
    const h = this.lag;
    this.lag = newHistogram();
    return h;
  }

  /** Waits `ms` (at least the timer's 1 ms), or less when stop() is called. */
  #pause(ms) {
    return pause(Math.max(1, ms), this.wake.signal);
  }

  /**
   * Waits for the first of `promises` (they never reject), at most `ms`, or less when stop() is
   * called; the timer goes when it is over, so none outlives the run.
   * @param {Promise<unknown>[]} promises
   * @param {number} ms
   */
  async #raceFor(promises, ms) {
    /** @type {(value?: unknown) => void} */
    let done = () => {};
    const wait = new Promise((r) => {
      done = r;
    });
    const timer = Number.isFinite(ms) ? setTimeout(done, Math.max(0, ms)) : undefined;
    this.wake.signal.addEventListener('abort', done, { once: true });
    try {
      await Promise.race([...promises, wait]);
    } finally {
      clearTimeout(timer);
      this.wake.signal.removeEventListener('abort', done);
    }
  }

  async #send(seq, due, final) {
    const body = this.maker.body(seq);
    const attrs = attributesOf(this.publisherId, seq, final);
    this.inflight++;
    const start = performance.now();
    record(this.lag, (start - due) * 1000);
    attrs[ATTR.timeIntended] = String(epochNs(due));
    attrs[ATTR.timeSent] = String(nowNs());
    this.counts.sent++;
    try {
      await this.target.publish(body, attrs);
      if (this.ended) return;
      const end = performance.now();
      const h = this.hist.of('publish');
      record(h.intended, (end - due) * 1000);
      record(h.sent, (end - start) * 1000);
      this.counts.acked++;
      this.counts.bytes += Buffer.byteLength(body);
      this.onAnswer();
    } catch (e) {
      if (this.ended) return;
      // no answer in time: it may have been delivered, so it is not called refused
      if (/** @type {any} */ (e)?.timedOut) this.counts.unanswered++;
      else this.counts.failed++;
      this.lastError = e;
      this.onError(e);
    } finally {
      this.inflight--;
    }
  }
}
