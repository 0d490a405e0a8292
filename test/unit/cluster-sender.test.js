// One cluster transport (issue 13, point 2): every reply kind the policy knows, driven on purpose
// through a fake router and fake connections that answer as a script says. Pure logic: the real
// servers are in the producer, load and cluster-changes tests.
import { afterEach, describe, expect, it, vi } from 'vitest';
import RedisParser from 'redis-parser';
import { ClusterSender } from '../../src/transports/cluster-sender.js';
import { UNOWNED, classify, decide } from '../../src/transports/cluster-policy.js';
import { encodeCommand } from '../../src/transports/resp.js';
import { retryDelayMs, settings } from '../../src/settings.js';

/**
 * A connection that parses what it is sent and answers each command as `answer` says: a value,
 * or an Error (an error reply). `writes` keeps every write as a list of commands.
 */
class FakePipe {
  constructor(addr, answer) {
    this.addr = addr;
    this.answer = answer;
    this.writes = [];
  }

  send(buf, seg) {
    const cmds = [];
    const parser = new RedisParser({ returnReply: (r) => cmds.push(r.map(String)), returnError: () => {} });
    parser.execute(buf);
    this.writes.push(cmds);
    seg.got = 0;
    setImmediate(() => {
      const now = 1;
      let ok = 0;
      cmds.forEach((cmd, i) => {
        const v = this.answer(cmd, this.addr);
        seg.got++;
        if (v instanceof Error) seg.error?.(seg, i, v, now);
        else {
          ok++;
          seg.value?.(seg, i, v);
        }
      });
      if (ok) seg.progress?.(seg, ok, now);
      seg.done?.(seg, now);
    });
    return true;
  }
}

/** Slots 0–99 on a:1, the rest on b:2, as the router first sees it; `answer` per node. */
function setup(answer, { ready = ['a:1', 'b:2', 'c:3'] } = {}) {
  const pipes = new Map(['a:1', 'b:2', 'c:3'].map((addr) => [addr, new FakePipe(addr, answer)]));
  const table = new Map();
  const router = {
    addrFor: (slot) => table.get(slot) ?? (slot < 100 ? 'a:1' : 'b:2'),
    ready: (addr) => (ready.includes(addr) ? pipes.get(addr) : undefined),
    pipe: vi.fn(async (addr) => {
      if (!addr) throw new Error(UNOWNED);
      if (!pipes.has(addr)) throw new Error(`cannot connect to ${addr}: ECONNREFUSED`);
      return pipes.get(addr);
    }),
    moved: vi.fn((slot, addr) => table.set(slot, addr)),
    refreshSoon: vi.fn(),
    onOpen: vi.fn(async () => {}),
  };
  const tally = {};
  return { pipes, router, tally, sender: new ClusterSender(router, tally), table };
}

