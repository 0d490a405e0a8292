/**
 * bench:capacity's procedures run against a model host instead of Redis: the capacity search's own
 * code (searchMax, majorityOf, confirmBoundary) with each try's outcome drawn from a stated noise.
 * It answers what the bench cannot on a real node, whose true limit nobody knows: does a bracket
 * contain the limit, and how often can the bench's target (every search's bracket contains the
 * ramps' median) be met at the noise a run measured? Pure and seeded: the same figures anywhere.
 *
 * The model: a try at `rate` costs the engine `rate × cost × (1 + sigma·z)`, z standard normal and
 * fresh each try, and holds while that stays under the ceiling. So the true limit (where a try
 * holds half the time) is ceiling / cost, and sigma is the per-try spread of the engine's cost per
 * item that bench:capacity measures from its repeated tries.
 */
import { median, probit } from 'simple-statistics';
import { confirmBoundary } from '../../src/experiments/capacity/bracket.js';
import { majorityOf, searchMax } from '../../src/experiments/capacity/search.js';
import { seeded } from '../../src/experiments/trials.js';

/**
 * @typedef {object} ModelOptions
 * @property {number} sigma       per-try spread of the cost per item (0.08: 8 %)
 * @property {number} limit       the true limit, items/s
 * @property {number} [start]     both procedures' start rate (bench:capacity's 50,000)
 * @property {number} [repeats]   searches and ramps per bench (3)
 * @property {number} [benches]   benches simulated (200)
 * @property {number} [rampPrecision] where the ramps' bisection stops (bench:capacity's --precision for them)
 * @property {number} [seed]
 */

/**
 * @typedef {object} ModelFigures
 * @property {number} benches
 * @property {number} covers      share of brackets that contain the true limit
 * @property {number} openShare   share of searches left without a closed bracket
 * @property {number} targetMet   share of benches in which every bracket contains the ramps' median
 * @property {number} bracketsWithMedian share of brackets that contain their bench's ramps' median
 * @property {[number, number]} rampMedianRange the ramps' medians over the benches, 10th and 90th percentile, as a share of the limit
 * @property {number} widthMedian the brackets' median width, (hi − lo) / lo
 */

/**
 * @param {ModelOptions} o
 * @returns {Promise<ModelFigures>}
 */
export async function simulateBench(o) {
  const { sigma, limit, start = 50_000, repeats = 3, benches = 200, rampPrecision = 0.05, seed = 1 } = o;
  const random = seeded(seed);
  // probit of a uniform strictly inside (0, 1): a standard normal draw
  const normal = () => probit(Math.min(1 - 1e-12, Math.max(1e-12, random())));
  /** @param {number} rate */
  const tryAt = async (rate) => (rate / limit) * (1 + sigma * normal()) < 1;
  const options = { startRate: start, maxRate: 1e9 };
  let covers = 0;
  let open = 0;
  let met = 0;
  let withMedian = 0;
  const rampMedians = [];
  const widths = [];
  for (let b = 0; b < benches; b++) {
    const brackets = [];
    const ramps = [];
    for (let i = 0; i < repeats; i++) {
      const found = await searchMax({ ...options, growth: 2, precision: 0.05 }, tryAt);
      const c = await confirmBoundary(found, { times: 3 }, tryAt);
      const br = c && c.bracket[0] !== null && c.bracket[1] !== null ? /** @type {[number, number]} */ (c.bracket) : null;
      brackets.push(br);
      if (br) widths.push((br[1] - br[0]) / br[0]);
      ramps.push((await searchMax({ ...options, growth: 1.05, precision: rampPrecision }, majorityOf(tryAt, 3))).max ?? NaN);
    }
    const m = median(ramps);
    rampMedians.push(m / limit);
    const inside = (/** @type {[number, number]|null} */ br, /** @type {number} */ x) => br !== null && br[0] <= x && x <= br[1];
    covers += brackets.filter((br) => inside(br, limit)).length;
    open += brackets.filter((br) => br === null).length;
    const hits = brackets.filter((br) => inside(br, m)).length;
    withMedian += hits;
    if (hits === repeats) met++;
  }
  rampMedians.sort((x, y) => x - y);
  const at = (q) => rampMedians[Math.min(rampMedians.length - 1, Math.floor(q * rampMedians.length))];
  return {
    benches,
    covers: covers / (benches * repeats),
    openShare: open / (benches * repeats),
    targetMet: met / benches,
    bracketsWithMedian: withMedian / (benches * repeats),
    rampMedianRange: [at(0.1), at(0.9)],
    widthMedian: widths.length ? median(widths) : NaN,
  };
}

/**
 * The per-try spread a run measured: the engine's cost per item at rates tried more than once,
 * each try against its rate's mean, pooled (the pooled standard deviation over the grand mean).
 * Tries at the engine's cap are left out: a saturated engine reads the cap, not its cost. A try's
 * `run` keeps one run's rate apart from another's, so a drift between runs is not counted as
 * the spread between tries.
 * @param {Array<{ rate: number, usPerItem: number, saturated: boolean, run?: number }>} tries
 * @returns {{ sigma: number, tries: number, rates: number }|null} null with fewer than 2 rates tried twice
 */
export function pooledSpread(tries) {
  /** @type {Map<string, number[]>} */
  const byRate = new Map();
  for (const t of tries) {
    if (t.saturated || !Number.isFinite(t.usPerItem)) continue;
    const key = `${t.run ?? 0}:${t.rate}`;
    byRate.set(key, [...(byRate.get(key) ?? []), t.usPerItem]);
  }
  const groups = [...byRate.values()].filter((g) => g.length >= 2);
  if (groups.length < 2) return null;
  let ss = 0;
  let df = 0;
  let sum = 0;
  let n = 0;
  for (const g of groups) {
    const mean = g.reduce((a, x) => a + x, 0) / g.length;
    for (const x of g) ss += (x - mean) ** 2;
    df += g.length - 1;
    sum += g.reduce((a, x) => a + x, 0);
    n += g.length;
  }
  return { sigma: Math.sqrt(ss / df) / (sum / n), tries: n, rates: groups.length };
}
