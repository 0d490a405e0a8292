/**
 * Secrets in text: a password inside a URL, given as a flag's value or in the environment's
 * variable, masked wherever a line quotes it. Below every room (command-io.js masks each message
 * on stderr with it; record/redact.js everything a run directory holds).
 */

/**
 * A password given as a flag's value or in the environment's variable, as a line may quote it:
 * `--password=X`, `--password X`, `REDIS_PASSWORD=X` (quoted or not). One space only before a
 * separate value: help text sets its columns apart with several.
 */
const SECRET_VALUE = /(--password=|--password |REDIS_PASSWORD=)(?!-)("[^"]*"|'[^']*'|[^\s"',;)]+)/g;

/**
 * Masks user:password in URLs inside a string, and a password given as a flag or variable.
 * @param {string} s
 */
export function redactString(s) {
  return s
    .replace(/([a-z][a-z0-9+.-]*:\/\/)([^@/\s:]*)(:[^@/\s]*)?@/gi, (_m, scheme, user, pass) => `${scheme}${user}${pass ? ':***' : ''}@`)
    .replace(SECRET_VALUE, '$1***');
}
