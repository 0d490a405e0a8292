/**
 * How a command ends: summary on stdout (markdown, or JSON with --json), run directory on stderr,
 * exit code; then, with --metrics-port, the endpoint lingers with the final values (the summary
 * is out first: nobody waits for it).
 */
import { UsageError, printable } from '../usage-error.js';
import { redactString } from '../record/redact.js';
import { setExitCode, writeErr, writeOut } from '../command-io.js';

/**
 * @param {() => Promise<{ dir: string, summary: object, md: string, exitCode: number, failure?: string, linger?: () => Promise<void> }>} run
 * @param {Record<string, any>} a parsed flags (json, quiet)
 * @param {string} prog for error lines
 */
export async function reportRun(run, a, prog) {
  try {
    const { dir, summary, md, exitCode, failure, linger } = await run();
    if (a.json) writeOut(`${JSON.stringify(summary, null, 2)}\n`);
    else if (!a.quiet) writeOut(`${md}\n`);
    if (!a.quiet) writeErr(`run directory: ${dir}\n`);
    // a run that measured but could not keep its files says so last, in one line
    if (failure) writeErr(`${prog}: ${printable(redactString(failure))}\n`);
    setExitCode(exitCode);
    await linger?.();
  } catch (e) {
    fail(prog, e);
  }
}

/**
 * How a command that only prints ends (report, compare): its text on stdout and exit 0 (or the
 * exit code it gives with its text: report's 1 for a run that stopped before its end), or one
 * line on stderr.
 * @param {string} prog for error lines
 * @param {() => string|{ text: string, exitCode: number }} make the text
 */
export function printOutput(prog, make) {
  try {
    const made = make();
    const { text, exitCode } = typeof made === 'string' ? { text: made, exitCode: 0 } : made;
    writeOut(text);
    setExitCode(exitCode);
  } catch (e) {
    fail(prog, e);
  }
}

/**
 * One line on stderr; exit 2 for bad input, the error's own code or 1 otherwise.
 * @param {string} prog
 * @param {Error & { exitCode?: number }} e
 */
function fail(prog, e) {
  writeErr(`${prog}: ${printable(redactString(String(e.message).split('\n')[0]))}\n`);
  setExitCode(e instanceof UsageError ? 2 : (e.exitCode ?? 1));
}
