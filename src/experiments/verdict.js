/**
 * A `check:` decided on the trials, with three values: held, did not hold, inconclusive.
 *
 * Each comparison of the check (`a.m < b.m`, `a.m > b.m * 1.5`, `a.complete == 1`) is judged on
 * its own, from one number per trial (never from single requests):
 * - two steps' figures (two-sample): an exact Mann–Whitney U test and a Hodges–Lehmann interval of
 *   the relative change; p-values are Holm-corrected across the check's two-sample comparisons.
 *   Held when significant in the claimed direction and the interval lies wholly beyond the noise
 *   threshold (±2 % by default, as criterion.rs keeps a noise threshold of 1 %); with a constant
 *   written in (`b * 0.6`) the constant is the threshold, so the whole interval on the claimed
 *   side is enough. Did not hold when significant the other way.
 * - a figure against a constant (one-sample): the distribution-free 95 % interval of its median;
 *   held when the whole interval is on the claimed side, did not hold when it is wholly on the
 *   other, inconclusive otherwise — and below 6 trials, where no such interval exists.
 * - two steps' counts (metrics the kind declares counts: Redis's instructions per item counted
 *   under Valgrind, 0.1 % apart between identical runs where CPU time moves 6–15 %): no test
 *   built for noise, but the counter's own rule. Held when every trial of the left side lies
 *   beyond every trial of the right in the claimed direction, by more than the counts' noise
 *   threshold (COUNT_NOISE, ten times the counter's measured spread; a spec's noiseThreshold is for timed figures); did not hold when every
 *   trial lies beyond it the other way; inconclusive when the trials' ranges come within it. One
 *   trial a side decides; more confirm (a spread among them shows as the range). From RANK_TRIALS
 *   a side, counts are judged as two-sample figures are, with the counts' threshold. A count against
 *   a constant (`a.top_master_ir_share < 0.8`) holds when every trial is on the claimed side.
 * `and`, `or`, `not` follow Kleene's three-valued logic: one inconclusive part makes an `and`
 * inconclusive unless another part did not hold.
 */
import { changeInterval, describe, holm, mannWhitney, noiseWords, signTest, trialWarnings } from '../stats/stats.js';
import { evalCheck, refsOf } from './check.js';

export const HELD = 'held';
export const NOT_HELD = 'did not hold';
export const INCONCLUSIVE = 'inconclusive';
/** The default noise threshold: a relative change inside ±2 % is never called a difference. */
export const NOISE = 0.02;
export const ALPHA = 0.05;
/**
 * A count's noise threshold: a relative difference inside ±1 % is never called one. The counter
 * repeats within 0.1 % at 1,000 items/s and a run dilated 2x instead of 1x moves it 0.4 % (bench:cost);
 * at the seed's rates, several writers' pipelines interleave differently each trial and a step's
 * count moved 0.1–5 % with 2 writers, 8 % with 4 (002-store-models, 002-lua, 002-more-writers): the
 * all-pairs rule carries such a spread into the range it judges, and stays inconclusive on it.
 */
export const COUNT_NOISE = 0.01;
/**
 * Trials a side from which a comparison of counts is judged by the rank test (Mann–Whitney and
 * Hodges–Lehmann, the counts' threshold) instead of the all-pairs rule: as many as a timed
 * figure's interval needs. Where the all-pairs rule decides, so does the test (every pair beyond
 * ±1 % with 6 a side is p 0.002); where a step's counts spread (4 writers: 8 %), only the test can.
 */
export const RANK_TRIALS = 6;

const CMP = ['<', '<=', '>', '>=', '==', '!='];
const FLIP = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };

