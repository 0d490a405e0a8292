/**
 * Cluster slot of a key: CRC16 (XMODEM) of the key, or of its {hash tag}, mod 16384. Works on
 * the string's char codes so the consumer's hot path allocates nothing per key; keys with
 * non-ASCII characters go to cluster-key-slot, which hashes their UTF-8 bytes.
 */
import calculateSlot from 'cluster-key-slot';

const TABLE = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let c = i << 8;
  for (let j = 0; j < 8; j++) c = c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1;
  TABLE[i] = c & 0xffff;
}

/**
 * @param {string} key
 * @returns {number} 0..16383
 */
export function keySlot(key) {
  let from = 0;
  let to = key.length;
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) {
      from = open + 1;
      to = close;
    }
  }
  let crc = 0;
  for (let i = from; i < to; i++) {
    const ch = key.charCodeAt(i);
    if (ch > 127) return calculateSlot(key);
    crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ ch) & 0xff];
  }
  return crc & 16383;
}

/**
 * Slot of the key held in buf[start, end) (the consumer's bytes path: keys never become strings).
 * Bytes are hashed as they are, which for UTF-8 keys is what Redis does.
 * @param {Buffer} buf
 * @param {number} start
 * @param {number} end
 * @returns {number} 0..16383
 */
export function slotOfBytes(buf, start, end) {
  let from = start;
  let to = end;
  // scan by hand: buf.indexOf would search past `end`, through the whole member list
  let open = start;
  while (open < end && buf[open] !== 123) open++; // '{'
  if (open < end) {
    let close = open + 1;
    while (close < end && buf[close] !== 125) close++; // '}'
    if (close < end && close > open + 1) {
      from = open + 1;
      to = close;
    }
  }
  let crc = 0;
  for (let i = from; i < to; i++) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ buf[i]) & 0xff];
  return crc & 16383;
}
