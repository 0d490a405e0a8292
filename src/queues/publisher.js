/**
 * One open-loop publisher: message k is due at t0 + k / rate (load/schedule.js's grid, so
 * lateness never turns into drift) and is sent then, whatever the earlier sends are doing, up
 * to `concurrency` in flight. Publish latency is recorded from the intended time (corrected for
 * coordinated omission) and from the actual send; schedule lag on its own.
 */
import { performance } from 'node:perf_hooks';
import { intendedAt, sendsWithin } from '../load/schedule.js';
import { OpHistograms } from '../measure/op-histograms.js';
import { newHistogram, record } from '../measure/histogram.js';
import { ATTR, attributesOf, nowNs } from './message.js';

/**
 * @typedef {object} PublisherCounts
 * @property {number} intended messages due so far
 * @property {number} sent
 * @property {number} acked
 * @property {number} failed
 * @property {number} bytes body bytes acknowledged
 */

export class Publisher {
  /**
   * @param {object} p
   * @param {{ publish: (body: string, attrs: Record<string, string>) => Promise<void> }} p.target
   * @param {import('./message.js').BodyMaker} p.maker
   * @param {string} p.publisherId
   * @param {number} p.rate messages/s
   * @param {number} p.durationMs 0: until stop()
   * @param {number} p.concurrency
   * @param {(err: Error) => void} [p.onError]
   */
  constructor({ target, maker, publisherId, rate, durationMs, concurrency, onError = () => {} }) {
    Object.assign(this, { target, maker, publisherId, rate, concurrency, onError });
    this.total = sendsWithin(1000, rate, durationMs);
    this.hist = new OpHistograms();
    this.lag = newHistogram();
    /** @type {PublisherCounts} */
    this.counts = { intended: 0, sent: 0, acked: 0, failed: 0, bytes: 0 };
    this.inflight = 0;
    this.stopped = false;
    this.lastError = null;
  }

  /**
   * Publishes until the last message is acknowledged (or failed), or stop() was called.
   * @param {number} t0 performance.now() of message 0
   */
  async run(t0) {
    /** @type {Set<Promise<void>>} */
    const pending = new Set();
    for (let k = 0; k < this.total && !this.stopped; k++) {
      const due = intendedAt(t0, 1000, this.rate, k);
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      while (this.inflight >= this.concurrency && !this.stopped) await Promise.race(pending);
      if (this.stopped) break;
      this.counts.intended++;
      const p = this.#send(k + 1, due, k + 1 === this.total);
      pending.add(p);
      p.finally(() => pending.delete(p));
    }
    await Promise.all(pending);
  }

  /** Ends run() after the sends in flight. */
  stop() {
    this.stopped = true;
  }

  async #send(seq, due, final) {
    const body = this.maker.body(seq);
    const attrs = attributesOf(this.publisherId, seq, final);
    this.inflight++;
    const start = performance.now();
    record(this.lag, (start - due) * 1000);
    attrs[ATTR.timeSent] = String(nowNs());
    this.counts.sent++;
    try {
      await this.target.publish(body, attrs);
      const end = performance.now();
      const h = this.hist.of('publish');
      record(h.intended, (end - due) * 1000);
      record(h.sent, (end - start) * 1000);
      this.counts.acked++;
      this.counts.bytes += Buffer.byteLength(body);
    } catch (e) {
      this.counts.failed++;
      this.lastError = e;
      this.onError(e);
    } finally {
      this.inflight--;
    }
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
