/**
 * A run that could not keep its shared --start-at: its workers were ready a second or more after
 * it, on a host too busy to start them in time. The seconds before it was ready would have no row
 * of their own while their sends went out late in a burst, so its rates would not be the
 * schedule's (it reported 0 items/s, or twice the target, with exit 0): the run says so and exits
 * 1 instead, and a runner that set the start (shared-start.js) knows the line and starts the pair
 * again, further ahead. Less than a second late, the first sends go out late, timed from when
 * they were due, and the run says so.
 */

/** Ready this long after the shared start or later, a run does not run. */
export const LATE_LIMIT_MS = 1000;
/** Under this, lateness is the clocks' and the first send's own: not worth a line. */
const SAY_FROM_MS = 100;

const MARK = 'after the shared start, too late to keep its schedule';

/**
 * What a process ready at `nowMs` does about a shared start at `startAtMs`.
 * @param {number|null|undefined} startAtMs
 * @param {number} nowMs
 * @returns {{ lateMs: number, refuse: boolean, say: boolean }}
 */
export function lateStart(startAtMs, nowMs) {
  const lateMs = startAtMs == null ? 0 : Math.max(0, nowMs - startAtMs);
  return { lateMs, refuse: lateMs >= LATE_LIMIT_MS, say: lateMs >= SAY_FROM_MS && lateMs < LATE_LIMIT_MS };
}

/**
 * @param {string} workers what the process runs: writers, readers, clients
 * @param {number} lateMs how long after the start they were ready
 */
export function lateStartError(workers, lateMs) {
  return Object.assign(
    new Error(
      `--start-at: the ${workers} were ready ${(lateMs / 1000).toFixed(1)} s ${MARK} (ready within ${LATE_LIMIT_MS / 1000} s of it, or not at all): nothing was run; give a later --start-at`,
    ),
    { exitCode: 1 },
  );
}

/** @param {string|undefined} line a child's last line of stderr */
export const isLateStart = (line) => typeof line === 'string' && line.includes(MARK);
