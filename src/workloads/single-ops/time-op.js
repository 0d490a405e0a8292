/**
 * Times one operation the way seed 003 does (first connect, first call, then warm calls one
 * after another: a warm-up that is not recorded, then a measured phase), on a fresh connection.
 */
import { performance } from 'node:perf_hooks';
import { newHistogram, record } from '../../measure/histogram.js';

/** @typedef {import('../../transports/queue-driver.js').OpSession} OpSession */

/**
 * @param {object} p
 * @param {() => Promise<OpSession>} p.open a fresh connection or client, ready for the operation
 * @param {number} p.warmupMs
 * @param {number} p.durationMs
 * @param {AbortSignal} [p.signal] ends the calls early (the run was interrupted): the result is partial
 * @returns {Promise<{ connectMs: number, firstMs: number, hist: import('hdr-histogram-js').Histogram, overheadHist: import('hdr-histogram-js').Histogram|null, detail: string|null }>}
 */
export async function timeOp({ open, warmupMs, durationMs, signal }) {
  let t = performance.now();
  const session = await open();
  const connectMs = performance.now() - t;
  try {
    t = performance.now();
    await session.call();
    const firstMs = performance.now() - t;
    const warmEnd = performance.now() + warmupMs;
    while (performance.now() < warmEnd && !signal?.aborted) await session.call();
    const hist = newHistogram();
    const overheadHist = session.overhead ? newHistogram() : null;
    // what the warm-up left behind is not the measured calls'
    session.overhead?.();
    const end = performance.now() + durationMs;
    for (let now = performance.now(); now < end && !signal?.aborted;) {
      await session.call();
      const after = performance.now();
      record(hist, (after - now) * 1000);
      const over = session.overhead?.();
      if (overheadHist && over !== null && over !== undefined) record(overheadHist, over * 1000);
      now = after;
    }
    return { connectMs, firstMs, hist, overheadHist, detail: session.detail?.() ?? null };
  } finally {
    await session.close();
  }
}
