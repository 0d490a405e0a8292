/**
 * The boundary a converged search found, re-tested into a calibrated bracket. On a host where the
 * cost per item moves a few percent between identical runs, the search's two neighbouring rates
 * (5% apart) rarely repeat themselves; so each end that did not is moved out, one rate at a time,
 * until it does: the lower end is the highest rate at which every try held, the upper end the
 * lowest at which every try failed. Pure, as searchMax: running a step is the caller's.
 */
import { roundRate } from './search.js';

/**
 * Each move of an end that did not repeat itself: 5%, the search's default precision. --confirm's
 * help (plans/capacity-plan.js) says this and WIDEN_MOVES in words: change them together.
 */
export const WIDEN_STEP = 0.05;

/** Moves per end before it is left open: six of 5% reach about a quarter below and a third above. */
export const WIDEN_MOVES = 6;

/** @typedef {import('../../report/capacity/capacity-result.js').SearchResult} SearchResult */
/** @typedef {import('../../report/capacity/capacity-result.js').Confirmation} Confirmation */
/** @typedef {import('../../report/capacity/capacity-result.js').EndOutcome} EndOutcome */

/**
 * One end as it is re-tested.
 * @typedef {object} End
 * @property {boolean} wants     what every try must do for the end to stand (lower: hold, upper: fail)
 * @property {number} rate       the rate tried now
 * @property {boolean[]} tries   its outcomes so far (held?)
 * @property {number} need       tries it must have
 * @property {number} moves      how often it has moved out
 * @property {(rate: number) => number} next  the rate it moves to (itself where it cannot move)
 * @property {Array<{ rate: number, agree: number, of: number }>} rates  every rate left or settled
 * @property {EndOutcome|null} outcome  null while it is being tried
 */

/**
 * Re-tests both ends of a converged search `times` more each, interleaved (at, above, at, above,
 * …) so a slow minute hits both alike, counting the search's own try: that first round is
 * `at`/`above`/`confirmed`/`interval`. Then each end that did not repeat itself moves out
 * (WIDEN_STEP, at most WIDEN_MOVES times, the upper never past maxRate) and is tried `times` times
 * at each new rate, nothing from before counted, still interleaved with the other end while both
 * move. A widened rate is left at its first try that goes the wrong way: it can no longer be an
 * end, and another step there would only cost time.
 * @param {SearchResult} result
 * @param {{ times: number, maxRate?: number }} o maxRate: the search's ceiling
 * @param {(rate: number, phase: 'confirm'|'widen') => Promise<boolean|null>} step true: held,
 *   false: did not, null: stopped (Ctrl-C): the re-tests end with what they have
 * @returns {Promise<Confirmation|null>} null when there is no boundary to re-test (no rate held,
 *   the ceiling held, an interrupted search) or times is 0
 */
export async function confirmBoundary(result, o, step) {
  const { max, failedAbove, end } = result;
  const { times, maxRate = Infinity } = o;
  if (end !== 'converged' || max === null || failedAbove === null || times < 1) return null;
  const lower = startEnd(max, true, times, (r) => roundRate(r * (1 - WIDEN_STEP)));
  const upper = startEnd(failedAbove, false, times, (r) => Math.min(maxRate, roundRate(r * (1 + WIDEN_STEP))));
  let stopped = false;
  while (!stopped && (lower.outcome === null || upper.outcome === null)) {
    for (const e of [lower, upper]) {
      if (e.outcome !== null) continue;
      const ok = await step(e.rate, e.moves ? 'widen' : 'confirm');
      if (ok === null) {
        stopped = true;
        break;
      }
      e.tries.push(ok);
      // the first rate takes all its tries, as the record of the search's own boundary
      if (e.tries.length >= e.need || (e.moves && ok !== e.wants)) judgeRate(e, times);
    }
  }
  for (const e of [lower, upper]) if (e.outcome === null) leave(e, 'stopped');
  const [first, firstAbove] = [lower.rates[0], upper.rates[0]];
  const at = { rate: max, held: first.agree, of: first.of };
  const above = { rate: failedAbove, failed: firstAbove.agree, of: firstAbove.of };
  const interval = /** @type {[number|null, number|null]} */ ([
    at.held === at.of ? max : null,
    above.failed === above.of ? failedAbove : null,
  ]);
  const lo = lower.outcome === 'repeated' ? lower.rate : null;
  const hi = upper.outcome === 'repeated' ? upper.rate : null;
  return {
    at,
    above,
    confirmed: interval[0] !== null && interval[1] !== null,
    interval,
    stopped,
    bracket: [lo, hi],
    width: lo !== null && hi !== null ? (hi - lo) / lo : null,
    lower: { rates: lower.rates.map(({ rate, agree, of }) => ({ rate, held: agree, of })), outcome: lower.outcome },
    upper: { rates: upper.rates.map(({ rate, agree, of }) => ({ rate, failed: agree, of })), outcome: upper.outcome },
  };
}

/**
 * An end at the search's own rate, its one try already counted.
 * @param {number} rate
 * @param {boolean} wants
 * @param {number} times
 * @param {(rate: number) => number} next
 * @returns {End}
 */
function startEnd(rate, wants, times, next) {
  return { wants, rate, tries: [wants], need: times + 1, moves: 0, next, rates: [], outcome: null };
}

/**
 * The rate's tries are in (or one went the wrong way): the end stands there, moves out, or is
 * left open.
 * @param {End} e
 * @param {number} times
 */
function judgeRate(e, times) {
  if (e.tries.every((t) => t === e.wants)) return leave(e, 'repeated');
  const next = e.next(e.rate);
  if (next === e.rate) return leave(e, e.wants ? 'floor' : 'ceiling');
  if (e.moves >= WIDEN_MOVES) return leave(e, 'moves');
  e.rates.push(recordOf(e));
  Object.assign(e, { rate: next, tries: [], need: times, moves: e.moves + 1 });
}

/**
 * @param {End} e
 * @param {EndOutcome} outcome
 */
function leave(e, outcome) {
  // a Ctrl-C right after a move leaves a rate not yet tried: nothing to record there
  if (e.tries.length) e.rates.push(recordOf(e));
  e.outcome = outcome;
}

/** @param {End} e */
function recordOf(e) {
  return { rate: e.rate, agree: e.tries.filter((t) => t === e.wants).length, of: e.tries.length };
}
