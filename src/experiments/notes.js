/**
 * A spec's notes, the prose RESULTS.md prints above its tables. Hand-written prose that states a
 * figure goes stale at the next run (a note gave a drop of 30.9 % where its own table, re-run, read
 * an inconclusive one), so a figure of this run is never typed into notes: it is a placeholder,
 * `{{ step.metric }}`, filled from the run RESULTS.md is written from — the step's median over its
 * complete trials, as the Finding's table prints it. Numbers the notes may still type are the
 * seed's and the spec's own (its flags, rates and lengths): test/unit/notes-figures.test.js holds
 * every committed RESULTS.md to that.
 */

/** `{{ step.metric }}`, spaces allowed inside the braces. */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)\s*\}\}/g;
/** Anything else between double braces is a mistake, not prose. */
const BRACES = /\{\{[^}]*\}\}/g;

/**
 * Why the notes' placeholders cannot be filled from this spec, or null.
 * @param {string} notes
 * @param {string[]} steps the spec's step names
 * @param {Record<string, string>} metrics the steps' kind's metrics
 * @returns {string|null}
 */
export function notesProblem(notes, steps, metrics) {
  for (const m of notes.matchAll(BRACES)) {
    const one = /^\{\{\s*([A-Za-z0-9_]+)\.([A-Za-z0-9_]+)\s*\}\}$/.exec(m[0]);
    if (!one) return `notes: ${m[0]} is not a placeholder ({{ step.metric }}, e.g. {{ ${steps[0]}.${Object.keys(metrics)[0]} }})`;
    if (!steps.includes(one[1])) return `notes: ${m[0]} names no step (steps: ${steps.join(', ')})`;
    if (!(one[2] in metrics)) return `notes: ${m[0]}: ${one[2]} is not a metric (known: ${Object.keys(metrics).join(', ')})`;
  }
  return null;
}

/**
 * The notes with every placeholder filled: the step's median, or "(not measured)" when this run has none.
 * @param {string} notes
 * @param {(step: string, metric: string) => number|null|undefined} medianOf
 * @param {(x: number) => string} format as the Finding's table writes a figure
 * @returns {string}
 */
export function fillNotes(notes, medianOf, format) {
  return notes.replace(PLACEHOLDER, (_all, step, metric) => {
    const v = medianOf(step, metric);
    return typeof v === 'number' && Number.isFinite(v) ? format(v) : '(not measured)';
  });
}

/**
 * The numbers a text states, as values: "30k" is 30000, "1,000" is 1000, "4.5%" is 4.5. Each with
 * the decimals it was written with, so that a figure rounded in prose can be found in a table.
 * @param {string} text
 * @returns {Array<{ text: string, value: number, decimals: number }>}
 */
export function numbersIn(text) {
  const out = [];
  // not inside a word or a name (trial-3, r6g, 002-lua, §, v20.20.2): a number stands alone or after a sign
  // a multiplier counts too ("differ by 2x"): the x is not part of a word there
  const re = /(?<![\w.\-/])([+−-]?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?([kKM])?(?:x|×)?(?![\w.]*\w|-[A-Za-z])/g;
  for (const m of text.matchAll(re)) {
    const whole = Number(m[2].replaceAll(',', ''));
    const frac = m[3] ?? '';
    const scale = m[4] === 'k' || m[4] === 'K' ? 1e3 : m[4] === 'M' ? 1e6 : 1;
    const sign = m[1] === '-' || m[1] === '−' ? -1 : 1;
    out.push({ text: m[0], value: sign * Number(`${whole}${frac}`) * scale, decimals: scale === 1 ? Math.max(0, frac.length - 1) : 0 });
  }
  return out;
}

/**
 * Whether `n` is one of `known`, as written: the same magnitude, or one that rounds to it at the
 * decimals it was written with (2.6 for 2.58); 30k is 30,000 (numbersIn).
 * @param {{ value: number, decimals: number }} n
 * @param {number[]} known
 */
export function isKnown(n, known) {
  const step = 10 ** -n.decimals;
  // magnitudes: prose says "a drop of 30.9%" where a table says −30.9%
  return known.some((v) => Math.abs(Math.abs(v) - Math.abs(n.value)) <= step / 2 + 1e-9);
}
