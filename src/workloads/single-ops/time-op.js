/**
 * Times one operation the way seed 003 does (first connect, first call, then warm calls one
 * after another: a warm-up that is not recorded, then a measured phase), on a fresh connection.
 */
import { performance } from 'node:perf_hooks';
import { newHistogram, record } from '../../measure/histogram.js';

/**
 * One call of pre-encoded bytes on a RespPipe, awaited; rejects on an error reply.
 * @param {import('../../transports/redis-pipe.js').RespPipe} pipe
 * @param {Buffer} bytes
 * @returns {Promise<void>}
 */
export function callBytes(pipe, bytes) {
  return new Promise((resolve, reject) => {
    let failure;
    pipe.send(bytes, { n: 1, error: (_s, _i, err) => { failure = err; }, done: () => (failure ? reject(failure) : resolve()) });
  });
}

/**
 * @typedef {{ call: () => Promise<unknown>, close: () => unknown, detail?: () => string }} OpSession
 *   one connection (or client) and the operation it repeats; `detail` says what the calls got
 *   back when that varies (e.g. how many pulls found a message)
 */

/**
 * @param {object} p
 * @param {() => Promise<OpSession>} p.open a fresh connection or client, ready for the operation
 * @param {number} p.warmupMs
 * @param {number} p.durationMs
 * @param {AbortSignal} [p.signal] ends the calls early (the run was interrupted): the result is partial
 * @returns {Promise<{ connectMs: number, firstMs: number, hist: import('hdr-histogram-js').Histogram, detail: string|null }>}
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
    const end = performance.now() + durationMs;
    for (let now = performance.now(); now < end && !signal?.aborted;) {
      await session.call();
      const after = performance.now();
      record(hist, (after - now) * 1000);
      now = after;
    }
    return { connectMs, firstMs, hist, detail: session.detail?.() ?? null };
  } finally {
    await session.close();
  }
}
