/**
 * Bad input ends in one line naming the flag and what it accepts, exit code 2, and nothing
 * written: every check runs before a connection is made or a directory created.
 */
export class UsageError extends Error {}

/**
 * @param {string} flag e.g. '-q' or '--ns'
 * @param {string} accepted e.g. 'an integer >= 1'
 * @param {unknown} [got]
 */
export function bad(flag, accepted, got) {
  const shown = got === undefined ? '' : ` (got ${typeof got === 'string' ? JSON.stringify(got) : String(got)})`;
  return new UsageError(`${flag} must be ${accepted}${shown}`);
}

/**
 * yargs .fail() handler: one line on stderr, exit 2.
 * @param {string} prog e.g. 'rqbench produce'
 */
export function failHandler(prog) {
  return (msg, err) => {
    let line = (err?.message || msg || 'invalid arguments').split('\n')[0];
    line = line.replace(/^Unknown arguments?: (.*)$/, (_m, names) => `unknown flag ${names.split(', ').map((n) => (n.length === 1 ? `-${n}` : `--${n}`)).join(', ')} (see --help for the accepted flags)`);
    line = line.replace(/^Not enough arguments following: (\S+)/, (_m, n) => `${n.length === 1 ? `-${n}` : `--${n}`} needs a value`);
    process.stderr.write(`${prog}: ${line}\n`);
    process.exit(2);
  };
}

/** Integer check helper. */
export function intIn(v, flag, min, max = Number.MAX_SAFE_INTEGER) {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw bad(flag, max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`, v);
  }
}
