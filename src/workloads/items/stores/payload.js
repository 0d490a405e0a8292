/**
 * Item payloads: every byte written (the seed left bytes uninitialised) and the id readable
 * from the value itself, so a reader can check that the value it fetched is the item it asked for.
 * Layout: ASCII decimal id, ':', then a filler that depends on the id.
 */

export const MIN_VALUE_SIZE = 16;

/**
 * @param {number} id
 * @param {number} size bytes, >= MIN_VALUE_SIZE
 * @returns {Buffer}
 */
export function payload(id, size) {
  const head = `${id}:`;
  if (size < head.length) throw new RangeError(`value size ${size} cannot hold id ${id}`);
  const buf = Buffer.allocUnsafe(size);
  buf.write(head, 0, 'latin1');
  for (let i = head.length; i < size; i++) buf[i] = 97 + ((id + i) % 26); // a..z
  return buf;
}

/**
 * The id a payload carries, or NaN when it is not one of ours.
 * @param {Buffer|string} value
 */
export function payloadId(value) {
  const s = typeof value === 'string' ? value : value.toString('latin1', 0, 24);
  const colon = s.indexOf(':');
  if (colon < 1) return NaN;
  const id = Number(s.slice(0, colon));
  return Number.isInteger(id) ? id : NaN;
}
