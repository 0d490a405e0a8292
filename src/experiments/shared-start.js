/**
 * The --start-at a step's producer and consumer share (an experiment step, a capacity step): far
 * enough ahead for both to start their workers. A child ready a second or more after it runs
 * nothing and says so (late-start.js); the pair is then started once more with the start twice as
 * far ahead, and every later pair of the run keeps that lead.
 */
import { isLateStart } from '../workloads/items/late-start.js';

/** Enough for -t writers to spawn on a quiet host. */
const FIRST_LEAD_MS = 2500;
/** A bound: a host that cannot start a process in this long cannot run the step either. */
const MAX_LEAD_MS = 40_000;

export class SharedStart {
  leadMs = FIRST_LEAD_MS;

  /** @returns {number} epoch ms of the next pair's start */
  at() {
    return Date.now() + this.leadMs;
  }

  /**
   * Whether a child of the pair missed the start; if so, the lead doubles (up to its bound).
   * @param {Array<{ code: number|null, lastLine: string }>} children
   */
  missed(children) {
    if (!children.some((c) => c.code === 1 && isLateStart(c.lastLine))) return false;
    if (this.leadMs >= MAX_LEAD_MS) return false;
    this.leadMs = Math.min(MAX_LEAD_MS, this.leadMs * 2);
    return true;
  }
}
