/**
 * Progress across trials on stderr: `[2/30] list (trial 1/6): 8 s … ETA 4:41`, then one line per
 * finished trial. The ETA is the trials' durations left plus the overhead (start, purge, summary)
 * seen so far per trial.
 */
import { stepKindOf } from './kinds/step-kinds.js';

/** Overhead per step before one has been measured: spawning, purging, summarizing. */
const FIRST_GUESS_OVERHEAD_S = 5;

/** How long a step should take, its own runs only (a search runs many). @param {import('./spec.js').Step} step */
const nominal = (step) => stepKindOf(step).nominalSeconds(step);

/** How long a spec's steps should take, with the overhead a step had before one was measured. @param {import('./spec.js').Step[]} steps */
export const specSeconds = (steps) => steps.reduce((s, x) => s + nominal(x) + FIRST_GUESS_OVERHEAD_S, 0);

export class Progress {
  /**
   * @param {import('./spec.js').Step[]} steps the steps that will run
   * @param {(line: string) => void} log
   */
  constructor(steps, log) {
    this.steps = steps;
    this.log = log;
    this.i = 0;
    this.overheads = [];
    this.began = 0;
  }

  /**
   * @param {import('./spec.js').Step} step
   * @param {string} [trial] which trial, e.g. "trial 2/6"
   */
  begin(step, trial = '') {
    this.i++;
    this.began = Date.now();
    const left = this.steps.slice(this.i - 1);
    const over = this.overheads.length ? this.overheads.reduce((a, b) => a + b, 0) / this.overheads.length : FIRST_GUESS_OVERHEAD_S;
    const eta = left.reduce((s, x) => s + nominal(x) + over, 0);
    const kind = stepKindOf(step);
    const what = [trial, step.label !== step.name ? step.label : '', ...(kind.details?.(step) ?? [])].filter(Boolean).join(', ');
    const length = kind.what(step);
    this.log(`[${this.i}/${this.steps.length}] ${step.name}${what ? ` (${what})` : ''}: ${length} … ETA ${clock(eta)}`);
  }

  /**
   * One more trial of this step than planned (a noisy trial run again): the count and the ETA take it in.
   * @param {import('./spec.js').Step} step
   */
  again(step) {
    this.steps.splice(this.i, 0, step);
  }

  /**
   * @param {import('./spec.js').Step} step
   * @param {import('./layout.js').StepResult} r
   */
  end(step, r) {
    const took = (Date.now() - this.began) / 1000;
    this.overheads.push(Math.max(0, took - nominal(step)));
    this.log(
      `[${this.i}/${this.steps.length}] ${step.name} ${r.complete ? 'done' : 'NOT complete'} in ${took.toFixed(1)} s: ${stepKindOf(step).figures(r)}`,
    );
  }
}

/** 83 → "1:23". */
export function clock(s) {
  const t = Math.round(s);
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
}
