// The kv workload's operations and mixes (issue 39, point 1): what each operation sends, the mix
// drawn in its proportions (chi-square, as the generators' tests), YCSB's presets as mixes that
// parse, several clients sharing one constant schedule without a gap or a double, and the batch
// encoder byte for byte against the one-command encoder. Pure logic: no server.
import chi2gof from '@stdlib/stats-chi2gof';
import { describe, expect, it } from 'vitest';
import { KV_OPS, OP_NAMES, YCSB, argsOf, keyNamer, opChooser, parseMix } from '../../src/workloads/kv/kv-ops.js';
import { parseKeyDist } from '../../src/workloads/kv/key-choosers.js';
import { arrivals } from '../../src/workloads/kv/arrivals.js';
import { streamOf } from '../../src/workloads/kv/random.js';
import { encodeBatch, encodeCommand } from '../../src/transports/resp.js';

describe('operations', () => {
  const v = Buffer.from('vvvv');
  it.each([
    ['get', 0, ['GET', 'kv:7']],
    ['set', 0, ['SET', 'kv:7', v]],
    ['set', 30, ['SET', 'kv:7', v, 'EX', '30']],
    ['insert', 30, ['SET', 'kv:7', v, 'EX', '30']],
    ['del', 0, ['DEL', 'kv:7']],
    ['incr', 0, ['INCR', 'kv:7:n']],
    ['hget', 0, ['HGET', 'kv:7:h', 'f']],
    ['hset', 0, ['HSET', 'kv:7:h', 'f', v]],
    ['zadd', 0, ['ZADD', 'kv:7:z', '42', 'm42']],
    ['zrange', 0, ['ZRANGE', 'kv:7:z', '0', '9']],
    ['rmw', 0, ['GET', 'kv:7']],
  ])('%s (ttl %d) sends %j', (op, ttl, args) => {
    expect(argsOf(op, keyNamer('kv:{n}')(7), v, ttl, 0.42)).toEqual(args);
  });

  it('every operation has its command in words (for --help), and the read ones are the ones a replica may serve', () => {
    for (const op of OP_NAMES) expect(KV_OPS[op].command).toMatch(/[A-Z]{3,}/);
    expect(OP_NAMES.filter((op) => KV_OPS[op].read)).toEqual(['get', 'hget', 'zrange']);
  });

  it('a key pattern names key i with {n} replaced, a hash tag kept', () => {
    expect(keyNamer('{kv}:{n}:x')(12)).toBe('{kv}:12:x');
  });
});

describe('mixes', () => {
  it('are drawn in their proportions (chi-square at 0.1 %), and a wrong proportion is rejected', () => {
    const mix = /** @type {import('../../src/workloads/kv/kv-ops.js').Mix} */ (parseMix('get:70,set:20,del:10'));
    const next = opChooser(mix, streamOf(3, 'ops'));
    const n = 200_000;
    const seen = { get: 0, set: 0, del: 0 };
    for (let i = 0; i < n; i++) seen[next()]++;
    const observed = [seen.get, seen.set, seen.del];
    expect(chi2gof(observed, [0.7, 0.2, 0.1]).pValue).toBeGreaterThan(0.001);
    expect(chi2gof(observed, [0.68, 0.22, 0.1]).pValue).toBeLessThan(1e-6);
  });

  it.each(['get:90,put:10', 'get', 'get:0', 'get:-1', 'get:1,get:2', ''])('"%s" is refused', (text) => {
    expect(typeof parseMix(text)).toBe('string');
  });

  it("YCSB's presets: each a mix and a key distribution that parse; A–F as YCSB defines their proportions", () => {
    const weights = Object.fromEntries(
      Object.entries(YCSB).map(([k, p]) => {
        expect(typeof parseKeyDist(p.keyDist)).toBe('object');
        const mix = /** @type {import('../../src/workloads/kv/kv-ops.js').Mix} */ (parseMix(p.mix));
        expect(Array.isArray(mix), p.mix).toBe(true);
        return [k, Object.fromEntries(mix.map((m) => [m.op, m.weight]))];
      }),
    );
    expect(weights).toEqual({
      'ycsb-a': { get: 50, set: 50 },
      'ycsb-b': { get: 95, set: 5 },
      'ycsb-c': { get: 100 },
      'ycsb-d': { get: 95, insert: 5 },
      'ycsb-e': { zrange: 95, zadd: 5 },
      'ycsb-f': { get: 50, rmw: 50 },
    });
  });
});

describe('clients sharing a constant schedule', () => {
  it('3 clients at 3,000 a second together: their arrivals interleave into one evenly spaced sequence', () => {
    const ramp = [{ t: 0, rate: 3000 }];
    const all = [1, 2, 3]
      .flatMap((a) => {
        const next = arrivals('constant', ramp, streamOf(1, 'gaps'), { every: 3, from: a - 1 });
        return Array.from({ length: 1000 }, next);
      })
      .sort((x, y) => x - y);
    all.forEach((t, k) => expect(t).toBeCloseTo(k / 3000, 9));
  });
});

describe('the batch encoder', () => {
  it('writes what the one-command encoder writes, back to back, and where each command starts', () => {
    const cmds = [
      ['GET', 'kv:1'],
      ['SET', 'kv:é', Buffer.alloc(300, 120), 'EX', '60'],
      ['ZRANGE', 'kv:1:z', '0', '9'],
    ];
    const { buf, starts } = encodeBatch(cmds);
    const one = cmds.map((c) => encodeCommand(c));
    expect(buf.equals(Buffer.concat(one))).toBe(true);
    expect(starts).toEqual([0, one[0].length, one[0].length + one[1].length, buf.length]);
  });
});
