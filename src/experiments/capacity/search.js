/**
 * The search for the highest rate that holds: a geometric ramp up from the start rate until a
 * step does not hold (or the ceiling rate is reached), then bisection between the highest rate
 * that held and the lowest that did not, until they are within the precision. When the start rate
 * itself does not hold, the ramp goes down instead, to find a rate that does. Pure: running a step
 * is the caller's, so the same search drives a real cluster or a test's table of outcomes.
 */

/**
 * @typedef {object} SearchOptions
 * @property {number} startRate   items/s of the first step
 * @property {number} maxRate     never asked above this
 * @property {number} growth      the ramp's factor per step (2: doubling)
 * @property {number} precision   stop when (lowest failed − highest held) / highest held ≤ this
 * @property {number} [minRate]   the downward ramp stops here (default startRate / growth³)
 */

/** @typedef {import('../../report/capacity/capacity-result.js').SearchResult} SearchResult */

/**
 * @param {SearchOptions} o
 * @param {(rate: number, phase: 'ramp'|'bisect') => Promise<boolean|null>} step runs one step;
 *   true: held, false: did not, null: stopped (Ctrl-C): the search ends with what it has
 * @returns {Promise<SearchResult>}
 */
export async function searchMax(o, step) {
  let held = null;
  let failed = null;
  const minRate = o.minRate ?? o.startRate / o.growth ** 3;
  let rate = Math.min(o.startRate, o.maxRate);
  // ramp: up while it holds, down while it does not
  for (;;) {
    const ok = await step(rate, 'ramp');
    if (ok === null) return { max: held, failedAbove: failed, end: 'stopped' };
    if (ok) {
      held = rate;
      if (failed !== null) break;
      if (rate >= o.maxRate) return { max: held, failedAbove: null, end: 'ceiling' };
      rate = Math.min(o.maxRate, roundRate(rate * o.growth));
    } else {
      failed = rate;
      if (held !== null) break;
      const lower = roundRate(rate / o.growth);
      if (lower < minRate) return { max: null, failedAbove: failed, end: 'none-held' };
      rate = lower;
    }
  }
  // bisect
  while ((failed - held) / held > o.precision) {
    const mid = roundRate((held + failed) / 2);
    if (mid <= held || mid >= failed) break;
    const ok = await step(mid, 'bisect');
    if (ok === null) return { max: held, failedAbove: failed, end: 'stopped' };
    if (ok) held = mid;
    else failed = mid;
  }
  return { max: held, failedAbove: failed, end: 'converged' };
}

/**
 * A search step that is the majority of several tries of the rate: held when more than half of
 * `tries` held, tried no more once that is settled either way (3 tries: 2 alike decide). On a host
 * where one try in several fails near the limit, a single try stops a ramp at a low draw; the
 * majority's answer is the rate the node holds at least as often as not. Pure: running a try is
 * the caller's.
 * @param {(rate: number, phase: any) => Promise<boolean|null>} step one try: true held, false not, null stopped
 * @param {number} tries
 * @returns {(rate: number, phase: any) => Promise<boolean|null>}
 */
export function majorityOf(step, tries) {
  return async (rate, phase) => {
    let held = 0;
    let failed = 0;
    while (held <= tries / 2 && failed < tries / 2) {
      const ok = await step(rate, phase);
      if (ok === null) return null;
      if (ok) held++;
      else failed++;
    }
    return held > tries / 2;
  };
}

/**
 * A rate a person would type: three significant digits (123,000 not 123,456), never 0.
 * @param {number} r
 */
export function roundRate(r) {
  if (r < 100) return Math.max(1, Math.round(r));
  const unit = 10 ** (Math.floor(Math.log10(r)) - 2);
  return Math.round(r / unit) * unit;
}
