/**
 * RESULTS.md's sections for an experiment of capacity steps: the seed's instance table answered
 * (max sustainable items/s, cost per 100k items/s, shards for the spec's forRate, the cheapest
 * choice), and each search's answer and projection. Pure but for reading the run directories.
 */
import path from 'node:path';
import { grouped, mdTable } from '../results/format.js';
import { instanceRows, instanceTableMd } from './capacity/cost-table.js';
import { capacityStepMetrics } from './step-metrics.js';
import { readJson } from './layout.js';

/**
 * @typedef {{ step: import('./spec.js').Step, r: import('./layout.js').StepResult|null }} StepRun
 */

/**
 * Every step's row of the instance table (null for a step without a complete search).
 * @param {import('./spec.js').Spec} spec
 * @param {StepRun[]} steps
 * @returns {Array<import('./capacity/cost-table.js').InstanceRow|null>}
 */
export function capacityRows(spec, steps) {
  const done = steps.filter((s) => s.r?.complete);
  const rows = instanceRows(done.map((s) => ({ label: s.step.label, doc: s.r.capacity })), { forRate: spec.forRate ?? undefined });
  return steps.map((s) => (s.r?.complete ? rows[done.indexOf(s)] : null));
}

/**
 * The check's metrics for each step.
 * @param {import('./spec.js').Spec} spec
 * @param {StepRun[]} steps
 * @returns {(s: StepRun) => Record<string, number|undefined>}
 */
export function capacityMetricsOf(spec, steps) {
  const rows = capacityRows(spec, steps);
  return (s) => capacityStepMetrics(s.r?.capacity, rows[steps.indexOf(s)]);
}

/**
 * The Results section.
 * @param {import('./spec.js').Spec} spec
 * @param {StepRun[]} steps
 * @returns {string[]}
 */
export function capacityResults(spec, steps) {
  const rows = capacityRows(spec, steps).filter(Boolean);
  const headroom = steps.find((s) => s.r?.complete)?.r.capacity.criteria?.headroom ?? 60;
  const searches = steps.map(({ step, r }) => {
    const c = r?.complete ? r.capacity : null;
    return [step.label, step.cpus ?? spec.topology.local?.cpus ?? '-', c ? c.answer : 'not run yet', c ? c.projectionLine.replace(/^projection: /, '') : '', c ? c.steps.length : ''];
  });
  const c0 = steps.find((s) => s.r?.complete)?.r.capacity;
  const held = c0 ? `Held means: achieved ≥ ${c0.criteria.minAchieved * 100}% of the target, nothing failed, p99 of a chunk from its intended start ≤ ${c0.criteria.sloP99Ms} ms, every node's engine below ${c0.criteria.engineCeiling}% of its CPU.` : '';
  return [
    rows.length ? instanceTableMd(rows, { forRate: spec.forRate ?? undefined, headroom }) : 'No search has completed yet.', '',
    '### Searches', '',
    mdTable(['Step', 'Cores per node', 'Answer', 'Projection', 'Runs'], searches), '',
    held, '',
    `Each search's steps, one row per run, are in its \`capacity.md\` (\`runs/<stamp>/<step>/*-capacity/\`).${spec.forRate ? ` Shards for ${grouped(spec.forRate)} items/s are sized at the headroom.` : ''}`, '',
  ];
}

/**
 * The host line's facts, from the first run of the first complete search.
 * @param {StepRun[]} steps
 * @returns {any|null} that run's manifest.json
 */
export function capacityManifest(steps) {
  const s = steps.find((x) => x.r?.complete);
  const first = s?.r.capacity.steps?.[0]?.dir;
  return s && first ? readJson(path.join(s.r.capacityDir, first, 'manifest.json')) : null;
}
