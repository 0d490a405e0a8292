/**
 * Runs laid end to end on one time axis: each run (an experiment step) starts where the one
 * before it ended, so a sequence of steps reads like one long CloudWatch chart.
 */
import { cellValue as num } from '../../runs/common/timeline-rows.js';

/** @typedef {import('./run-data.js').RunData} RunData */

/**
 * @typedef {object} Step
 * @property {RunData} run
 * @property {string} label unique within the sequence
 * @property {number} start seconds on the shared axis
 * @property {number} end
 */

/**
 * @typedef {object} ChartEvent
 * @property {number} x seconds on the shared axis
 * @property {string} text as in the timeline's events column, e.g. "3:failover started"
 */

/**
 * @typedef {object} Sequence
 * @property {Step[]} steps
 * @property {ChartEvent[]} events
 * @property {number} total seconds from the first step's start to the last one's end
 */

/**
 * @param {RunData[]} runs in order
 * @param {string[]} [stepLabels] one per run; default: each run directory's name
 * @returns {Sequence}
 */
export function layOut(runs, stepLabels = []) {
  /** @type {Step[]} */
  const steps = [];
  /** @type {ChartEvent[]} */
  const events = [];
  const seen = new Map();
  let start = 0;
  for (const [i, run] of runs.entries()) {
    // Labels name the series of the distribution chart, so they must be unique.
    const wanted = stepLabels[i] || run.name;
    const n = (seen.get(wanted) ?? 0) + 1;
    seen.set(wanted, n);
    steps.push({ run, label: n > 1 ? `${wanted} (${n})` : wanted, start, end: start + run.seconds });
    for (const row of run.rows) {
      if (row.events) events.push({ x: start + (num(row.second) ?? 0), text: /** @type {string} a text column */ (row.events) });
    }
    start += run.seconds;
  }
  return { steps, events, total: start };
}

/**
 * One point per row and value, on the shared axis; rows without a value are left out.
 * @param {Sequence} seq
 * @param {(step: Step, row: Record<string, number|string|null>) => Array<{ series: string, value: number|null } & Record<string, unknown>>} pick
 * @returns {Array<{ x: number, step: string, series: string, value: number } & Record<string, unknown>>}
 */
export function points(seq, pick) {
  const out = [];
  for (const step of seq.steps) {
    for (const row of step.run.rows) {
      const x = step.start + (num(row.second) ?? 0);
      for (const p of pick(step, row)) {
        if (p.value !== null && Number.isFinite(p.value)) out.push({ ...p, x, step: step.label, value: /** @type {number} */ (p.value) });
      }
    }
  }
  return out;
}
