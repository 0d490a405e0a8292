/**
 * RESULTS.md's Finding section, decided on the trials (verdict.js): the seed's finding, the
 * verdict (held / did not hold / inconclusive) with the trials per step, then every figure the
 * check names — median [95 % CI] (n), min–max, CV, each trial — and every comparison with its
 * change, p and verdict; warnings (a trial far from the others, a trend across rounds, a CV
 * above 5 %) beside the figure, never a dropped trial.
 */
import { mdTable } from '../record/format.js';
import { describe } from '../stats/stats.js';
import { INCONCLUSIVE, fmt, fmtP, judge, pct } from './verdict.js';
import { noisyLines } from './trial-noise.js';
import { serviceLines } from './trial-service.js';
import { seedEffectLines } from './seed-effects.js';

/**
 * @typedef {{ step: import('./spec.js').Step, trials: Array<{ trial: number, round: number, metrics: Record<string, number|undefined>, noise?: import('./trial-noise.js').TrialNoise|null,
 *   service?: { silent: string|null, tries: number }|null }> }} StepTrials
 */

/**
 * @param {import('./spec.js').Spec} spec
 * @param {StepTrials[]} steps every step with its complete trials' metrics
 * @param {Map<string, string>} [outOfRegime] step name → why it did not run in the seed's regime
 * @param {string[]} [countMetrics] the kind's metrics that are counts (decided by the counter's rule)
 * @param {{ metric: string, what: string }|null} [headline] the kind's main figure: a spec without a check shows it over the trials
 * @returns {{ lines: string[], verdict: string|null, n: string|null, judged: import('./verdict.js').Verdict|null }}
 */
export function findingSection(spec, steps, outOfRegime = new Map(), countMetrics = [], headline = null) {
  const seed = seedLine(spec.finding, spec.seed);
  if (!spec.checkTree)
    return {
      lines: [`${seed} Here: no check: in the spec.`, '', ...headlineTable(steps, headline), ...serviceLines(steps)],
      verdict: null,
      n: null,
      judged: null,
    };
  const withTrials = steps.filter((s) => s.trials.length);
  const byName = new Map(steps.map((s) => [s.step.name, s]));
  const pick = (name) => (name === 'first' ? withTrials[0] : name === 'last' ? withTrials[withTrials.length - 1] : byName.get(name));
  const judged = judge(spec.checkTree, (name) => pick(name)?.trials ?? [], {
    threshold: spec.noise,
    outOfRegime: (name) => outOfRegime.get(pick(name)?.step.name ?? name) ?? null,
    isCount: (metric) => countMetrics.includes(metric),
  });
  const counted = judged.comparisons.some((c) => c.kind === 'counted' || c.counts);
  const tested = judged.comparisons.filter((c) => c.kind !== 'counted');
  const noisy = new Set(steps.flatMap((s) => s.trials.filter((t) => t.noise?.noisy).map((t) => `${s.step.name}/${t.trial}`)));
  const counts = [...new Set(judged.refs.map((r) => r.described.n))].sort((a, b) => a - b);
  const n =
    counts.length === 1
      ? `${counts[0]} trial${counts[0] === 1 ? '' : 's'} per step`
      : `${counts[0]}–${counts[counts.length - 1]} trials per step`;
  if (!judged.refs.some((r) => r.described.n)) {
    const missing = judged.refs.filter((r) => !r.described.n).map((r) => r.step);
    return {
      lines: [`${seed} Here: not known yet — \`${spec.check}\` needs steps not run yet (${[...new Set(missing)].join(', ')}).`, ''],
      verdict: null,
      n: null,
      judged: null,
    };
  }
  const lines = [
    `${seed} Here: **${judged.verdict}** (${n}) — \`${spec.check}\`.`,
    '',
    ...(judged.verdict === INCONCLUSIVE && spec.decideBy ? [`What would decide it: ${spec.decideBy}`, ''] : []),
    ...(judged.verdict === INCONCLUSIVE && tested.some((c) => c.verdict === INCONCLUSIVE) && judged.minTrials < 6
      ? [
          'With fewer than 6 trials a step has no 95% interval for its median, and the exact test cannot tell 3 trials a side apart at 0.05: run more (`repeat:` or `--repeat`).',
          '',
        ]
      : []),
    mdTable(
      ['Figure', 'Median [95% CI]', 'n', 'Min–max', 'CV', 'Trials (round order)'],
      judged.refs.map((r) => {
        const d = r.described;
        const ci = d.ci ? `[${fmt(d.ci.lo)}, ${fmt(d.ci.hi)}]` : `(${d.why ?? 'no interval'})`;
        return [
          `\`${r.text}\``,
          d.n ? `${fmt(d.median)} ${ci}` : 'not measured',
          d.n,
          d.n ? `${fmt(d.min)}–${fmt(d.max)}` : '',
          d.cv === null ? '' : pct(d.cv).replace('+', ''),
          r.values.map((v) => `${fmt(v.value)}${noisy.has(`${pick(r.step)?.step.name}/${v.trial}`) ? '*' : ''}`).join(' '),
        ];
      }),
    ),
    '',
    mdTable(
      ['Comparison', 'Change [95% CI]', 'p', 'Verdict', 'Why'],
      judged.comparisons.map((c) => [
        `\`${c.text}\``,
        changeCell(c),
        c.kind === 'two-sample'
          ? `${fmtP(c.p)}${c.pAdjusted !== null && c.pAdjusted !== c.p ? ` (Holm ${fmtP(c.pAdjusted)})` : ''}`
          : c.kind === 'one-sample'
            ? `${fmtP(c.p)} (sign test)`
            : c.kind === 'counted'
              ? 'counted: no test'
              : '',
        c.verdict,
        c.why,
      ]),
    ),
    '',
    ...seedEffectLines(spec.seedEffects ?? [], judged.comparisons),
    ...regimeLines(outOfRegime),
    ...warningLines(judged),
    ...noisyLines(steps, new Set(judged.refs.map((r) => pick(r.step)?.step.name ?? r.step))),
    ...serviceLines(steps),
    ...fewAgainstConstant(judged.comparisons),
    `How to read this: each trial is one whole run of the step, and its figure is that run's own (a percentile from its own histogram, a count, an average over its own seconds, one call's time, or the best cell's rate; never pooled across trials). The median's interval is distribution-free (order statistics; it needs 6 trials). Two steps are compared by an exact Mann–Whitney U test (p, Holm-corrected when the check compares several figures) and a Hodges–Lehmann interval of the change of the left side relative to the right; a comparison holds when it is significant at 0.05 in the claimed direction and the change lies wholly beyond ±${Math.round((spec.noise ?? 0.02) * 1000) / 10}% (the noise threshold), or wholly past a constant written in the check. A figure against a constant holds when its median's whole interval is on the claimed side. Anything else is inconclusive.${counted ? COUNTED_WORDS : ''}`,
    '',
  ];
  return { lines, verdict: judged.verdict, n, judged };
}

