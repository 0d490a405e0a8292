/**
 * --time-scale K: a run K times slower that does what the undilated run does. The schedule's
 * times (period, hence chunk spacing; warm-up; duration) are K times longer, so the rate is K
 * times lower; the data model's clock (scores, per-minute keys, purge times and cutoffs, the
 * consumer's window and staleness) runs K times slower than the wall clock; and the TTLs Redis
 * itself counts down (SETEX, EXPIRE) are K times longer. Commands, pipelines, batch shapes and
 * structure sizes are then those of the undilated run, only spread over K times the time: what a
 * slow, counted Redis (--count-instructions) needs to see the real run's work.
 */

/**
 * The plan with its schedule's times multiplied by K (the flags as given are kept in `undilated`).
 * @param {Readonly<Record<string, any>>} a a producer or consumer plan (period ms, duration s, warmup s, timeScale)
 * @returns {Readonly<Record<string, any>>}
 */
export function timeScaled(a) {
  const k = a.timeScale ?? 1;
  if (k === 1) return a;
  return Object.freeze({
    ...a,
    period: a.period * k,
    duration: a.duration * k,
    warmup: a.warmup * k,
    // a consumer's wait for a silent node: a node run K times slower (under Valgrind) answers K times later
    ...(a.replyTimeout && { replyTimeout: a.replyTimeout * k }),
    undilated: Object.freeze({ period: a.period, duration: a.duration, warmup: a.warmup }),
  });
}

/**
 * Where the model's clock meets the wall clock: a fixed instant, so that every process of a run
 * (producer and consumer alike) has the same clock with nothing to share, and its times stay
 * epoch milliseconds of 13 digits, as the scores' encoded slot needs (transports/resp.js).
 */
const ANCHOR_MS = Date.UTC(2024, 0, 1);

/**
 * The data model's clock: the wall clock run K times slower since ANCHOR_MS.
 * @param {number} wallMs
 * @param {number} [k]
 */
export function modelMs(wallMs, k = 1) {
  return k === 1 ? wallMs : ANCHOR_MS + (wallMs - ANCHOR_MS) / k;
}
