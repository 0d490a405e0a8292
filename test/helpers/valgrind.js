// Whether the tests that run Redis under Valgrind run here: where valgrind is installed, and
// always in CI (.ci/run installs it, so a missing one fails there instead of skipping).
import { execFileSync } from 'node:child_process';

/** The path of valgrind, or null. */
export const VALGRIND = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v valgrind'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
})();

/**
 * True when the Valgrind tests run; says SKIPPED on stderr otherwise.
 * @param {string} what the tests, as the skip line names them
 */
export function valgrindTestsRun(what) {
  const runs = !!VALGRIND || process.env.CI === 'true';
  if (!runs) process.stderr.write(`\nSKIPPED ${what}: valgrind is not installed (apt-get install valgrind)\n`);
  return runs;
}
