// The parts of reading through a dead replica that need no server (issue 26, point 4): where
// each slot is read once replicas are failed or set aside (read-table.js), what a request lost
// mid-reply still owes (fetch-bytes.js), the log of dropped connections (conn-drops.js), and when
// a silent node is given up on (reply-watch.js).
// test/integration/replica-faults.test.js does it all on a real cluster; here a replica dies mid-reply, on cue.
import { expect, it } from 'vitest';
import { readTable } from '../../src/transports/read-table.js';
import { unanswered } from '../../src/workloads/items/fetch-bytes.js';
import { DropLog } from '../../src/transports/conn-drops.js';
import { BytesReads } from '../../src/workloads/items/fetch-bytes.js';
import { MemberList } from '../../src/workloads/items/member-list.js';
import { SeenIds } from '../../src/workloads/items/seen-ids.js';
import { payload } from '../../src/workloads/items/stores/payload.js';
import { keySlot } from '../../src/transports/slot.js';
import { ReplyWatch } from '../../src/transports/reply-watch.js';
import { RedisRouter } from '../../src/transports/redis-router.js';
import { setTimeout as sleep } from 'node:timers/promises';

const node = (addr, role, id, masterId, failed = false) => ({
  id,
  addr,
  host: '127.0.0.1',
  port: Number(addr.split(':')[1]),
  role,
  masterId,
  failed,
  shard: 0,
  slots: [],
});
// two shards: A with replicas a1 and a2, B with replica b1; slots 0-1 on A, 2-3 on B
const NODES = [
  node('h:1', 'master', 'A'),
  node('h:2', 'master', 'B'),
  node('h:11', 'replica', 'a1', 'A'),
  node('h:12', 'replica', 'a2', 'A'),
  node('h:21', 'replica', 'b1', 'B'),
];
const MASTERS = ['h:1', 'h:1', 'h:2', 'h:2'];
const table = (o) => readTable({ masterTable: MASTERS, nodes: NODES, readFrom: 'replica', spread: 0, down: new Map(), ...o });

it("replicas read their masters' slots; one set aside or failed is replaced by another replica, else the master, and that is a stand-in", () => {
  expect(table({})).toEqual({ table: ['h:11', 'h:11', 'h:21', 'h:21'], standIns: new Set() });
  expect(table({ spread: 1 }).table).toEqual(['h:12', 'h:12', 'h:21', 'h:21']);
  const aside = table({
    down: new Map([
      ['h:11', 0],
      ['h:21', 0],
    ]),
  });
  expect(aside).toEqual({ table: ['h:12', 'h:12', 'h:2', 'h:2'], standIns: new Set(['h:12', 'h:2']) });
  // the cluster flags it failed: the same, whoever noticed first
  const failed = readTable({
    masterTable: MASTERS,
    nodes: NODES.map((n) => (n.addr === 'h:21' ? { ...n, failed: true } : n)),
    readFrom: 'replica',
    spread: 0,
    down: new Map(),
  });
  expect(failed).toEqual({ table: ['h:11', 'h:11', 'h:2', 'h:2'], standIns: new Set(['h:2']) });
  // a reader whose own replica is up is no fallback, even when another reader's is down
  expect(table({ spread: 1, down: new Map([['h:11', 0]]) }).standIns).toEqual(new Set());
  // reads from masters, or a master without replicas: never a stand-in
  expect(table({ readFrom: 'master', down: new Map([['h:11', 0]]) })).toEqual({ table: MASTERS, standIns: new Set() });
  const bare = readTable({
    masterTable: MASTERS,
    nodes: NODES.filter((n) => n.role === 'master'),
    readFrom: 'replica',
    spread: 0,
    down: new Map(),
  });
  expect(bare).toEqual({ table: MASTERS, standIns: new Set() });
});

it('a request lost mid-reply owes the runs after the last element scanned, and the rest of that one', () => {
  const runs = [
    { slot: 1, from: 0, to: 3 },
    { slot: 2, from: 3, to: 5 },
    { slot: 3, from: 5, to: 9 },
  ];
  expect(unanswered(runs, { reply: -1, index: -1 }), 'nothing came back').toEqual(runs);
  expect(unanswered(runs, { reply: 0, index: 0 })).toEqual([{ slot: 1, from: 1, to: 3 }, runs[1], runs[2]]);
  expect(unanswered(runs, { reply: 0, index: 2 }), 'run 0 whole').toEqual([runs[1], runs[2]]);
  expect(unanswered(runs, { reply: 1, index: Infinity }), 'run 1 an error reply: followed apart').toEqual([runs[2]]);
  expect(unanswered(runs, { reply: 2, index: 1 })).toEqual([{ slot: 3, from: 7, to: 9 }]);
  expect(unanswered(runs, { reply: 2, index: 3 }), 'all in: the loss came after').toEqual([]);
});

