/**
 * A bench's targets, kept: each check says met or missed where it is printed, and a bench whose
 * target was missed exits 1 (a script that prints FAIL and exits 0 reads as a pass in CI).
 */
let missed = 0;

/**
 * @param {boolean} ok
 * @param {[string, string]} [words] what a met and a missed target print
 * @returns {string}
 */
export function target(ok, [met, miss] = ['met', 'NOT met']) {
  if (!ok) {
    missed++;
    process.exitCode = 1;
  }
  return ok ? met : miss;
}

/** One closing line: how many targets were missed (exit 1), or that every one was met. */
export function targetsLine() {
  return missed ? `${missed} target${missed === 1 ? '' : 's'} missed: exit 1` : 'every target met';
}
