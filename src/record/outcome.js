/**
 * How a run ends, in one place: the exit code and the reasons it was not 0. Exit 0 means the run
 * did what was asked; 1 that it ran but something it was asked to do did not happen (items
 * failed or were lost, cycles failed, the read-back could not run, the target stopped answering,
 * the run directory could not be written); 2 is bad input (found before anything ran); 130 and
 * 143 an interrupt (SIGINT, SIGTERM), whatever else happened.
 */

/** @param {string} sig 'SIGINT' or 'SIGTERM' */
export const signalExitCode = (sig) => (sig === 'SIGTERM' ? 143 : 130);

/**
 * @param {{ interrupted: false|string, problems: string[] }} p
 * @returns {{ exitCode: number, problems: string[] }}
 */
export function outcome({ interrupted, problems }) {
  const exitCode = interrupted ? signalExitCode(interrupted) : problems.length ? 1 : 0;
  return { exitCode, problems };
}

/**
 * What went wrong in a run of workers, whatever they were doing.
 * @param {{ errors: string[], unreachable: null|{ silentS: number }, writeError: NodeJS.ErrnoException|null, notCluster?: string|null }} run
 *   notCluster: a cluster node spoken to as a standalone server (MOVED replies), in words
 * @param {string} dir
 * @returns {string[]}
 */
export function runProblems(run, dir) {
  const out = [];
  if (run.notCluster) out.push(run.notCluster);
  if (run.unreachable)
    out.push(`the target did not answer for ${run.unreachable.silentS} s (longer than the retry budget): the run stopped`);
  if (run.writeError) out.push(`the run directory ${dir} could not be written (${run.writeError.code}): the run stopped`);
  for (const e of run.errors) out.push(e);
  return out;
}