it("a node's drop lasts from its first connection closed to the last one open again, told once it has been over a while", () => {
  const log = new DropLog();
  log.dropped('h:11', 'pipe', 1000);
  log.dropped('h:11', 'bytes', 1001);
  log.reconnected('h:11', 'pipe', 1004);
  log.reconnected('h:12', 'pipe', 1005); // never dropped: nothing
  expect(log.take(false, 1010)).toEqual({ events: [{ atMs: 1000, text: 'connection to h:11 dropped' }], drops: [] });
  log.reconnected('h:11', 'bytes', 1012);
  // the pipe closes again a moment after the byte reads came back (a reconnect beat the next close): the same drop
  log.dropped('h:11', 'pipe', 1013);
  expect(log.take(false, 1100), 'not over yet').toEqual({ events: [], drops: [] });
  log.reconnected('h:11', 'pipe', 1015);
  log.dropped('h:21', 'pipe', 1100);
  expect(log.take(false, 1200), 'over for less than the hold').toEqual({
    events: [{ atMs: 1100, text: 'connection to h:21 dropped' }],
    drops: [],
  });
  expect(log.take(false, 1300)).toEqual({
    events: [{ atMs: 1015, text: 'reconnected to h:11 after 15 ms' }],
    drops: [{ node: 'h:11', atMs: 1000, reconnectMs: 15 }],
  });
  // the run ends with h:21 still out of reach
  expect(log.take(true, 1400)).toEqual({ events: [], drops: [{ node: 'h:21', atMs: 1100, reconnectMs: null }] });
});

/**
 * A node answering MGETs from the item keys in the request (the value of item:<id> is payload(id)),
 * or, given `dieAfter`, scanning that many elements and then losing its connection.
 */
function fakeNode(addr, dieAfter = Infinity) {
  return {
    closed: false,
    asked: 0,
    request(buf, replies, visitor) {
      this.asked++;
      const parts = buf.toString('latin1').split('\r\n');
      let scanned = 0;
      let reply = -1;
      let index = 0;
      for (let i = 0; i < parts.length; i++) {
        if (parts[i] === 'MGET') {
          reply++;
          index = 0;
          continue;
        }
        if (!parts[i].startsWith('item:')) continue;
        if (scanned++ === dieAfter) {
          this.closed = true;
          return Promise.reject(new Error(`connection to ${addr} closed`));
        }
        const v = payload(Number(parts[i].split(':').at(-1)), 32);
        visitor.item(v, 0, v.length, reply, index++);
      }
      return Promise.resolve();
    },
  };
}

it('a replica that dies mid-reply: the rest of its MGETs go to the master, and no value is counted twice or missed', async () => {
  const keys = Array.from({ length: 400 }, (_, i) => `item:${i + 1}`);
  const replica = fakeNode('h:11', 150);
  const master = fakeNode('h:1');
  let asideAt = null;
  const router = {
    conn: { cluster: true },
    readFrom: 'replica',
    watchDrops: false,
    standIns: new Set(),
    fallbacks: 0,
    addrFor: () => (asideAt === null ? 'h:11' : 'h:1'),
    countRead(a) {
      if (a === 'h:1') this.fallbacks++;
      return a;
    },
    fallBack(addr, e) {
      if (addr !== 'h:11' || !/^connection /.test(e.message)) return false;
      asideAt = addr;
      return true;
    },
    // the router's own resend rule, over this fallBack
    readAgain: RedisRouter.prototype.readAgain,
  };
  const reads = new BytesReads(/** @type {any} */ (router));
  reads.conns.set('h:11', Promise.resolve(/** @type {any} */ (replica)));
  reads.conns.set('h:1', Promise.resolve(/** @type {any} */ (master)));
  const list = new MemberList();
  for (const k of keys) list.add(Buffer.from(k), 0, k.length);
  const seen = new SeenIds();
  seen.next();
  const counts = await reads.mget(list, seen);
  expect(counts).toEqual({ fetched: 400, missing: 0, mismatched: 0, duplicates: 0 });
  expect([replica.asked, master.asked, router.fallbacks]).toEqual([1, 1, 1]);
  // spread over many slots: the replica died part way through one of its MGETs
  expect(new Set(keys.map(keySlot)).size).toBeGreaterThan(100);
});

it('a node is given up on after a silence while it owes a reply, not after a long reply it keeps sending', async () => {
  // wide enough that a loaded CI machine's late timers do not read as a silence
  const MS = 250;
  let owed = true;
  const fired = [];
  const w = new ReplyWatch(
    MS,
    () => owed,
    (silent) => fired.push(silent),
  );
  w.sent(false);
  // a reply streaming for twice the timeout, a chunk every 25 ms: heard all along
  for (let i = 0; i < 20; i++) {
    await sleep(25);
    w.heard();
  }
  expect(fired, 'a long reply is not a silence').toEqual([]);
  // then nothing: given up on once, after about MS
  await sleep(MS * 2);
  expect(fired.length).toBe(1);
  expect(fired[0]).toBeGreaterThanOrEqual(MS);
  // nothing owed: a quiet connection is not a silent node
  const idle = [];
  const quiet = new ReplyWatch(
    MS,
    () => owed,
    (s) => idle.push(s),
  );
  quiet.sent(false);
  owed = false;
  await sleep(MS * 1.5);
  expect(idle).toEqual([]);
  // stopped (the connection closed): never again
  owed = true;
  quiet.sent(false);
  quiet.stop();
  await sleep(MS * 1.5);
  expect(idle).toEqual([]);
  w.stop();
});
