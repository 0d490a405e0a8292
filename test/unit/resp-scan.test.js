import { describe, expect, it } from 'vitest';
import { ReplyScanner } from '../../src/transports/resp-scan.js';
import { keySlot, slotOfBytes } from '../../src/transports/slot.js';
import { leadingId, leadingIdOf, trailingId, trailingIdOf } from '../../src/workloads/items/item-ids.js';
import { MemberList } from '../../src/workloads/items/member-list.js';
import { slotRuns } from '../../src/workloads/items/slot-runs.js';

/** Scans `bytes` fed in the given chunk sizes, the way BytesConn does (leftover kept). */
function scanInChunks(bytes, replies, sizes) {
  const seen = [];
  const visitor = {
    item: (b, s, e, r, i) => seen.push(['item', r, i, b.toString('utf8', s, e)]),
    nil: (r, i) => seen.push(['nil', r, i]),
    error: (m, r) => seen.push(['error', r, m]),
    simple: (t, r) => seen.push(['simple', r, t]),
  };
  const sc = new ReplyScanner(replies, visitor);
  let rest = Buffer.alloc(0);
  let off = 0;
  let k = 0;
  while (off < bytes.length) {
    const n = sizes[k++ % sizes.length];
    const buf = Buffer.concat([rest, bytes.subarray(off, off + n)]);
    off += n;
    const pos = sc.scan(buf, 0);
    rest = buf.subarray(pos);
  }
  return { seen, done: sc.done, rest: rest.length };
}

const REPLIES = Buffer.from(
  '*3\r\n$6\r\nitem:1\r\n$-1\r\n$0\r\n\r\n' + // array with a nil and an empty string
    '-MOVED 3999 127.0.0.1:7002\r\n' +
    '+OK\r\n:42\r\n*0\r\n$5\r\nhello\r\n$-1\r\n' +
    '*2\r\n$12\r\n7:abc\r\ndefgh\r\n$3\r\n\u00e9x\r\n', // CRLF inside a value; UTF-8 bytes
);
const EXPECTED = [
  ['item', 0, 0, 'item:1'],
  ['nil', 0, 1],
  ['item', 0, 2, ''],
  ['error', 1, 'MOVED 3999 127.0.0.1:7002'],
  ['simple', 2, 'OK'],
  ['simple', 3, '42'],
  ['simple', 5, 'hello'],
  ['nil', 6, 0],
  ['item', 7, 0, '7:abc\r\ndefgh'],
  ['item', 7, 1, '\u00e9x'],
];

describe('ReplyScanner', () => {
  it('scans every reply kind when the bytes come in one piece', () => {
    expect(scanInChunks(REPLIES, 8, [REPLIES.length])).toEqual({ seen: EXPECTED, done: true, rest: 0 });
  });

  it('gives the same result whatever the chunk boundaries', () => {
    for (const sizes of [[1], [2], [3], [5, 1], [7, 2, 1], [13]]) {
      expect(scanInChunks(REPLIES, 8, sizes)).toEqual({ seen: EXPECTED, done: true, rest: 0 });
    }
  });

  it('stops after the replies it expects and leaves the rest', () => {
    const r = scanInChunks(Buffer.from('+OK\r\n+NEXT\r\n'), 1, [100]);
    expect(r).toEqual({ seen: [['simple', 0, 'OK']], done: true, rest: 7 });
  });

  it('rejects a reply type it does not understand', () => {
    expect(() => new ReplyScanner(1, {}).scan(Buffer.from('*1\r\n:5\r\n'), 0)).toThrow(/unexpected RESP element type ':'/);
    expect(() => new ReplyScanner(1, {}).scan(Buffer.from('%1\r\n'), 0)).toThrow(/unexpected RESP reply type '%'/);
  });
});

describe('ids and slots on bytes agree with the string forms', () => {
  const keys = ['item:1', 'item:300000', 'item:{latest-ids}:77', 'item:{}:5', 'a{b}c{d}', 'x', 'item:', '12:x', ':3', 'ünï:9'];
  it.each(keys)('%s', (k) => {
    const b = Buffer.from(`..${k}..`);
    const s = 2;
    const e = 2 + Buffer.byteLength(k);
    // eslint-disable-next-line no-control-regex -- an ASCII-only check: the range starts at \x00 on purpose
    if (/^[\x00-\x7f]*$/.test(k)) expect(slotOfBytes(b, s, e)).toBe(keySlot(k));
    expect(trailingIdOf(b, s, e)).toBe(trailingId(k));
    expect(leadingIdOf(b, s, e)).toBe(leadingId(k));
  });

  it('hashes UTF-8 keys as Redis does (cluster-key-slot)', () => {
    const k = 'ünï:9';
    expect(slotOfBytes(Buffer.from(k), 0, Buffer.byteLength(k))).toBe(keySlot(k));
  });
});

describe('MemberList and slotRuns', () => {
  it('keeps 100k members as bytes and groups them by slot', () => {
    const list = new MemberList();
    const src = Buffer.from('item:123456');
    for (let i = 0; i < 100_000; i++) list.add(src, 0, src.length);
    list.add(Buffer.from('xx{t}yy'), 2, 5);
    expect(list.count).toBe(100_001);
    expect(list.at(99_999)).toBe('item:123456');
    expect(list.at(100_000)).toBe('{t}');
    const { order, runs } = slotRuns(list.count, (i) => slotOfBytes(list.buf, list.start[i], list.end[i]), true);
    expect(runs.map((r) => [r.slot, r.to - r.from]).sort((a, b) => a[0] - b[0])).toEqual(
      [
        [keySlot('item:123456'), 100_000],
        [keySlot('t'), 1],
      ].sort((a, b) => a[0] - b[0]),
    );
    expect(new Set(order).size).toBe(list.count);
  });

  it('batches standalone keys in their own order', () => {
    const { order, runs } = slotRuns(2500, () => 0, false);
    expect(runs).toEqual([
      { slot: 0, from: 0, to: 1000 },
      { slot: 0, from: 1000, to: 2000 },
      { slot: 0, from: 2000, to: 2500 },
    ]);
    expect(order[2499]).toBe(2499);
  });
});
