/**
 * The sums a client-overhead meter keeps: the time of whole calls (or attempts), the part of it
 * spent on the wire, and what is left, the client's own time, read and reset by take(). The AWS
 * SDK's middleware (sdk-overhead.js) and the gRPC interceptor (grpc-overhead.js) feed one each.
 */
import { performance } from 'node:perf_hooks';

/**
 * @typedef {object} OverheadTally
 * @property {<T>(fn: () => Promise<T>) => Promise<T>} whole runs one call (or attempt), timed into the whole
 * @property {<T>(fn: () => Promise<T>) => Promise<T>} wire runs the part on the wire, timed into the wire
 * @property {(ms: number) => void} addWire adds wire time measured elsewhere
 * @property {() => number|null} take the client's own time since the last take, ms, or null when nothing ran
 */

/** @returns {OverheadTally} */
export function overheadTally() {
  let calls = 0;
  let wholeMs = 0;
  let wireMs = 0;
  const addWire = (ms) => {
    wireMs += ms;
  };
  return {
    whole: timed((ms) => {
      wholeMs += ms;
      calls++;
    }),
    wire: timed(addWire),
    addWire,
    take: () => {
      const out = calls ? Math.max(0, wholeMs - wireMs) : null;
      calls = 0;
      wholeMs = 0;
      wireMs = 0;
      return out;
    },
  };
}

/**
 * A runner that times what it runs, thrown or not, into `add`.
 * @param {(ms: number) => void} add
 * @returns {<T>(fn: () => Promise<T>) => Promise<T>}
 */
function timed(add) {
  return async (fn) => {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      add(performance.now() - t);
    }
  };
}
