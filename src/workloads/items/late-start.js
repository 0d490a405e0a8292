/**
 * A run that could not keep its shared --start-at: its workers were ready only after the planned
 * end, on a host too busy to start them in time. Sends past the end are dropped (writer.js), so
 * nothing would be measured: the run says so and exits 1 instead of reporting 0 items/s. A runner
 * that set the start (shared-start.js) knows the line and starts the pair again, further ahead.
 */

const MARK = 'after the shared start, past its planned end';

/**
 * @param {string} workers what the process runs: writers, readers, clients
 * @param {number} lateMs how long after the start they were ready
 * @param {number} plannedS warm-up + duration
 */
export function lateStartError(workers, lateMs, plannedS) {
  return Object.assign(
    new Error(
      `--start-at: the ${workers} were ready ${(lateMs / 1000).toFixed(1)} s ${MARK} (warm-up + --duration, ${plannedS} s): nothing was run; give a later --start-at`,
    ),
    { exitCode: 1 },
  );
}

/** @param {string|undefined} line a child's last line of stderr */
export const isLateStart = (line) => typeof line === 'string' && line.includes(MARK);