/**
 * @typedef {import('./check.js').Node} Node
 * @typedef {{ round: number, trial: number, metrics: Record<string, number|undefined> }} Trial
 * @typedef {{ text: string, step: string, metric: string, values: Array<{ round: number, trial: number, value: number }>,
 *   described: ReturnType<typeof describe>, warnings: string[] }} RefFigures
 * @typedef {object} Comparison
 * @property {string} text         the comparison as written (normalised spacing)
 * @property {'two-sample'|'one-sample'|'fixed'|'counted'} kind
 * @property {boolean} [counts]    two-sample figures that are counts (judged against the counts' threshold)
 * @property {string} verdict      held | did not hold | inconclusive
 * @property {string} why          one phrase: what decided it
 * @property {number|null} p       Mann–Whitney (two-sample) or sign test (one-sample)
 * @property {number|null} pAdjusted Holm-adjusted (two-sample)
 * @property {ReturnType<typeof changeInterval>|null} change  left relative to right (two-sample)
 * @property {Plain|null} [plain]  where the right side is a figure times a constant (`a < b * 1.15`): the
 *   change of a relative to b itself, which is what a reader asks first (the change above is against b × 1.15)
 * @property {ReturnType<typeof describe>|null} described      the figure's median and interval (one-sample)
 * @property {number|null} constant
 * @typedef {{ text: string, factor: number, change: ReturnType<typeof changeInterval> }} Plain  text: the
 *   right side without its constant (`b`); factor: the constant it is scaled by (1.15 for `b * 1.15`)
 * @typedef {{ verdict: string, comparisons: Comparison[], refs: RefFigures[], minTrials: number }} Verdict
 */

/**
 * @param {Node} tree a parsed check
 * @param {(step: string) => Trial[]} trialsOf a step's complete trials ('first' / 'last' resolved by the caller)
 * @param {{ alpha?: number, threshold?: number, outOfRegime?: (step: string) => string|null, isCount?: (metric: string) => boolean }} [o]
 *   threshold: relative, 0.02 = ±2 %; outOfRegime: why a step (as the check names it) did not run in the seed's
 *   regime, or null; isCount: whether a metric is a count (decided by the counter's rule)
 * @returns {Verdict}
 */
export function judge(tree, trialsOf, { alpha = ALPHA, threshold = NOISE, outOfRegime = () => null, isCount = () => false } = {}) {
  const cmps = comparisonsOf(tree);
  const judged = new Map(cmps.map((node) => [node, measure(node, trialsOf, isCount)]));
  const two = [...judged.values()].filter((c) => c.kind === 'two-sample' && c.p !== null);
  const adjusted = holm(
    two.map((c) => /** @type {number} */ (c.p)),
    alpha,
  ).adjusted;
  two.forEach((c, i) => {
    c.pAdjusted = adjusted[i];
  });
  for (const c of judged.values()) decide(c, { alpha, threshold });
  // a step outside the seed's regime measured something else: whatever its figures say, it cannot decide
  for (const [node, c] of judged) {
    const step = [...new Set(refsOf(node).map((r) => r.step))].find((name) => outOfRegime(name));
    if (step) Object.assign(c, { verdict: INCONCLUSIVE, why: `${step} cannot decide: ${outOfRegime(step)}` });
  }
  const verdict = combine(tree, judged);
  const refs = uniqueRefs(tree).map((r) => figuresOf(r, trialsOf, isCount(r.metric)));
  return { verdict, comparisons: [...judged.values()].map(strip), refs, minTrials: Math.min(...refs.map((r) => r.described.n), Infinity) };
}

/**
 * The check's comparisons, in the order written; a check that is not comparisons joined by
 * and / or / not is refused.
 * @param {Node} node
 * @returns {Node[]}
 */
export function comparisonsOf(node) {
  if (node.kind === 'op' && ['and', 'or', 'not'].includes(node.op)) return node.args.flatMap(comparisonsOf);
  if (node.kind === 'op' && CMP.includes(node.op)) {
    if (node.args.some((a) => comparisonsInside(a)))
      throw new Error(`"${textOf(node)}" compares a comparison: write comparisons joined by and / or / not`);
    return [node];
  }
  throw new Error(`"${textOf(node)}" is not a comparison (<, <=, >, >=, ==, !=): a check is comparisons joined by and / or / not`);
}

