/**
 * The item id a value or a key carries, read without allocating: values start with `<id>:`
 * (stores/payload.js) and item keys end with `:<id>` (`item:<id>`, `item:{tag}:<id>`). Each has
 * a string form (parsed replies) and a bytes form (replies scanned in place).
 */

const COLON = 58;
const MAX_DIGITS = 16;

/** The id a payload starts with, or -1 when it is not one of ours. @param {string} v */
export function leadingId(v) {
  let id = 0;
  const n = Math.min(v.length, MAX_DIGITS + 1);
  for (let i = 0; i < n; i++) {
    const ch = v.charCodeAt(i);
    if (ch === COLON) return i > 0 ? id : -1;
    if (ch < 48 || ch > 57) return -1;
    id = id * 10 + (ch - 48);
  }
  return -1;
}

/** leadingId of the bytes buf[start, end). @param {Buffer} buf */
export function leadingIdOf(buf, start, end) {
  let id = 0;
  const n = Math.min(end, start + MAX_DIGITS + 1);
  for (let i = start; i < n; i++) {
    const ch = buf[i];
    if (ch === COLON) return i > start ? id : -1;
    if (ch < 48 || ch > 57) return -1;
    id = id * 10 + (ch - 48);
  }
  return -1;
}

/** The id at the end of a key, or -2 when there is none. @param {string} key */
export function trailingId(key) {
  let id = 0;
  let mul = 1;
  for (let i = key.length - 1; i >= 0; i--) {
    const ch = key.charCodeAt(i);
    if (ch === COLON) return mul > 1 ? id : -2;
    if (ch < 48 || ch > 57) return -2;
    id += (ch - 48) * mul;
    mul *= 10;
  }
  return -2;
}

/** trailingId of the bytes buf[start, end). @param {Buffer} buf */
export function trailingIdOf(buf, start, end) {
  let id = 0;
  let mul = 1;
  for (let i = end - 1; i >= start; i--) {
    const ch = buf[i];
    if (ch === COLON) return mul > 1 ? id : -2;
    if (ch < 48 || ch > 57) return -2;
    id += (ch - 48) * mul;
    mul *= 10;
  }
  return -2;
}
