/**
 * Times one operation the way seed 003 does (first connect, first call, then warm calls one
 * after another: a warm-up that is not recorded, then a measured phase), on a fresh connection.
 */
import { performance } from 'node:perf_hooks';
import { newHistogram, record } from '../measure/histogram.js';

/**
 * One call of pre-encoded bytes on a RespPipe, awaited; rejects on an error reply.
 * @param {import('../targets/redis-pipe.js').RespPipe} pipe
 * @param {Buffer} bytes
 * @returns {Promise<void>}
 */
function once(pipe, bytes) {
  return new Promise((resolve, reject) => {
    let failure;
    pipe.send(bytes, { n: 1, error: (_s, _i, err) => { failure = err; }, done: () => (failure ? reject(failure) : resolve()) });
  });
}

/**
 * @param {object} p
 * @param {() => Promise<import('../targets/redis-pipe.js').RespPipe>} p.connect opens a fresh connection
 * @param {Buffer} p.bytes the operation
 * @param {number} p.warmupMs
 * @param {number} p.durationMs
 * @returns {Promise<{ connectMs: number, firstMs: number, hist: import('hdr-histogram-js').Histogram }>}
 */
export async function timeOp({ connect, bytes, warmupMs, durationMs }) {
  let t = performance.now();
  const pipe = await connect();
  const connectMs = performance.now() - t;
  try {
    t = performance.now();
    await once(pipe, bytes);
    const firstMs = performance.now() - t;
    const warmEnd = performance.now() + warmupMs;
    while (performance.now() < warmEnd) await once(pipe, bytes);
    const hist = newHistogram();
    const end = performance.now() + durationMs;
    for (let now = performance.now(); now < end;) {
      await once(pipe, bytes);
      const after = performance.now();
      record(hist, (after - now) * 1000);
      now = after;
    }
    return { connectMs, firstMs, hist };
  } finally {
    pipe.close();
  }
}
