/**
 * How a queue run ends, so its exit code tells the truth:
 *   0    the run did what was asked
 *   1    messages failed, went unanswered or were never sent (publisher); messages missing or
 *        malformed (consumer); the service unreachable beyond the bound; the run directory
 *        could not be written. The last two end with one line on stderr after the summary
 *        (reportRun prints `failure`).
 *   2    bad input (a UsageError, thrown before anything connects or is written)
 *   130 / 143  SIGINT / SIGTERM: the summary is written and marked interrupted
 */
import { saveSummary } from '../results/run-dir.js';

import { signalExitCode } from '../results/outcome.js';

export { placeholderSummary } from '../results/run-dir.js';
export { signalExitCode };

/**
 * Writes summary.json and summary.md (tried even after a failed write: space may be back) and
 * settles the exit code; a run that could not keep its files or lost its service ends with one
 * more line (reportRun prints it after the summary).
 * @param {object} p
 * @param {string} p.dir
 * @param {object} p.summary
 * @param {string} p.md
 * @param {boolean} p.ok the run did what was asked
 * @param {'SIGINT'|'SIGTERM'|false} p.interrupted
 * @param {string|null} p.unreachable the line the run was stopped with, when it was
 * @param {NodeJS.ErrnoException|null} p.writeError a write that failed during the run
 * @returns {{ dir: string, summary: object, md: string, exitCode: number, failure?: string }}
 */
export function endRun({ dir, summary, md, ok, interrupted, unreachable, writeError }) {
  const saved = saveSummary(dir, summary, md, writeError);
  const failure = saved.failure ?? (unreachable ? `${unreachable}; the run stopped, what it measured is in ${dir}` : undefined);
  const exitCode = interrupted ? signalExitCode(interrupted) : ok && !failure ? 0 : 1;
  return { dir, summary, md, exitCode, failure };
}
