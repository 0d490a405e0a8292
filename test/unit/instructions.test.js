// --count-instructions' arithmetic on recorded input: the callgrind out file's parser, the split
// of a profile by where its instructions went (a dump recorded from Debian's redis-server 7.0.15
// under callgrind: SETEX, ZADD and an EVALSHA whose script runs ZADD, with a replica attached),
// the per-item figures with the idle cost and rqbench's own sampler taken out, and --time-scale's
// clock and TTLs.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { callCost, callsTo, inclusive, parseCallgrind } from '../../src/local/callgrind-file.js';
import { CATEGORIES, commandName, splitProfile } from '../../src/local/callgrind-split.js';
import { parseProcIo } from '../../src/local/callgrind.js';
import { instructionsSummary } from '../../src/runs/common/instructions-summary.js';
import { instructionsMd } from '../../src/runs/common/instructions-md.js';
import { modelMs, timeScaled } from '../../src/harness/time-scale.js';
import { redisTtl, storeConfigOf } from '../../src/workloads/items/stores/keys.js';
import { addInstructions } from '../../src/workloads/items/counted-run.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/callgrind');
const recorded = (name) => parseCallgrind(zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, name))).toString('utf8'));

/** A hand-made file with what the format allows: compressed names, relative positions, calls, two positions. */
const SMALL = `# callgrind format
version: 1
positions: line
events: Ir
summary: 1000

fl=(1) x.c
fn=(1) main
0 10
cfn=(2) call
calls=1 0
0 900
fn=(2)
+2 50
* 20
cfn=(3) zaddCommand
calls=3 0
0 600
cfn=(4) propagatePendingCommands
calls=1 0
0 230
fn=(3)
-1 600
fn=(4)
0 230
fn=(5) serverCron
0 90
totals: 1000
`;

describe('callgrind out files', () => {
  it('reads self costs and the inclusive cost of each call, names given once and referred to by number', () => {
    const p = parseCallgrind(SMALL);
    expect(p.total).toBe(1000);
    expect(p.fns.get('call')?.self).toBe(70);
    expect(callCost(p, 'call', 'zaddCommand')).toBe(600);
    expect(inclusive(p, 'main')).toBe(910);
    expect(inclusive(p, 'call')).toBe(900);
    expect(callsTo(p, 'zaddCommand')).toBe(3);
  });

  it('splits a hand-made profile: the command call() dispatched, propagation apart, call() itself the rest', () => {
    const s = splitProfile(parseCallgrind(SMALL));
    expect(s).toMatchObject({ ZADD: 600, replicas: 230, cron: 90, other: 80 });
    expect(Object.values(s).reduce((a, b) => a + b, 0)).toBe(1000);
  });

  it('names commands as Redis does', () => {
    expect(commandName('zaddCommand')).toBe('ZADD');
    expect(commandName('evalShaCommand')).toBe('EVALSHA');
    expect(commandName('zaddGenericCommand')).toBe('ZADDGENERIC');
    expect(commandName('hllSparseSet')).toBe(null);
  });

  it('splits a recorded Redis 7.0 profile into parts that add up to its total, each counted once', () => {
    const p = recorded('redis-7.0-setex-zadd-evalsha.out.gz');
    expect(p.total).toBe(33_101_772);
    const s = splitProfile(p);
    const sum = Object.values(s).reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - p.total)).toBeLessThan(1);
    for (const k of ['ZADD', 'SETEX', 'EVALSHA', ...CATEGORIES]) expect(s[k], k).toBeGreaterThan(0);
    // the script's own ZADDs ran in call() inside call() (callgrind's call'2): they are EVALSHA's
    const nested = callCost(p, "call'2", 'zaddCommand');
    expect(nested).toBeGreaterThan(0);
    // the top-level ZADDs' own cost, less what the expiry and propagation markers inside them took
    expect(s.ZADD).toBeLessThanOrEqual(callCost(p, 'call', 'zaddCommand'));
    expect(s.ZADD).toBeGreaterThan(0.9 * callCost(p, 'call', 'zaddCommand'));
    expect(s.EVALSHA).toBeGreaterThan(nested);
    // propagation: the replica's feed is in replicas, wherever it was called from
    expect(s.replicas).toBeGreaterThanOrEqual(inclusive(p, 'replicationFeedSlaves'));
  });

  it('puts an idle Redis in its cron', () => {
    const p = recorded('redis-7.0-idle.out.gz');
    const s = splitProfile(p);
    expect(s.cron / p.total).toBeGreaterThan(0.9);
    // about 2 s of idle at hz 10
    expect(callsTo(p, 'serverCron')).toBeGreaterThanOrEqual(15);
    expect(callsTo(p, 'serverCron')).toBeLessThanOrEqual(30);
  });

  it('reads /proc/<pid>/io', () => {
    const io = parseProcIo('rchar: 107809\nwchar: 15430\nsyscr: 6500\nsyscw: 6411\nread_bytes: 36864\n');
    expect(io).toEqual({ syscr: 6500, syscw: 6411, rchar: 107809, wchar: 15430 });
  });
});

/** A node's counts: `idle` over 2 s, the window over 10 s. */
const node = (addr, role, shard, { idleIr = 2_000_000, ir = 25_000_000, info = 500_000 } = {}) => ({
  addr,
  role,
  shard,
  pid: 1,
  seeds: 'fixed',
  idle: { wallMs: 2000, ir: idleIr, cronRuns: 20, split: { cron: idleIr }, io: { syscr: 20, syscw: 10, rchar: 2000, wchar: 1000 } },
  window: {
    wallMs: 10_000,
    cronRuns: 100,
    ir,
    split: { read: 5_000_000, ZADD: 8_000_000, cron: 10_000_000, INFO: info, other: ir - 23_000_000 - info },
    io: { syscr: 1100, syscw: 550, rchar: 210_000, wchar: 105_000 },
  },
});