function comparisonsInside(node) {
  return node.kind === 'op' && (CMP.includes(node.op) || ['and', 'or', 'not'].includes(node.op) || node.args.some(comparisonsInside));
}

/**
 * An expression as it reads.
 * @param {Node} node
 * @returns {string}
 */
export function textOf(node) {
  if (node.kind === 'num') return String(node.value);
  if (node.kind === 'ref') return node.text;
  const [a, b] = node.args;
  const p = PREC[node.op];
  if (node.op === 'neg') return `-${wrap(a, p)}`;
  if (node.op === 'not') return `not ${wrap(a, p)}`;
  // a right operand of equal rank keeps its parentheses: a - (b - c), a / (b * c)
  return `${wrap(a, p)} ${node.op} ${wrap(b, p + 0.5)}`;
}

/** Binding strength, so parentheses are printed only where the check needs them. */
const PREC = { or: 1, and: 2, not: 2.5, '<': 3, '<=': 3, '>': 3, '>=': 3, '==': 3, '!=': 3, '+': 4, '-': 4, '*': 5, '/': 5, neg: 6 };
const wrap = (n, min) => (n.kind === 'op' && PREC[n.op] < min ? `(${textOf(n)})` : textOf(n));

/**
 * One side's numbers: a constant, or one value per trial (a side naming several steps: one per
 * round in which every one of them has a trial).
 * @param {Node} side
 * @param {(step: string) => Trial[]} trialsOf
 * @returns {{ constant: number|null, values: number[], bare: boolean }}
 */
function sideOf(side, trialsOf) {
  const refs = refsOf(side);
  if (!refs.length) return { constant: /** @type {number} */ (evalCheck(side, () => undefined)), values: [], bare: false };
  const steps = [...new Set(refs.map((r) => r.step))];
  const byStep = new Map(steps.map((s) => [s, trialsOf(s)]));
  const rounds =
    steps.length === 1
      ? byStep.get(steps[0]).map((t) => new Map([[steps[0], t]]))
      : [...new Set(byStep.get(steps[0]).map((t) => t.round))]
          .map((round) => new Map(steps.map((s) => [s, byStep.get(s).find((t) => t.round === round)])))
          .filter((m) => [...m.values()].every(Boolean));
  const values = rounds
    .map((m) => evalCheck(side, (ref) => m.get(ref.step)?.metrics[ref.metric]))
    .filter((v) => typeof v === 'number' && Number.isFinite(v));
  return { constant: null, values: /** @type {number[]} */ (values), bare: side.kind === 'ref' };
}

/** @returns {Comparison & { op: string, x: number[], y: number[], bare: boolean }} */
function measure(node, trialsOf, isCount) {
  let op = node.op;
  let x = sideOf(node.args[0], trialsOf);
  let y = sideOf(node.args[1], trialsOf);
  // the figure on the left, the constant on the right
  if (x.constant !== null && y.constant === null) {
    [x, y] = [y, x];
    op = FLIP[op];
  }
  // (a constant side is always on the right once flipped, so a scaled figure is the written right side)
  const scaled = y.constant === null ? scaledRef(node.args[1]) : null;
  const base = {
    text: textOf(node),
    op,
    x: x.values,
    y: y.values,
    bare: x.bare && y.bare,
    verdict: INCONCLUSIVE,
    why: '',
    p: null,
    pAdjusted: null,
    change: null,
    described: null,
    constant: null,
  };
  if (x.constant !== null) return { ...base, kind: 'fixed', constant: x.constant, y: [y.constant] };
  const refs = refsOf(node);
  const counts = refs.length > 0 && refs.every((r) => isCount(r.metric));
  if (y.constant !== null) {
    const described = describe(x.values);
    // a count against a constant: every trial on one side of it, no interval needed
    if (counts) return { ...base, kind: 'counted', constant: y.constant, described };
    return { ...base, kind: 'one-sample', constant: y.constant, described, p: x.values.length ? signTest(x.values, y.constant).p : null };
  }
  // counts with enough trials for a rank test are judged by it, as timed figures are (with the counts'
  // threshold): where several writers interleave, a step's counts spread past the all-pairs rule's reach
  const byPairs = counts && (x.values.length < RANK_TRIALS || y.values.length < RANK_TRIALS);
  const changeOf = (/** @type {number[]} */ a, /** @type {number[]} */ b) =>
    a.length && b.length ? (byPairs ? rangeChange(a, b) : changeInterval(b, a)) : null;
  const raw = scaled && sideOf(scaled.ref, trialsOf).values;
  const plainChange = raw && changeOf(x.values, raw);
  const plain = scaled && plainChange ? { text: textOf(scaled.ref), factor: scaled.factor, change: plainChange } : null;
  if (byPairs) return { ...base, kind: 'counted', change: changeOf(x.values, y.values), plain };
  const p = x.values.length && y.values.length ? mannWhitney(x.values, y.values).p : null;
  // the left side relative to the right: "a < b" holds when the ratio a/b lies below 1
  return {
    ...base,
    kind: 'two-sample',
    counts,
    p,
    change: changeOf(x.values, y.values),
    plain,
  };
}