/**
 * A spec without a check still ran trials: its kind's main figure per step over them (median,
 * range, every trial), so a reader sees how far the trials agree.
 * @param {StepTrials[]} steps
 * @param {{ metric: string, what: string }|null} headline
 * @returns {string[]}
 */
function headlineTable(steps, headline) {
  if (!headline || !steps.some((s) => s.trials.length)) return [];
  const rows = steps.map(({ step, trials }) => {
    const values = trials.map((t) => t.metrics[headline.metric]).filter((v) => typeof v === 'number' && Number.isFinite(v));
    const d = describe(values);
    if (!d.n) return [step.label, 'not measured', 0, '', ''];
    return [step.label, fmt(d.median), d.n, `${fmt(d.min)}–${fmt(d.max)}`, values.map(fmt).join(' ')];
  });
  return [
    `Every trial's \`${headline.metric}\` (${headline.what}), per step:`,
    '',
    mdTable(['Step', 'Median', 'n', 'Min–max', 'Trials (round order)'], rows),
    '',
  ];
}

/** How a comparison of counts is read (verdict.js decideCounted). */
const COUNTED_WORDS =
  " Counts (Redis's instructions per item, counted under Valgrind: identical runs count within 0.1 % of each other at 1,000 items/s, `npm run bench:cost`; at the seed's rates, with several writers' pipelines interleaved differently each time, within a few per cent: the Min–max above shows this run's) are not tested for noise: a comparison of counts holds when every trial of one side lies beyond every trial of the other in the claimed direction by more than ±1 % (or past a constant written in the check), and did not hold when every trial lies beyond it the other way; its interval is the range over every pair of trials. With 6 or more trials a side, counts are judged by the test above, with ±1 % as the noise threshold.";

