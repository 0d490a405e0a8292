/**
 * The delta file: one record per line, `key<TAB>value<LF>`, every line exactly `recordSize`
 * bytes. Newline-terminated records let a reader that starts at any byte resync at the next
 * record; a fixed size lets it also know each record's index (offset / recordSize), so the
 * readers' ranges can be checked to tile the file exactly. Values are printable ASCII, never a
 * TAB or LF, so no escaping is needed.
 */
import fs from 'node:fs';
import { openOwn } from './own-file.js';

/** Placeholder in --key-pattern replaced by the record's index (0-based). */
export const INDEX_MARK = '{n}';

/**
 * The placeholder, plain or zero-padded to W digits (`{n:12}`, redis-benchmark's key:000000001234
 * shape): a key's length decides where Redis's allocator puts it, which changes Redis's cost per key.
 */
const INDEX_RE = /\{n(?::([1-9]\d?))?\}/;

/**
 * The pattern around its one placeholder, or null when it has none or more than one.
 * @param {string} pattern
 * @returns {{ head: string, tail: string, width: number }|null}
 */
export function patternParts(pattern) {
  const m = INDEX_RE.exec(pattern);
  if (!m) return null;
  const tail = pattern.slice(m.index + m[0].length);
  if (INDEX_RE.test(tail)) return null;
  return { head: pattern.slice(0, m.index), tail, width: Number(m[1] ?? 0) };
}

/** 62 printable characters; a value is a window into their repetition, shifted per record. */
const ALPHABET = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789');

/**
 * Key of record `n`.
 * @param {string} pattern e.g. 'delta:{n}'
 * @param {number} n
 */
export function keyOf(pattern, n) {
  const p = patternParts(pattern);
  if (!p) return pattern;
  return `${p.head}${String(n).padStart(p.width, '0')}${p.tail}`;
}

/** Bytes a record leaves for its value: the line minus key, TAB and LF. */
export function valueLength(pattern, n, recordSize) {
  return recordSize - Buffer.byteLength(keyOf(pattern, n)) - 2;
}

/** The value of record `n` (what a read-back compares against). */
export function valueOf(pattern, n, recordSize) {
  const len = valueLength(pattern, n, recordSize);
  const fill = fillFor(len);
  return fill.subarray(n % ALPHABET.length, (n % ALPHABET.length) + len);
}

const fills = new Map();
function fillFor(len) {
  let f = fills.get(len);
  if (!f) {
    f = Buffer.alloc(len + ALPHABET.length);
    for (let i = 0; i < f.length; i++) f[i] = ALPHABET[i % ALPHABET.length];
    fills.set(len, f);
  }
  return f;
}

/**
 * Writes `records` records to `file` in large buffers: one writeSync per 16 MB. An existing file is
 * replaced once the new one is whole; a failed write removes only what this call created (own-file.js).
 * @param {{ file: string, records: number, recordSize: number, keyPattern: string, onProgress?: (done: number) => void }} o
 * @returns {{ bytes: number, ms: number }}
 */
export function generateDeltaFile({ file, records, recordSize, keyPattern, onProgress }) {
  const t0 = performance.now();
  const perBuf = Math.max(1, Math.floor((16 << 20) / recordSize));
  const buf = Buffer.allocUnsafe(perBuf * recordSize);
  const { head, tail, width } = /** @type {{ head: string, tail: string, width: number }} checked by the command */ (
    patternParts(keyPattern)
  );
  const out = openOwn(file);
  const { fd } = out;
  try {
    let lastReport = t0;
    for (let n = 0; n < records;) {
      let pos = 0;
      const end = Math.min(records, n + perBuf);
      for (; n < end; n++) {
        // the key written piecewise: the pattern has one {n} (checked by the command)
        const start = pos;
        pos += buf.latin1Write(head, pos);
        pos += buf.latin1Write(String(n).padStart(width, '0'), pos);
        pos += buf.latin1Write(tail, pos);
        buf[pos++] = 9;
        const len = recordSize - (pos - start) - 1;
        const shift = n % ALPHABET.length;
        pos += fillFor(len).copy(buf, pos, shift, shift + len);
        buf[pos++] = 10;
      }
      // a nearly full disk takes part of a buffer without an error: the rest is written (or fails) next
      for (let done = 0; done < pos;) done += fs.writeSync(fd, buf, done, pos - done);
      if (onProgress && performance.now() - lastReport > 1000) {
        lastReport = performance.now();
        onProgress(n);
      }
    }
    out.commit();
  } catch (e) {
    out.abandon();
    throw e;
  }
  return { bytes: records * recordSize, ms: performance.now() - t0 };
}

/**
 * What a loader needs to know about a delta file before splitting it: its size, its record
 * size (the first line's length) and record count. Throws a plain Error naming what is wrong.
 * @param {string} file
 * @returns {{ size: number, recordSize: number, records: number }}
 */
export function inspectDeltaFile(file) {
  const size = fs.statSync(file).size;
  if (size === 0) throw new Error(`${file} is empty`);
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, 1 << 20));
    fs.readSync(fd, head, 0, head.length, 0);
    const nl = head.indexOf(10);
    const tab = head.indexOf(9);
    if (nl < 0 || tab < 0 || tab > nl) throw new Error(`${file} is not a delta file: its first line is not key<TAB>value`);
    const recordSize = nl + 1;
    if (size % recordSize !== 0)
      throw new Error(
        `${file} is not a delta file of fixed-size records: ${size} bytes is not a multiple of the first record's ${recordSize}`,
      );
    return { size, recordSize, records: size / recordSize };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Reads record `n` of a fixed-size delta file: key and value as strings.
 * @param {number} fd
 * @param {number} n
 * @param {number} recordSize
 */
export function readRecord(fd, n, recordSize) {
  const b = Buffer.alloc(recordSize);
  fs.readSync(fd, b, 0, recordSize, n * recordSize);
  const tab = b.indexOf(9);
  return { key: b.latin1Slice(0, tab), value: b.latin1Slice(tab + 1, recordSize - 1) };
}