/** A batch of SETs of keys k0… with slots given; resolves when done, with what it heard. */
function run(sender, addr, slots) {
  const cmds = slots.map((_, i) => encodeCommand(['SET', `k${i}`, `v${i}`]));
  const starts = [0];
  for (const c of cmds) starts.push(starts.at(-1) + c.length);
  const heard = { ok: 0, values: new Map(), failed: [], done: 0 };
  return new Promise((resolve) => {
    sender.send(addr, {
      n: cmds.length,
      buf: Buffer.concat(cmds),
      starts,
      slotOf: (i) => slots[i],
      ok: (k) => {
        heard.ok += k;
      },
      value: (i, v) => heard.values.set(i, String(v)),
      fail: (i, err) => heard.failed.push([i, err.message]),
      done: () => {
        heard.done++;
        resolve(heard);
      },
    });
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the policy', () => {
  it('classifies every reply kind it handles, and nothing else', () => {
    expect(classify('MOVED 3999 127.0.0.1:7002')).toEqual({ kind: 'moved', slot: 3999, addr: '127.0.0.1:7002' });
    expect(classify('ASK 12 10.0.0.5:6380')).toEqual({ kind: 'ask', slot: 12, addr: '10.0.0.5:6380' });
    for (const k of ['TRYAGAIN', 'CLUSTERDOWN', 'LOADING', 'MASTERDOWN', 'READONLY', 'NOSCRIPT'])
      expect(classify(`${k} something`).kind).toBe(k.toLowerCase());
    expect(classify(UNOWNED).kind).toBe('unowned');
    expect(classify('connection to 127.0.0.1:7000 closed').kind).toBe('connection');
    expect(classify('cannot connect to 127.0.0.1:7000: ECONNREFUSED').kind).toBe('connection');
    expect(classify('WRONGTYPE Operation against a key holding the wrong kind of value').kind).toBe(null);
    expect(classify('ERR unknown command').kind).toBe(null);
  });
  it('retries with the shared backoff, up to settings.maxRedirects times, then fails', () => {
    expect(decide('TRYAGAIN x', 0)).toMatchObject({ action: 'retry', delayMs: settings.retryBaseMs });
    expect(decide('TRYAGAIN x', 3)).toMatchObject({ action: 'retry', delayMs: retryDelayMs(3) });
    expect(decide('TRYAGAIN x', 10).delayMs).toBe(settings.retryMaxMs);
    expect(decide('TRYAGAIN x', settings.maxRedirects - 1).action).toBe('retry');
    expect(decide('TRYAGAIN x', settings.maxRedirects).action).toBe('fail');
    expect(decide('MOVED 1 a:1', settings.maxRedirects).action).toBe('fail');
    expect(decide('WRONGTYPE x', 0).action).toBe('fail');
  });
});

describe('the sender', () => {
  it('answers: every command counted once, values by index, done once, nothing tallied', async () => {
    const { sender, tally, pipes } = setup(() => 'OK');
    const h = await run(sender, 'a:1', [1, 2, 3]);
    expect(h).toMatchObject({ ok: 3, failed: [], done: 1 });
    expect([...h.values]).toEqual([
      [0, 'OK'],
      [1, 'OK'],
      [2, 'OK'],
    ]);
    expect(pipes.get('a:1').writes).toHaveLength(1);
    expect(tally).toEqual({});
  });

  it('MOVED: that command alone goes to the new owner at once, and the router learns the slot', async () => {
    const { sender, tally, pipes, router } = setup((cmd, addr) => (cmd[1] === 'k1' && addr === 'a:1' ? new Error('MOVED 7 c:3') : 'OK'));
    const h = await run(sender, 'a:1', [5, 7, 9]);
    expect(h).toMatchObject({ ok: 3, failed: [], done: 1 });
    expect(router.moved).toHaveBeenCalledWith(7, 'c:3');
    expect(pipes.get('c:3').writes).toEqual([[['SET', 'k1', 'v1']]]);
    expect(tally).toEqual({ moved: 1 });
    expect(router.refreshSoon).not.toHaveBeenCalled();
  });

  it('ASK: ASKING and the command in one write to the importing node; the ASKING reply is not an answer; the slot is not moved', async () => {
    const { sender, tally, pipes, router } = setup((cmd, addr) => (cmd[1] === 'k0' && addr === 'a:1' ? new Error('ASK 5 c:3') : 'OK'));
    const h = await run(sender, 'a:1', [5, 6]);
    expect(h).toMatchObject({ ok: 2, failed: [], done: 1 });
    expect(pipes.get('c:3').writes).toEqual([[['ASKING'], ['SET', 'k0', 'v0']]]);
    expect([...h.values].sort()).toEqual([
      [0, 'OK'],
      [1, 'OK'],
    ]);
    expect(router.moved).not.toHaveBeenCalled();
    expect(tally).toEqual({ ask: 1 });
  });

  it("ASKING refused: the command's own reply still counts", async () => {
    const { sender } = setup((cmd, addr) => {
      if (cmd[0] === 'ASKING') return new Error('ERR no');
      return cmd[1] === 'k0' && addr === 'a:1' ? new Error('ASK 5 c:3') : 'OK';
    });
    expect(await run(sender, 'a:1', [5])).toMatchObject({ ok: 1, failed: [], done: 1 });
  });

  it.each([
    ['TRYAGAIN Multiple keys request during rehashing of slot', { retries: 1, tryagain: 1 }],
    ['CLUSTERDOWN The cluster is down', { retries: 1, clusterdown: 1 }],
    ['LOADING Redis is loading the dataset in memory', { retries: 1 }],
    ['MASTERDOWN Link with MASTER is down', { retries: 1 }],
    ["READONLY You can't write against a read only replica.", { retries: 1 }],
    ['connection to a:1 closed', { retries: 1, connRetries: 1 }],
  ])('%s: waits the first backoff, reads the cluster again, resends where the slot lives then', async (reply, counted) => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    let first = true;
    const { sender, tally, pipes, router, table } = setup((cmd, addr) => {
      if (cmd[1] === 'k0' && addr === 'a:1' && first) {
        first = false;
        return new Error(reply);
      }
      return 'OK';
    });
    const heard = run(sender, 'a:1', [5, 6]);
    await new Promise((r) => setImmediate(r));
    // the cluster moved the slot meanwhile: the retry follows the router, not the old node
    table.set(5, 'c:3');
    expect(pipes.get('c:3').writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(settings.retryBaseMs);
    const h = await heard;
    expect(h).toMatchObject({ ok: 2, failed: [], done: 1 });
    expect(pipes.get('c:3').writes).toEqual([[['SET', 'k0', 'v0']]]);
    expect(router.refreshSoon).toHaveBeenCalled();
    expect(tally).toEqual(counted);
  });

  it('a slot with no known owner (its master failed) and a refused connection are retried like CLUSTERDOWN', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const { sender, tally, router, table, pipes } = setup(() => 'OK', { ready: [] });
    table.set(5, undefined);
    table.set(6, 'z:9');
    const heard = run(sender, undefined, [5]);
    const other = run(sender, 'z:9', [6]);
    await new Promise((r) => setImmediate(r));
    table.set(5, 'b:2');
    table.set(6, 'b:2');
    await vi.advanceTimersByTimeAsync(settings.retryBaseMs);
    expect(await heard).toMatchObject({ ok: 1, done: 1 });
    expect(await other).toMatchObject({ ok: 1, done: 1 });
    expect(tally).toEqual({ retries: 2, clusterdown: 1, connRetries: 1 });
    expect(router.pipe).toHaveBeenCalledTimes(4);
    expect(pipes.get('b:2').writes).toHaveLength(2);
  });

  it('NOSCRIPT: the scripts are loaded again on that node, then the command is resent', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    let first = true;
    const { sender, router, tally } = setup(() => {
      if (first) {
        first = false;
        return new Error('NOSCRIPT No matching script. Please use EVAL.');
      }
      return 'OK';
    });
    const heard = run(sender, 'a:1', [5]);
    await new Promise((r) => setImmediate(r));
    await vi.advanceTimersByTimeAsync(settings.retryBaseMs);
    expect(await heard).toMatchObject({ ok: 1, done: 1 });
    expect(router.onOpen).toHaveBeenCalledTimes(1);
    expect(tally).toEqual({ retries: 1 });
  });

  it('another error reply fails that command once, and only it', async () => {
    const { sender, tally } = setup((cmd) =>
      cmd[1] === 'k1' ? new Error('WRONGTYPE Operation against a key holding the wrong kind of value') : 'OK',
    );
    const h = await run(sender, 'a:1', [5, 6, 7]);
    expect(h).toMatchObject({ ok: 2, failed: [[1, 'WRONGTYPE Operation against a key holding the wrong kind of value']], done: 1 });
    expect(tally).toEqual({});
  });

  it('a command that keeps failing is sent again settings.maxRedirects times (the whole budget), then fails once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const { sender, tally, pipes } = setup(() => new Error('CLUSTERDOWN The cluster is down'));
    const heard = run(sender, 'a:1', [5]);
    let budget = 0;
    for (let i = 0; i < settings.maxRedirects; i++) budget += retryDelayMs(i);
    await new Promise((r) => setImmediate(r));
    await vi.advanceTimersByTimeAsync(budget);
    const h = await heard;
    expect(h.failed).toEqual([[0, 'CLUSTERDOWN The cluster is down']]);
    expect(h.done).toBe(1);
    expect(tally.retries).toBe(settings.maxRedirects);
    expect(pipes.get('a:1').writes).toHaveLength(settings.maxRedirects + 1);
    expect(budget).toBe(settings.unreachableStopMs);
  });
});
