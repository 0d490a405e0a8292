/**
 * Progress across steps on stderr: `[2/5] list (8 s) … ETA 0:41`, then one line per finished step.
 * The ETA is the steps' durations left plus the overhead (start, purge, summary) seen so far per step.
 */
import { short } from '../results/format.js';
import { hasEngine } from '../results/cpu-md.js';

/** Overhead per step before one has been measured: spawning, purging, summarizing. */
const FIRST_GUESS_OVERHEAD_S = 5;
/** A capacity search's runs before one has been measured: a ramp of about five, a bisection of about four. */
const FIRST_GUESS_SEARCH_RUNS = 9;

/** How long a step should take, its own runs only: a search runs many. @param {import('./spec.js').Step} step */
const nominal = (step) => (step.kind === 'capacity' ? FIRST_GUESS_SEARCH_RUNS * (step.duration + FIRST_GUESS_OVERHEAD_S) : step.duration);

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

  /** @param {import('./spec.js').Step} step */
  begin(step) {
    this.i++;
    this.began = Date.now();
    const left = this.steps.slice(this.i - 1);
    const over = this.overheads.length ? this.overheads.reduce((a, b) => a + b, 0) / this.overheads.length : FIRST_GUESS_OVERHEAD_S;
    const eta = left.reduce((s, x) => s + nominal(x) + over, 0);
    const what = [step.label !== step.name ? step.label : '', step.consumer ? '+ consumer' : '', step.at.length ? `at ${step.at.join(' ')}` : ''].filter(Boolean).join(', ');
    const length = step.kind === 'capacity' ? `capacity search, runs of ${step.duration} s` : `${step.duration} s`;
    this.log(`[${this.i}/${this.steps.length}] ${step.name}${what ? ` (${what})` : ''}: ${length} … ETA ${clock(eta)}`);
  }

  /**
   * @param {import('./spec.js').Step} step
   * @param {import('./layout.js').StepResult} r
   */
  end(step, r) {
    const took = (Date.now() - this.began) / 1000;
    this.overheads.push(Math.max(0, took - nominal(step)));
    if (step.kind === 'capacity') {
      this.log(`[${this.i}/${this.steps.length}] ${step.name} ${r.complete ? 'done' : 'NOT complete'} in ${took.toFixed(1)} s: ${r.capacity?.answer ?? 'no capacity.json'}`);
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
