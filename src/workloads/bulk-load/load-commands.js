/**
 * The commands a load sends, as raw RESP copied straight from the read buffer (no string per key
 * or value), for `--command`:
 *
 * - set:  one SET per record (SETEX with a TTL): the seed's way
 * - mset: one MSET per `batch` records of one slot: fewer commands, so less work for Redis per
 *         record (parsing, dispatch, reply, event-loop turns); MSET has no TTL
 * - eval: one EVALSHA per `batch` records of one slot, a script that SETs each key (with EX when
 *         there is a TTL): the TTL-keeping batched form Redis 7 offers (MSETEX came in Redis 8.4)
 *
 * A command never holds keys of two slots (MSET and a script's keys must share one on a cluster),
 * so on a cluster the records of a read batch are grouped by slot first; on a standalone server
 * every record is one slot. Each encoded batch says where each command starts (a retry resends
 * one), how many records it carries (a record counts as stored only on its own command's OK) and
 * its slot (where a retry goes).
 */
import { createHash } from 'node:crypto';
import { digits, writeInt } from '../../transports/resp.js';

export const LOAD_COMMANDS = ['set', 'mset', 'eval'];

/** The script `--command eval` calls: KEYS the keys, ARGV[1] the TTL (0: none), then the values. */
export const SET_SCRIPT =
  "local t = tonumber(ARGV[1]) for i = 1, #KEYS do if t > 0 then redis.call('SET', KEYS[i], ARGV[i + 1], 'EX', t) else redis.call('SET', KEYS[i], ARGV[i + 1]) end end return #KEYS";
export const SET_SCRIPT_SHA = createHash('sha1').update(SET_SCRIPT).digest('hex');

/** `$<len>\r\n<bytes>\r\n` of buf[from, to) at out[pos]; returns the new position. */
function bulkOf(out, pos, buf, from, to) {
  out[pos++] = 36; // '$'
  pos = writeInt(out, pos, to - from);
  out[pos++] = 13;
  out[pos++] = 10;
  pos += buf.copy(out, pos, from, to);
  out[pos++] = 13;
  out[pos++] = 10;
  return pos;
}

/** `*<n>\r\n` at out[pos]. */
function arrayOf(out, pos, n) {
  out[pos++] = 42; // '*'
  pos = writeInt(out, pos, n);
  out[pos++] = 13;
  out[pos++] = 10;
  return pos;
}

/**
 * @typedef {object} Encoded  one node's share of a read batch
 * @property {Buffer} out  the commands' bytes
 * @property {Buffer} base  the buffer `out` lies at the start of (alloc's, to be reused)
 * @property {Uint32Array} starts  where command i starts in out (count + 1 entries)
 * @property {Uint32Array} recs  records in command i
 * @property {Uint16Array} slots  command i's slot (0 on a standalone server)
 * @property {number} count  commands
 * @property {number} records
 */

/**
 * An encoder for one `--command`.
 * @param {{ command: string, ttl: number, batch: number }} o
 */
export function loadEncoder({ command, ttl, batch }) {
  const ttlText = Buffer.from(String(ttl));
  const per = command === 'set' ? 1 : batch;
  // command head: SET/SETEX, MSET, or EVALSHA sha numkeys
  const setHead = Buffer.from(ttl ? `*4\r\n$5\r\nSETEX\r\n` : '*3\r\n$3\r\nSET\r\n');
  const ttlBulk = Buffer.from(`$${ttlText.length}\r\n${ttlText}\r\n`);
  const msetName = Buffer.from('$4\r\nMSET\r\n');
  const evalName = Buffer.from(`$7\r\nEVALSHA\r\n$40\r\n${SET_SCRIPT_SHA}\r\n`);
  // per command at most: array header, name (and sha, numkeys, TTL)
  const headMax = 16 + evalName.length + 16 + ttlBulk.length;

  /**
   * Encodes records `idx[0..m)` of the batch (in that order: grouped by slot on a cluster).
   * @param {Buffer} buf the read buffer
   * @param {Int32Array} offs key start, key end, value start, value end per record
   * @param {Uint32Array} idx records to encode, in order
   * @param {number} m
   * @param {Uint16Array|null} slotOfRec each record's slot (cluster), or null (one slot: standalone)
   * @param {(bytes: number) => Buffer} alloc a buffer of at least `bytes`
   * @returns {Encoded}
   */
  function encode(buf, offs, idx, m, slotOfRec, alloc) {
    // an upper bound: every record's two bulks with 7-digit lengths, and a command head per
    // record (there are never more commands than records)
    let bytes = headMax;
    for (let j = 0; j < m; j++) {
      const o = idx[j] * 4;
      bytes += offs[o + 1] - offs[o] + offs[o + 3] - offs[o + 2] + 24 + headMax;
    }
    const out = alloc(bytes);
    const starts = new Uint32Array(m + 1);
    const recs = new Uint32Array(m);
    const slots = new Uint16Array(m);
    let pos = 0;
    let k = 0;
    for (let j = 0; j < m;) {
      // this command: up to `per` records of one slot
      const slot = slotOfRec ? slotOfRec[idx[j]] : 0;
      let end = j + 1;
      while (end < m && end - j < per && (!slotOfRec || slotOfRec[idx[end]] === slot)) end++;
      starts[k] = pos;
      recs[k] = end - j;
      slots[k] = slot;
      pos = encodeOne(out, pos, buf, offs, idx, j, end);
      k++;
      j = end;
    }
    starts[k] = pos;
    return { out: out.subarray(0, pos), base: out, starts, recs, slots, count: k, records: m };
  }

  /** One command of records idx[j..end) at out[pos]. */
  function encodeOne(out, pos, buf, offs, idx, j, end) {
    const n = end - j;
    if (command === 'set') {
      const o = idx[j] * 4;
      pos += setHead.copy(out, pos);
      pos = bulkOf(out, pos, buf, offs[o], offs[o + 1]);
      if (ttl) pos += ttlBulk.copy(out, pos);
      return bulkOf(out, pos, buf, offs[o + 2], offs[o + 3]);
    }
    if (command === 'mset') {
      pos = arrayOf(out, pos, 1 + 2 * n);
      pos += msetName.copy(out, pos);
      for (let i = j; i < end; i++) {
        const o = idx[i] * 4;
        pos = bulkOf(out, pos, buf, offs[o], offs[o + 1]);
        pos = bulkOf(out, pos, buf, offs[o + 2], offs[o + 3]);
      }
      return pos;
    }
    // EVALSHA sha n key… ttl value…
    pos = arrayOf(out, pos, 4 + 2 * n);
    pos += evalName.copy(out, pos);
    out[pos++] = 36;
    pos = writeInt(out, pos, digits(n));
    out[pos++] = 13;
    out[pos++] = 10;
    pos = writeInt(out, pos, n);
    out[pos++] = 13;
    out[pos++] = 10;
    for (let i = j; i < end; i++) {
      const o = idx[i] * 4;
      pos = bulkOf(out, pos, buf, offs[o], offs[o + 1]);
    }
    pos += ttlBulk.copy(out, pos);
    for (let i = j; i < end; i++) {
      const o = idx[i] * 4;
      pos = bulkOf(out, pos, buf, offs[o + 2], offs[o + 3]);
    }
    return pos;
  }

  return { encode, perCommand: per, script: command === 'eval' ? SET_SCRIPT : null };
}
