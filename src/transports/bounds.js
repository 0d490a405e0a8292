/**
 * How long rqbench waits on the network, at most: `within` bounds any wait (a Redis call of the
 * CPU sampler, a read-back, a topology read, a queue call), and the constants are a queue run's
 * bounds: every wait there has one, so a run ends within --duration + DRAIN_MS + CLOSE_MS (about
 * 7 s) whatever the endpoint does, and a dead endpoint is said in one line instead of waiting out
 * an SDK's own timeouts (the Pub/Sub client's is 60 s per publish, its streaming pull retries
 * forever).
 */

/** One call (a publish, a receive beyond its long-poll wait, a delete, a probe), retries included, ms. */
export const CALL_TIMEOUT_MS = 5000;
/** Creating a topic, queue, policy or subscription (--create): slower on the real services, ms. */
export const CREATE_TIMEOUT_MS = 10_000;
/** Nothing answered for this long (no ack, no message, no probe): the run stops, exit 1, ms. */
export const UNREACHABLE_MS = 10_000;
/** A silence this long starts a probe (one at a time), so an idle run still knows the service is there, ms. */
export const PROBE_AFTER_MS = 3000;
/** After the schedule ends (or a stop), calls in flight are awaited this long; the rest count as unanswered, ms. */
export const DRAIN_MS = 5000;
/** Closing the clients (streams, channels) gets this long; a client still holding the process then is left, ms. */
export const CLOSE_MS = 2000;
/** A publisher behind its schedule stops sending this long after --duration; what it did not send is counted, ms. */
export const LATE_MS = 1000;

/**
 * `p`, or a rejection after `ms` (with `what` in the message and `timedOut` set).
 * @template T
 * @param {Promise<T>} p
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 */
export function within(p, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    // after the poll phase: an answer that arrived while the process was held off the CPU settles
    // `p` first (a process starved on a busy host runs its due timers before that I/O)
    timer = setTimeout(
      () => setImmediate(() => reject(Object.assign(new Error(`${what}: no answer within ${ms / 1000} s`), { timedOut: true }))),
      ms,
    );
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Waits `ms`, or less when `signal` aborts.
 * @param {number} ms
 * @param {AbortSignal} signal
 */
export function pause(ms, signal) {
  return new Promise((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve(undefined);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve(undefined);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