function changeCell(c) {
  if (c.kind === 'fixed') return '';
  if (c.kind === 'one-sample') return c.described?.ci ? `median ${fmt(c.described.median)} vs ${fmt(c.constant)}` : '';
  if (c.kind === 'counted' && c.constant !== null)
    return c.described?.n ? `trials ${fmt(c.described.min)}–${fmt(c.described.max)} vs ${fmt(c.constant)}` : '';
  const ch = c.change;
  if (!ch) return '';
  // against `b * 1.15` the change to b itself comes first: that is the effect; the one against the bound decides
  if (c.plain) return `${changeText(c.kind, c.plain.change)} vs \`${c.plain.text}\`; ${changeText(c.kind, ch)} vs × ${fmt(c.plain.factor)}`;
  return changeText(c.kind, ch);
}

/**
 * @param {string} kind
 * @param {NonNullable<import('./verdict.js').Comparison['change']>} ch
 */
function changeText(kind, ch) {
  if (kind === 'counted' && ch.pct !== null && ch.pctLo !== null)
    return `${pct(ch.pct / 100)} (pairs ${pct(ch.pctLo / 100)} to ${pct(ch.pctHi / 100)})`;
  if (ch.pct !== null)
    return `${pct(ch.pct / 100)} ${ch.pctLo === null ? `(${ch.why ?? 'no interval'})` : `[${pct(ch.pctLo / 100)}, ${pct(ch.pctHi / 100)}]`}`;
  return `${fmt(ch.estimate)} ${ch.lo === null ? `(${ch.why ?? 'no interval'})` : `[${fmt(ch.lo)}, ${fmt(ch.hi)}]`}`;
}

function regimeLines(outOfRegime) {
  if (!outOfRegime.size) return [];
  return [
    "Steps outside the seed's regime (every comparison naming one is inconclusive, whatever its figures):",
    '',
    ...[...outOfRegime].map(([step, why]) => `- ${step}: ${why}.`),
    '',
  ];
}

function warningLines(judged) {
  const w = judged.refs.filter((r) => r.warnings.length).map((r) => `- \`${r.text}\`: ${r.warnings.join('; ')}`);
  return w.length ? ['Warnings (every trial is kept and counted):', '', ...w, ''] : [];
}

/** `seed: none`: an experiment of rqbench's own, which no seed ran. */
export const NO_SEED = 'none';

/**
 * The seed's finding as RESULTS.md gives it: a finding written in double quotes is the seed's own
 * words (test/unit/seed-quotes.test.js finds each in ../shared/seeds/) and is printed as a quote;
 * any other is rqbench's reading of the seed and says so, so that no paraphrase reads as a quote.
 * A spec whose `seed:` is `none` runs an experiment no seed ran: its finding is rqbench's own claim.
 * @param {string|undefined} finding
 * @param {string} [seed] the spec's seed: field
 */
export function seedLine(finding, seed) {
  if (seed === NO_SEED)
    return finding
      ? `Claim (ours: no seed ran this experiment): ${finding.replace(/([^.!?])$/, '$1.')}`
      : 'Claim: (no finding line in the spec).';
  if (!finding) return 'Seed: (no finding line in the spec).';
  const quoted = /^".*"$/s.test(finding.trim());
  return quoted ? `Seed: ${finding.trim()}` : `Seed, in our reading: ${finding.replace(/([^.!?])$/, '$1.')}`;
}

/** Trials a side from which a median's interval against a constant no longer reaches the extremes. */
const CONSTANT_TRIALS = 9;

/**
 * A figure against a constant, on fewer than 9 trials: its median's 95% interval is then the range
 * of the trials ([min, max] at 6), so one trial that measured something else (a service that
 * stopped answering, a host that stalled) decides the verdict alone. Said beside it.
 * @param {Array<{ kind: string, text: string, described?: { n: number }|null }>} comparisons
 * @returns {string[]}
 */
export function fewAgainstConstant(comparisons) {
  const few = comparisons.filter((c) => c.kind === 'one-sample' && c.described && c.described.n > 0 && c.described.n < CONSTANT_TRIALS);
  if (!few.length) return [];
  const ns = [...new Set(few.map((c) => c.described?.n))].join(', ');
  return [
    `Against a constant on ${ns} trials (${few.map((c) => `\`${c.text}\``).join(', ')}), the median's 95% interval spans the trials from the lowest to the highest: one trial alone can decide the verdict. ${CONSTANT_TRIALS} or more trials give an interval that one trial cannot move.`,
    '',
  ];
}
