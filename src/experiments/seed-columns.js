/**
 * `seedColumns:` in a spec: for each column of the seed's table that RESULTS.md puts a figure
 * beside, whether rqbench measures the same quantity or something stands in for it ("stand-in:
 * the SQS emulator for AWS SQS"), or the seed's figure cannot be reproduced at all ("not
 * reproducible: …": a figure no measurement of that kind can reach), so that no seed figure stands
 * beside a different quantity unlabelled. Read when the spec is loaded; printed under the notes.
 */
import { mdTable } from '../record/format.js';
import { describe } from '../stats/stats.js';
import { fmt } from './verdict.js';
import { seedDuration } from '../runs/queue-consume/queue-consumer-summary.js';
import { anyThin, pctCell, thinNote } from '../runs/common/thin-percentiles.js';

const SAID = /^(same quantity|stand-in:|not reproducible:)/i;

/**
 * @param {unknown} v the spec's `seedColumns:` value
 * @param {(msg: string) => Error} problem
 * @returns {Array<[string, string]>|null} [seed column, what stands here], in the spec's order
 */
export function readSeedColumns(v, problem) {
  if (v === undefined) return null;
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.keys(v).length) {
    throw problem('seedColumns must map each seed column to "same quantity …", "stand-in: X for the seed\'s Y" or "not reproducible: why"');
  }
  return Object.entries(v).map(([column, said]) => {
    if (typeof said !== 'string' || !SAID.test(said.trim())) {
      throw problem(
        `seedColumns.${column} must start with "same quantity", "stand-in:" or "not reproducible:" (got ${JSON.stringify(said)})`,
      );
    }
    return [column, said.trim()];
  });
}

/**
 * @param {Array<[string, string]>|null} columns
 * @returns {string[]} RESULTS.md lines
 */
export function seedColumnsSection(columns) {
  if (!columns) return [];
  return [
    "What stands beside each of the seed's columns:",
    '',
    mdTable(
      ['Seed column', 'Here'],
      columns.map(([c, s]) => [c, s]),
    ),
    '',
  ];
}

/**
 * @typedef {{ row: string, figures: Array<[string, string]>, itemsPerSec?: number }} StepSeed  a step's `seed:`: the seed's
 *   row (or setting) it stands for, the seed's own figures for its columns, as the seed wrote them, and
 *   (`items/s`) the items per second all its writers sent at that row, from which its cost per item follows
 */

/** A step seed's key that is not a seed column: the row's items per second, all writers. */
const ITEMS_PER_SEC = 'items/s';

/**
 * A step's `seed: { row: "…", "<seed column>": "<the seed's figure>" }`.
 * @param {unknown} v the step's `seed:` value
 * @param {string} where e.g. steps[0].seed
 * @param {Array<[string, string]>|null} columns the spec's seedColumns
 * @param {(msg: string) => Error} problem
 * @returns {StepSeed|null}
 */
export function readStepSeed(v, where, columns, problem) {
  if (v === undefined) return null;
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw problem(`${where} must be a map: { row: "<the seed's row>", "<seed column>": "<the seed's figure>" }`);
  if (!columns) throw problem(`${where} needs seedColumns: (what stands beside each of the seed's columns its figures are in)`);
  const m = /** @type {Record<string, unknown>} */ (v);
  if (typeof m.row !== 'string' || !m.row.trim())
    throw problem(`${where}.row must be a non-empty string naming the seed's row (or setting) this step stands for`);
  const known = columns.map(([c]) => c);
  const rate = m[ITEMS_PER_SEC];
  if (rate !== undefined && !(typeof rate === 'number' && rate > 0 && Number.isFinite(rate)))
    throw problem(
      `${where}.${ITEMS_PER_SEC} must be the items per second all the seed's writers sent at this row, a number > 0 (got ${JSON.stringify(rate)})`,
    );
  const figures = Object.entries(m)
    .filter(([k]) => k !== 'row' && k !== ITEMS_PER_SEC)
    .map(([k, f]) => {
      if (!known.includes(k)) throw problem(`${where}.${k} is not a column of seedColumns (known: ${known.join(', ')})`);
      if (typeof f !== 'string' || !f.trim())
        throw problem(`${where}.${k} must be the seed's figure as a string, as the seed wrote it (got ${JSON.stringify(f)})`);
      return /** @type {[string, string]} */ ([k, f.trim()]);
    });
  return rate === undefined ? { row: m.row.trim(), figures } : { row: m.row.trim(), figures, itemsPerSec: /** @type {number} */ (rate) };
}

/**
 * `seedMetrics: { "<seed column>": <metric> | [<metric>, …] }`: which of the kind's metrics is this
 * run's figure for a seed column, in the seed's unit (a list when the seed's cell holds several
 * figures, e.g. a p50 and a p999, in their order).
 * @param {unknown} v
 * @param {Array<[string, string]>|null} columns the spec's seedColumns
 * @param {Record<string, string>} metrics the kind's metrics
 * @param {(msg: string) => Error} problem
 * @returns {Array<[string, string[]]>|null} [seed column, metrics], in the spec's order
 */
