/**
 * Cost per item against a real Redis with a replica: what one item written costs each node in CPU,
 * bytes and memory, and where the bytes are. Two measurements that do not share code must agree:
 * used_memory's growth per live item, and MEMORY USAGE of the keys one item adds.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedis } from '../../src/local/local-redis.js';
import { rqbench } from '../helpers/in-process.js';

/** @type {import('../../src/local/local-redis.js').LocalRedis} */
let redis;
let out;

beforeAll(async () => {
  redis = await startRedis({ replicas: 1 });
  out = mkdtempSync(path.join(os.tmpdir(), 'rqbench-cost-'));
}, 60_000);

afterAll(async () => {
  await redis?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

/** One producer run on the shared server; its summary.json and summary.md. */
async function produce(name, more = []) {
  const dir = mkdtempSync(path.join(out, `${name}-`));
  const r = await rqbench([
    'produce',
    '--host',
    '127.0.0.1',
    '--port',
    String(redis.port),
    '-q',
    '5000',
    '-t',
    '1',
    '-c',
    '4',
    '-d',
    '4',
    '--warmup',
    '1',
    '--ttl',
    '60',
    '--value-size',
    '200',
    '--out',
    dir,
    '--quiet',
    ...more,
  ]);
  expect(r.code, r.stderr).toBe(0);
  const [run] = readdirSync(dir);
  return {
    s: JSON.parse(readFileSync(path.join(dir, run, 'summary.json'), 'utf8')),
    md: readFileSync(path.join(dir, run, 'summary.md'), 'utf8'),
  };
}

describe('cost per item written (standalone with a replica)', () => {
  /** @type {{ s: any, md: string }} */
  let first;
  beforeAll(async () => {
    first = await produce('empty');
  }, 60_000);

  it('divides by the items acknowledged in the window; the live items are the 5,000 ids every period writes again (TTL 60 s)', () => {
    const { cost, achieved } = first.s;
    expect(cost.per).toBe('item written');
    expect(cost.items).toBe(achieved.items);
    expect(cost.startedEmpty).toBe(true);
    // seconds 0–3 wrote 20,000 items, ids 1–5,000 each second
    expect(cost.liveItems).toBe(5_000);
  });

  it('gives each role CPU per item, and bytes per item that carry the 200-byte values', () => {
    const { master, replica } = first.s.cost.roles;
    expect(master.engineUs).toBeGreaterThan(0);
    expect(replica.engineUs).toBeGreaterThan(0);
    // every SETEX carries its value in and out of the master: at least the value, and not ten of them
    expect(master.netIn).toBeGreaterThan(200);
    expect(master.netIn).toBeLessThan(600);
    // the replication stream replays the writes: about what came in
    expect(master.replOut / master.netIn).toBeGreaterThan(0.7);
    expect(master.replOut / master.netIn).toBeLessThan(1.5);
    // what the master sent is what the replica read, but the two are sampled at different instants:
    // the stream's bytes of a few tens of ms (at 5,000 items/s, about 1 % of a 3 s window) fall on
    // either side of the window's edges
    expect(replica.replIn / master.replOut).toBeGreaterThan(0.95);
    expect(replica.replIn / master.replOut).toBeLessThan(1.05);
    // a replica has no client writing to it
    expect(replica.netIn).toBeLessThan(5);
  });

  it("agrees with MEMORY USAGE: used_memory's growth per live item is about the item key's bytes plus its share of the index", () => {
    const { cost } = first.s;
    const item = cost.keys.find((k) => k.shape === 'item:#');
    const index = cost.keys.find((k) => k.type === 'zset');
    expect(item).toMatchObject({ type: 'string', keys: 5_000, estimated: false });
    expect(index.keys).toBe(1);
    const fromKeys = item.bytesPerKey + index.bytesPerKey / cost.liveItems;
    expect(cost.roles.master.memory).toBeGreaterThan(fromKeys * 0.8);
    expect(cost.roles.master.memory).toBeLessThan(fromKeys * 1.5);
    // the replica holds the same data
    expect(cost.roles.replica.memory / cost.roles.master.memory).toBeGreaterThan(0.8);
    expect(cost.roles.replica.memory / cost.roles.master.memory).toBeLessThan(1.25);
  });

  it('shows it in summary.md: a row per role, and where the bytes are', () => {
    expect(first.md).toMatch(/\*\*Cost per item written\*\* \(over the window's 15,000 items; memory per item live/);
    expect(first.md).toMatch(/\| masters \| \d+\.\d\d \| \d+\.\d\d \| \d+\.\d \|/);
    expect(first.md).toMatch(/\| `item:#` \| string \| \w+ \| 5,000 \| \d+ \|/);
  });

  it('makes no memory figure on a server that already held keys, and says why', async () => {
    const second = await produce('held');
    expect(second.s.cost.startedEmpty).toBe(false);
    expect(second.s.cost.roles.master.memory).toBeNull();
    expect(second.s.cost.roles.master.engineUs).toBeGreaterThan(0);
    expect(second.md).toMatch(/the server held keys before the run/);
  }, 60_000);
});