/**
 * A side that is one figure times (or divided by) a constant, `b * 1.15`, `1.5 * b`, `b / 2`: the figure and
 * the factor; anything else null.
 * @param {Node} side
 * @returns {{ ref: Node, factor: number }|null}
 */
function scaledRef(side) {
  if (side.kind !== 'op' || !['*', '/'].includes(side.op)) return null;
  const [a, b] = side.args;
  if (a.kind === 'ref' && b.kind === 'num') return { ref: a, factor: side.op === '*' ? b.value : 1 / b.value };
  if (side.op === '*' && a.kind === 'num' && b.kind === 'ref') return { ref: b, factor: a.value };
  return null;
}

/** Sets c.verdict and c.why. */
function decide(c, { alpha, threshold }) {
  const say = (verdict, why) => Object.assign(c, { verdict, why });
  if (c.kind === 'fixed') return say(compare(c.constant, c.op, c.y[0]) ? HELD : NOT_HELD, 'constants only');
  if (c.kind === 'one-sample') {
    const ci = c.described.ci;
    if (!c.described.n) return say(INCONCLUSIVE, 'no trial measured it');
    if (!ci) return say(INCONCLUSIVE, c.described.why ?? 'no interval');
    const k = c.constant;
    const where = `95% interval [${fmt(ci.lo)}, ${fmt(ci.hi)}] vs ${fmt(k)}`;
    const all = (v) => compare(ci.lo, c.op, k) === v && compare(ci.hi, c.op, k) === v;
    if (c.op === '==' || c.op === '!=') {
      const at = ci.lo === k && ci.hi === k;
      const off = ci.hi < k || ci.lo > k;
      const yes = c.op === '==' ? at : off;
      const no = c.op === '==' ? off : at;
      return say(yes ? HELD : no ? NOT_HELD : INCONCLUSIVE, where);
    }
    return say(all(true) ? HELD : all(false) ? NOT_HELD : INCONCLUSIVE, where);
  }
  if (c.kind === 'counted') return say(...decideCounted(c));
  // two-sample
  const ch = c.change;
  if (!c.x.length || !c.y.length) return say(INCONCLUSIVE, 'a side has no trial');
  if (c.pAdjusted === null || !ch || ch.lo === null) return say(INCONCLUSIVE, ch?.why ?? 'too few trials for an interval');
  const ratio = ch.kind === 'ratio';
  // the interval as a relative change (or, for a shift from zero, in the figure's own units)
  const [lo, hi] = ratio || ch.pctLo !== null ? [ch.pctLo / 100, ch.pctHi / 100] : [ch.lo, ch.hi];
  const est = ratio || ch.pct !== null ? ch.pct / 100 : ch.estimate;
  const t = c.bare && (ratio || ch.pctLo !== null) ? (c.counts ? COUNT_NOISE : threshold) : 0;
  const significant = c.pAdjusted < alpha;
  const show = ratio || ch.pctLo !== null ? pct : (v) => `${v > 0 ? '+' : ''}${fmt(v)}`;
  const where = `change ${show(est)} [${show(lo)}, ${show(hi)}], p ${fmtP(c.pAdjusted)}${c.pAdjusted !== c.p ? ' (Holm)' : ''}`;
  if (c.op === '==' || c.op === '!=') {
    const within = lo >= -t && hi <= t;
    const beyond = significant && (lo > t || hi < -t);
    const yes = c.op === '==' ? within : beyond;
    const no = c.op === '==' ? beyond : within;
    return say(yes ? HELD : no ? NOT_HELD : INCONCLUSIVE, `${where}; noise ±${pct(t)}`);
  }
  const up = c.op === '>' || c.op === '>=';
  const held = significant && (up ? lo > t : hi < -t);
  const against = significant && (up ? est < 0 : est > 0);
  const why = !significant
    ? `${where}: not significant at ${alpha}`
    : held || against
      ? where
      : `${where}: ${noiseWords(lo, hi, t, pct(t).replace(/^\+/, ''))}, the noise threshold`;
  return say(held ? HELD : against ? NOT_HELD : INCONCLUSIVE, why);
}

