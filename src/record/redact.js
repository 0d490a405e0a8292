/**
 * Secrets never reach a run directory, a log line or an error message: anything named like a
 * secret is dropped and credentials inside URLs are masked.
 */
const SECRET_KEY = /pass(word)?|secret|token|credential|auth|private.?key|^key$|^ca$|^cert$/i;

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

/**
 * A deep copy without secret-looking fields, with URLs masked.
 * @template T
 * @param {T} value
 * @returns {T}
 */
export function redact(value) {
  if (typeof value === 'string') return /** @type {T} */ (redactString(value));
  if (Buffer.isBuffer(value)) return /** @type {T} */ ('<bytes>');
  if (Array.isArray(value)) return /** @type {T} */ (value.map(redact));
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_KEY.test(k)) {
        if (v !== undefined && v !== null && v !== false && v !== '') out[k] = '***';
        continue;
      }
      out[k] = redact(v);
    }
    return /** @type {T} */ (out);
  }
  return value;
}
