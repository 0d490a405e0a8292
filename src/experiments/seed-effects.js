/**
 * `seedEffects:` the seed's own effect size for a comparison of the check, and whether this run's
 * interval of the change includes it, excludes it, or cannot tell. A verdict says the direction
 * held; this says whether the size did too (the seed's list at 80 % of its sorted set's CPU is
 * -19.1 %; a run whose interval is [-34.9 %, -26.1 %] found the direction and a larger size).
 *
 *   check: "list.master_us_per_item < zset.master_us_per_item"
 *   seedEffects: { "list.master_us_per_item < zset.master_us_per_item": -19.1 }   # %, the seed's 36 vs 44.5
 */
import { parseCheck } from './check.js';
import { comparisonsOf, pct, textOf } from './verdict.js';

/** @typedef {{ comparison: string, pct: number }} SeedEffect  comparison: as textOf writes it */

/**
 * @param {unknown} v the spec's seedEffects
 * @param {import('./check.js').Node|null} checkTree
 * @param {(msg: string) => Error} problem
 * @returns {SeedEffect[]}
 */
export function readSeedEffects(v, checkTree, problem) {
  if (v === undefined) return [];
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw problem('seedEffects must map a comparison of the check to the seed\'s change in %, e.g. { "a.m < b.m": -19.1 }');
  if (!checkTree) throw problem('seedEffects needs a check:');
  const known = comparisonsOf(checkTree).map(textOf);
  return Object.entries(v).map(([text, change]) => {
    let written;
    try {
      written = comparisonsOf(parseCheck(text)).map(textOf);
    } catch (e) {
      throw problem(`seedEffects: "${text}": ${e.message}`);
    }
    if (written.length !== 1 || !known.includes(written[0]))
      throw problem(`seedEffects: "${text}" is not a comparison of the check (${known.map((k) => `"${k}"`).join(', ')})`);
    if (typeof change !== 'number' || !Number.isFinite(change))
      throw problem(`seedEffects."${text}" must be the seed's change in %, a number (got ${JSON.stringify(change)})`);
    return { comparison: written[0], pct: change };
  });
}

/**
 * One line per seed effect: the seed's change against this run's interval of it.
 * @param {SeedEffect[]} effects
 * @param {import('./verdict.js').Comparison[]} comparisons as judged
 * @returns {string[]}
 */
export function seedEffectLines(effects, comparisons) {
  if (!effects.length) return [];
  const lines = effects.map((e) => {
    const c = comparisons.find((x) => x.text === e.comparison);
    const seed = pct(e.pct / 100);
    // the seed's change is of one figure against the other, never against a bound (`b * 1.15`)
    const ch = c?.plain?.change ?? c?.change;
    if (!ch || ch.pctLo === null || ch.pctHi === null)
      return `- \`${e.comparison}\`: the seed's ${seed} — cannot tell (${ch?.why ?? 'no interval of the change'})`;
    const where = `[${pct(ch.pctLo / 100)}, ${pct(ch.pctHi / 100)}]`;
    const what = c.kind === 'counted' ? "this run's range over every pair of counted trials" : "this run's 95% interval";
    // the ends are ratios of figures: a seed's -20 % against 8,000 ÷ 10,000 is inside, not 4e-15 below
    const eps = 1e-9 * Math.max(1, Math.abs(e.pct));
    if (e.pct >= ch.pctLo - eps && e.pct <= ch.pctHi + eps)
      return `- \`${e.comparison}\`: the seed's ${seed} lies inside ${what}, ${where}: includes it`;
    const side = e.pct < ch.pctLo ? 'below' : 'above';
    return `- \`${e.comparison}\`: the seed's ${seed} lies ${side} ${what}, ${where}: excludes it`;
  });
  // a count of Redis's instructions leaves out what the seed's node CPU held (the kernel, the host's own work)
  const counted = effects.some((e) => {
    const c = comparisons.find((x) => x.text === e.comparison);
    return c?.kind === 'counted' || c?.counts;
  });
  return [
    `The seed's effect sizes against this run's (the seed's change of the left side relative to the right, from its own figures${counted ? "; where this run's figure is a count of Redis's instructions, the seed's is its node's CPU: not the same quantity, so a size apart says how far the two differ, not that the direction failed" : ''}):`,
    '',
    ...lines,
    '',
  ];
}