describe('instructions per item', () => {
  it('takes the idle rate over the window and the sampler out, per node and per role', () => {
    const s = instructionsSummary({
      nodes: [node('m1', 'master', 1), node('m2', 'master', 2), node('r1', 'replica', 1, { ir: 24_000_000 })],
      items: 1000,
      timeScale: 50,
    });
    const m1 = s.nodes[0];
    expect(m1.idleIr).toBe(10_000_000); // 2 M in 2 s, over 10 s
    expect(m1.samplerIr).toBe(500_000);
    expect(m1.irPerItem).toBe(14_500); // (25 M - 10 M - 0.5 M) / 1000
    expect(m1.split).toEqual({ read: 5000, ZADD: 8000, cron: 0, other: 1500 });
    const splitSum = Object.values(m1.split).reduce((a, b) => a + (b ?? 0), 0);
    expect(splitSum).toBe(m1.irPerItem);
    expect(m1.syscalls).toEqual({ readPerItem: 1, writePerItem: 0.5 });
    expect(m1.bytes).toEqual({ readPerItem: 200, writePerItem: 100 });
    expect(s.roles.master?.irPerItem).toBe(29_000);
    expect(s.roles.replica?.irPerItem).toBe(13_500);
    expect(s).toMatchObject({ timeScale: 50, items: 1000, seeds: 'fixed', idleSeconds: 2, windowSeconds: 10, errors: [] });
  });

  it("scales the idle cost by the cron's runs, not by wall time, when both counts have them", () => {
    const late = node('m1', 'master', 1);
    /** @type {any} */ (late.window).cronRuns = 90; // a busy loop ran its cron late: 9 M of idle, not 10
    const s = instructionsSummary({ nodes: [late], items: 1000 });
    expect(s.nodes[0].idleIr).toBe(9_000_000);
    expect(s.nodes[0].irPerItem).toBe(15_500);
  });

  it('says which nodes were not counted and leaves them out', () => {
    const broken = { ...node('m2', 'master', 2), window: null, error: 'window: no new callgrind dump' };
    const s = instructionsSummary({ nodes: [node('m1', 'master', 1), broken], items: 1000 });
    expect(s.nodes.map((n) => n.addr)).toEqual(['m1']);
    expect(s.errors).toEqual(['m2: window: no new callgrind dump']);
  });

  it('renders a section with a row per role and node, commands as columns', () => {
    const s = instructionsSummary({ nodes: [node('m1', 'master', 1), node('r1', 'replica', 1)], items: 1000, timeScale: 50 });
    const md = instructionsMd(s, 'item acknowledged').join('\n');
    expect(md).toContain('## Instructions per item');
    expect(md).toMatch(/\| all masters \| 25,000,000 \| 10,000,000 \| 500,000 \| 14500 \|/);
    expect(md).toMatch(/\| node \| read\+parse \| ZADD \| feed replicas \| expiry \| cron \| write \| other \|/);
    expect(md).toContain('m1 (master, shard 1)');
  });

  it('counts the items of the window only, and states the time scale', () => {
    const rows = [0, 1, 2, 3].map((index) => ({ index, counters: { acked: 100 * (index + 1) } }));
    const summary = {};
    const md = addInstructions({
      summary,
      md: '# run\n',
      counted: [node('m1', 'master', 1)],
      rows: /** @type {any} */ (rows),
      warmupS: 1,
      endS: 3,
      counter: 'acked',
      perWhat: 'item acknowledged',
      timeScale: 10,
    });
    expect(/** @type {any} */ (summary).instructions.items).toBe(500);
    expect(/** @type {any} */ (summary).timeScale).toBe(10);
    expect(md).toContain('**Time scale 10:**');
  });
});

describe('--time-scale', () => {
  it("multiplies the schedule's times and keeps the flags as given", () => {
    const a = timeScaled({ period: 1000, duration: 10, warmup: 2, ttl: 30, quantity: 300, timeScale: 50 });
    expect(a).toMatchObject({ period: 50_000, duration: 500, warmup: 100, ttl: 30, undilated: { period: 1000, duration: 10, warmup: 2 } });
    const same = { period: 1000, duration: 10, warmup: 2, timeScale: 1 };
    expect(timeScaled(same)).toBe(same);
  });

  it("runs the model's clock K times slower, the same in every process, in 13-digit milliseconds", () => {
    const t = Date.UTC(2026, 10, 28, 12);
    expect(modelMs(t, 1)).toBe(t);
    expect(modelMs(t + 50_000, 50) - modelMs(t, 50)).toBeCloseTo(1000, 6);
    expect(String(Math.floor(modelMs(t, 1000))).length).toBe(13);
  });

  it('lengthens the TTLs Redis counts down and keeps the items live within the TTL', () => {
    const plain = storeConfigOf({ ttl: 30, quantity: 300, period: 1000 });
    const scaled = storeConfigOf(timeScaled({ ttl: 30, quantity: 300, period: 1000, duration: 10, warmup: 2, timeScale: 50 }));
    expect(scaled.listMax).toBe(plain.listMax);
    expect(scaled.ttl).toBe(30);
    expect(redisTtl(scaled.ttl, scaled)).toBe(1500);
    expect(redisTtl(plain.ttl, plain)).toBe(30);
  });
});
