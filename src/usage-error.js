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
  const echo = got === undefined ? '' : ` (got ${typeof got === 'string' ? shown(got) : printable(String(got))})`;
  return new UsageError(`${flag} must be ${accepted}${echo}`);
}

/**
 * A value quoted back in an error line: JSON-quoted, with every control character escaped
 * (JSON leaves DEL and the C1 range as they are, and a terminal acts on them).
 * @param {string} s
 */
export function shown(s) {
  return printable(JSON.stringify(s));
}

/**
 * A line safe to print: control characters (an escape sequence in a name, a stray CR) become
 * \xNN, so what is echoed is what was typed, and the terminal does not act on it.
 * @param {string} s
 */
export function printable(s) {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: they are escaped
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * yargs .fail() handler: one line on stderr, exit 2.
 * @param {string} prog e.g. 'rqbench produce'
 */
export function failHandler(prog) {
  return (msg, err) => {
    let line = printable((err?.message || msg || 'invalid arguments').split('\n')[0]);
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