/**
 * The left side's counts relative to the right's: the change of their medians, and the range of
 * every pair's (the smallest and the largest left ÷ right − 1), in changeInterval's shape.
 * @param {number[]} x left
 * @param {number[]} y right
 * @returns {import('../stats/change.js').Change}
 */
function rangeChange(x, y) {
  const med = (v) => /** @type {number} */ (describe(v).median);
  const my = med(y);
  if (!(Math.min(...y) > 0) || !(my > 0))
    return {
      kind: 'shift',
      estimate: med(x) - my,
      lo: null,
      hi: null,
      pct: null,
      pctLo: null,
      pctHi: null,
      level: null,
      why: 'a count of 0',
    };
  const ratios = x.flatMap((a) => y.map((b) => a / b - 1));
  return {
    kind: 'ratio',
    estimate: med(x) / my,
    lo: Math.min(...ratios) + 1,
    hi: Math.max(...ratios) + 1,
    pct: (med(x) / my - 1) * 100,
    pctLo: Math.min(...ratios) * 100,
    pctHi: Math.max(...ratios) * 100,
    // not a confidence level: the range over every pair of trials
    level: null,
    why: null,
  };
}

/**
 * The counter's rule: every pair of trials beyond the threshold in one direction.
 * @returns {[string, string]} verdict and why
 */
function decideCounted(c) {
  if (c.constant !== null) return decideCountedFixed(c);
  const ch = c.change;
  if (!c.x.length || !c.y.length) return [INCONCLUSIVE, 'a side has no trial'];
  if (!ch || ch.pctLo === null) return [INCONCLUSIVE, ch?.why ?? 'no change to compare'];
  // the counts' own threshold (a spec's noiseThreshold is for timed figures), or a constant written into the
  // check (then the whole range past it is enough)
  const t = c.bare ? COUNT_NOISE : 0;
  const [lo, hi] = [ch.pctLo / 100, ch.pctHi / 100];
  const n = `${c.x.length} and ${c.y.length} counted trial${c.x.length + c.y.length > 2 ? 's' : ''}`;
  // against a figure scaled by a constant the constant is the margin: no noise threshold is added to it
  const margin = c.bare ? `counts' noise ±${pct(t).replace('+', '')}` : 'past the constant, no noise margin';
  const where = `change ${pct(ch.pct / 100)}, every pair of ${n} in [${pct(lo)}, ${pct(hi)}]; ${margin}`;
  if (c.op === '==' || c.op === '!=') {
    const within = lo >= -t && hi <= t;
    const beyond = lo > t || hi < -t;
    const yes = c.op === '==' ? within : beyond;
    const no = c.op === '==' ? beyond : within;
    return [yes ? HELD : no ? NOT_HELD : INCONCLUSIVE, where];
  }
  const up = c.op === '>' || c.op === '>=';
  const held = up ? lo > t : hi < -t;
  const against = up ? hi < -t : lo > t;
  return [
    held ? HELD : against ? NOT_HELD : INCONCLUSIVE,
    held || against ? where : `${where}: the trials' range reaches inside the noise`,
  ];
}