export function readSeedMetrics(v, columns, metrics, problem) {
  if (v === undefined) return null;
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.keys(v).length)
    throw problem('seedMetrics must map seed columns to metrics, e.g. { "master CPU": master_cpu_node }');
  if (!columns) throw problem("seedMetrics needs seedColumns: (what stands beside each of the seed's columns)");
  const known = columns.map(([c]) => c);
  return Object.entries(v).map(([column, given]) => {
    if (!known.includes(column)) throw problem(`seedMetrics.${column} is not a column of seedColumns (known: ${known.join(', ')})`);
    const list = Array.isArray(given) ? given : [given];
    if (!list.length) throw problem(`seedMetrics.${column} must name a metric, or a list of them`);
    for (const m of list) {
      if (typeof m !== 'string' || !(m in metrics))
        throw problem(`seedMetrics.${column}: ${JSON.stringify(m)} is not a metric (known: ${Object.keys(metrics).join(', ')})`);
    }
    return /** @type {[string, string[]]} */ ([column, list]);
  });
}

/**
 * RESULTS.md's "Each step beside the seed": per step, the seed's row and, per seed column with a
 * figure, the seed's figure and, where seedMetrics maps the column, this run's median [95% CI] over
 * the step's trials beside it; then the check's verdict. Nothing when no step has a `seed:`.
 * @param {{ seedColumns: Array<[string, string]>|null, seedMetrics?: Array<[string, string[]]>|null, steps: Array<{ name: string, label: string, seed?: StepSeed|null }> }} spec
 * @param {Array<{ step: { name: string }, trials: Array<{ metrics: Record<string, number|undefined> }> }>} measured
 * @param {Record<string, string>} metrics the kind's metrics (name → what it is)
 * @param {{ verdict: string|null, n: string|null, check: string|null }} verdict
 * @returns {string[]}
 */
export function besideSeedSection(spec, measured, metrics, verdict) {
  const seeded = spec.steps.filter((s) => s.seed);
  if (!seeded.length || !spec.seedColumns) return [];
  const columns = spec.seedColumns.map(([c]) => c).filter((c) => seeded.some((s) => s.seed?.figures.some(([k]) => k === c)));
  const mapped = new Map(spec.seedMetrics ?? []);
  const header = ['Step', "The seed's row", ...columns.flatMap((c) => (mapped.has(c) ? [`${c}: seed`, `${c}: here`] : [`${c}: seed`]))];
  const trialsOf = new Map(measured.map((m) => [m.step.name, m.trials]));
  const rows = spec.steps.map((step) => {
    const figures = new Map(step.seed?.figures ?? []);
    const one = (metric) => {
      const d = describe((trialsOf.get(step.name) ?? []).map((t) => /** @type {number} */ (t.metrics[metric])));
      if (!d.n) return 'not measured';
      // a time as the seeds write one (450us, 3ms, 1.2s), whatever unit the metric is kept in
      const show = (v) => (metric.endsWith('_ms') && v > 0 ? seedDuration(v) : fmt(v));
      const text = `${show(d.median)} ${d.ci ? `[${show(d.ci.lo)}, ${show(d.ci.hi)}]` : `(n=${d.n}, no interval)`}`;
      // a percentile whose kind says how many samples it was read from (<base>_n) is flagged when thin
      const pq = /^(.*)_p(\d+)_ms$/.exec(metric);
      const samples = pq ? describe((trialsOf.get(step.name) ?? []).map((t) => /** @type {number} */ (t.metrics[`${pq[1]}_n`]))) : null;
      return pq && samples?.n ? pctCell(text, samples.median, Number(`0.${pq[2]}`)) : text;
    };
    // this run's figure only beside a figure of the seed's
    const here = (c) => (figures.has(c) ? (mapped.get(c) ?? []).map(one).join(' / ') : '—');
    return [step.label, step.seed?.row ?? '—', ...columns.flatMap((c) => [figures.get(c) ?? '—', ...(mapped.has(c) ? [here(c)] : [])])];
  });
  const hereWords = columns
    .filter((c) => mapped.has(c))
    .map((c) => `${c}: ${(mapped.get(c) ?? []).map((m) => `\`${m}\` (${metrics[m]})`).join(' / ')}`);
  const unmapped = columns.filter((c) => !mapped.has(c));
  const verdictLine =
    verdict.verdict === null
      ? `The check's verdict: ${verdict.check === null ? 'none (no check: in the spec)' : 'not known yet'}.`
      : `The check's verdict: **${verdict.verdict}** (${verdict.n}) — \`${verdict.check}\` (the Finding above says what it compares).`;
  return [
    '## Each step beside the seed',
    '',
    "The seed's figures as it wrote them (its units), beside the step that stands for its row; what stands in for each of its columns is said above." +
      (hereWords.length
        ? ` "here": this run's median [95% CI] over the step's complete trials${[...mapped.values()].flat().some((m) => m.endsWith('_ms')) ? ' (a time as the seeds write one: 450us, 3ms, 1.2s)' : ''} — ${hereWords.join('; ')}.`
        : '') +
      (unmapped.length
        ? ` No "here" figure for ${unmapped.join(', ')}: no metric of this kind is mapped to it (seedMetrics:); the Results below have this run's own figures.`
        : ''),
    '',
    mdTable(header, rows),
    '',
    ...(anyThin(rows.map((r) => r.flatMap((c) => String(c).split(' / '))))
      ? [thinNote('samples in its trials (the median trial)'), '']
      : []),
    verdictLine,
    '',
  ];
}
