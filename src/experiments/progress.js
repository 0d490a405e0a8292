/**
 * Progress across trials on stderr: `[2/30] list (trial 1/6): 8 s … ETA 4:41`, then one line per
 * finished trial. The ETA is the trials' durations left plus the overhead (start, purge, summary)
 * seen so far per trial.
 */
import { short } from '../results/format.js';
import { kindOf } from './kinds/kinds.js';
import { hasEngine } from '../results/cpu-md.js';

/** Overhead per step before one has been measured: spawning, purging, summarizing. */
const FIRST_GUESS_OVERHEAD_S = 5;

/** How long a step should take, its own runs only (a search runs many). @param {import('./spec.js').Step} step */
const nominal = (step) => kindOf(step)?.nominalSeconds(step) ?? step.duration;

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
    // a step of another kind says what it runs in its length (a queue step always has its consumer)
    const own = !kindOf(step);
    const what = [trial, step.label !== step.name ? step.label : '', own && step.consumer ? '+ consumer' : '', step.at.length ? `at ${step.at.join(' ')}` : ''].filter(Boolean).join(', ');
    const length = kindOf(step)?.what(step) ?? `${step.duration} s`;
    this.log(`[${this.i}/${this.steps.length}] ${step.name}${what ? ` (${what})` : ''}: ${length} … ETA ${clock(eta)}`);
  }

  /**
   * @param {import('./spec.js').Step} step
   * @param {import('./layout.js').StepResult} r
   */
  end(step, r) {
    const took = (Date.now() - this.began) / 1000;
    this.overheads.push(Math.max(0, took - nominal(step)));
    const kind = kindOf(step);
    if (kind) {
      this.log(`[${this.i}/${this.steps.length}] ${step.name} ${r.complete ? 'done' : 'NOT complete'} in ${took.toFixed(1)} s: ${kind.figures(r)}`);
      return;
    }
    const p = r.producer;
    // the main thread's CPU (what saturates), and the whole process's when that is a different figure
    const processCpu = p?.cpu && hasEngine(p.cpu) ? ` (process ${p.cpu.process.master ?? '-'}%, ${p.cpu.process.replica ?? '-'}%)` : '';
    const figures = p
      ? `${short(p.achieved?.itemsPerSec)}/${short(p.target?.itemsPerSec)} items/s, master CPU ${p.cpu?.master ?? '-'}%, replica ${p.cpu?.replica ?? '-'}%${processCpu}`
      : 'no summary';
    this.log(`[${this.i}/${this.steps.length}] ${step.name} ${r.complete ? 'done' : 'NOT complete'} in ${took.toFixed(1)} s: ${figures}`);
  }
}

/** 83 → "1:23". */
export function clock(s) {
  const t = Math.round(s);
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
}
