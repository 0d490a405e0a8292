/**
 * Secrets never reach a run directory, a log line or an error message: anything named like a
 * secret is dropped and credentials inside URLs are masked.
 */
import { isSecretName, redactString } from '../secrets.js';

export { redactString };

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
      if (isSecretName(k)) {
        if (v !== undefined && v !== null && v !== false && v !== '') out[k] = '***';
        continue;
      }
      out[k] = redact(v);
    }
    return /** @type {T} */ (out);
  }
  return value;
}
