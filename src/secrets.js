/**
 * Secrets in text: a password inside a URL, given as a flag's value or in the environment's
 * variable, masked wherever a line quotes it; and the names of fields and flags that hold one.
 * The one redaction, below every room: command-io.js masks each message on stderr with it,
 * record/redact.js everything a run directory holds, and every check that quotes a value back
 * (a URL, a flag given twice) shows it through it.
 */

/**
 * A URL's user and password: everything between `scheme://` and the last `@` before the host
 * (a password may hold an `@` or a `:` as typed: WHATWG URLs, and so rqbench, take the last `@`).
 * Quotes and whitespace end it: a line may quote a URL, or hold a second one after it.
 */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^/\s?#"'<>]*)@/gi;

/**
 * A value as a line may quote it: in quotes, or up to whitespace or the closing quote of a
 * JSON-quoted word (an escaped quote inside it is part of the value).
 */
const VALUE = String.raw`("[^"]*"|'[^']*'|(?:\\"|[^\s"])+)`;

/**
 * A password given with its flag or variable: `--password=X` and `REDIS_PASSWORD=X` (X may start
 * with a `-`), and `--password X`, where X is not a flag (`--password --tls`), not help text's
 * column gap (several spaces), and not the words rqbench's own lines put after a flag's name
 * (`--password needs a value`, `--password was given 2 times`).
 */
const SECRET_VALUE = new RegExp(
  String.raw`(--password=|REDIS_PASSWORD=)${VALUE}|(--password )(?!-|(?:needs|was|is|must|takes|comes)\b)${VALUE}`,
  'g',
);

/**
 * Names of fields and flags that hold a secret (camelCase or kebab): their values are never shown.
 */
const SECRET_NAME = /pass(word)?|secret|token|credential|auth|private.?key|^key$|^ca$|^cert$/i;

/**
 * Whether a field or flag of this name holds a secret.
 * @param {string} name
 */
export function isSecretName(name) {
  return SECRET_NAME.test(name);
}

/**
 * Masks the password of every URL inside a string, and a password given as a flag or variable.
 * @param {string} s
 */
export function redactString(s) {
  return s
    .replace(URL_USERINFO, (_m, scheme, userinfo) => {
      const colon = userinfo.indexOf(':');
      return colon < 0 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:***@`;
    })
    .replace(SECRET_VALUE, (_m, flag, _v, spaced) => `${flag ?? spaced}***`);
}