/**
 * The counter's rule against a constant written in the check (the constant is the threshold):
 * held when every trial is on the claimed side of it, did not hold when every one is on the other.
 * @returns {[string, string]} verdict and why
 */
function decideCountedFixed(c) {
  const n = c.x.length;
  if (!n) return [INCONCLUSIVE, 'no trial measured it'];
  const k = c.constant;
  const where = `every one of ${n} counted trial${n === 1 ? '' : 's'} in [${fmt(Math.min(...c.x))}, ${fmt(Math.max(...c.x))}] vs ${fmt(k)}`;
  const yes = c.x.filter((v) => compare(v, c.op, k)).length;
  if (yes === n) return [HELD, where];
  if (yes === 0) return [NOT_HELD, where];
  return [INCONCLUSIVE, `${where}: the trials lie on both sides`];
}

function compare(a, op, b) {
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '==':
      return a === b;
    default:
      return a !== b;
  }
}

/** Kleene's logic over the comparisons' verdicts. */
function combine(node, judged) {
  if (judged.has(node)) return judged.get(node).verdict;
  const vs = node.args.map((a) => combine(a, judged));
  if (node.op === 'not') return vs[0] === HELD ? NOT_HELD : vs[0] === NOT_HELD ? HELD : INCONCLUSIVE;
  if (node.op === 'and') return vs.includes(NOT_HELD) ? NOT_HELD : vs.every((v) => v === HELD) ? HELD : INCONCLUSIVE;
  return vs.includes(HELD) ? HELD : vs.every((v) => v === NOT_HELD) ? NOT_HELD : INCONCLUSIVE;
}

function uniqueRefs(tree) {
  return [...new Map(refsOf(tree).map((r) => [r.text, r])).values()];
}

/**
 * @param {boolean} counted a count's trials agree within the counter's noise: no outlier or CV warning
 *   is worth a reader's time below it (a robust z of 4 on 0.1 %)
 * @returns {RefFigures}
 */
function figuresOf(ref, trialsOf, counted) {
  const values = trialsOf(ref.step)
    .map((t) => ({ round: t.round, trial: t.trial, value: t.metrics[ref.metric] }))
    .filter((v) => typeof v.value === 'number' && Number.isFinite(v.value));
  const nums = values.map((v) => /** @type {number} */ (v.value));
  const described = describe(nums);
  const tight = counted && nums.length > 1 && (Math.max(...nums) - Math.min(...nums)) / Math.abs(described.median ?? 1) <= COUNT_NOISE;
  return {
    text: ref.text,
    step: ref.step,
    metric: ref.metric,
    values: /** @type {any} */ (values),
    described,
    warnings:
      nums.length > 1 && !tight
        ? trialWarnings(
            nums,
            values.map((v) => v.round),
          )
        : [],
  };
}

/** @returns {Comparison} */
function strip({ x, y, bare, op, ...c }) {
  return /** @type {Comparison} */ (c);
}

/** A figure as RESULTS.md prints it: 3 significant digits, no trailing noise. */
export function fmt(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return 'n/a';
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1000 ? String(Math.round(v)) : String(Number(v.toPrecision(3)));
}

/** 0.0312 → "+3.1%". */
export function pct(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return 'n/a';
  const x = Math.round(v * 1000) / 10;
  return `${x > 0 ? '+' : ''}${x}%`;
}

/** A p-value: 3 significant digits, "<0.001" below. */
export function fmtP(p) {
  if (p === null || p === undefined) return 'n/a';
  return p < 0.001 ? '<0.001' : String(Number(p.toPrecision(2)));
}
