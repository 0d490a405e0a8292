// `produce --client ioredis`: the seed's client behind rqbench's writers (issue 24, point 6). Its
// redirects are its own: a shard removed under the writes reproduces the seed's MOVED errors,
// counted as failed items, where rqbench's own writer follows every redirect.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandArgs } from '../../src/transports/ioredis-sender.js';
import { encodeCommand } from '../../src/transports/resp.js';
import { PRODUCER, describeRun, readRun, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

afterAll(() => removeTempDirs());

/** A producer run on its own throwaway local server (--local), read back. */
async function produceLocal(flags) {
  const out = tempDir('rqbench-ioredis-');
  const r = await runNode([PRODUCER, '--local', ...flags, '--out', out, '--json', '--quiet', '--warmup', '0'], { timeoutMs: 90_000 });
  return { ...r, ...readRun(out, r.stdout) };
}

describe('produce --client ioredis', () => {
  it('reads back the arguments of a RESP command as rqbench renders it', () => {
    const one = encodeCommand(['SETEX', 'item:35', '3', '35:abc']);
    const two = Buffer.concat([one, encodeCommand(['ZADD', 'latest-ids', '1732000000000', '35'])]);
    expect(commandArgs(two, 0, one.length)).toEqual(['SETEX', 'item:35', '3', '35:abc']);
    expect(commandArgs(two, one.length, two.length)).toEqual(['ZADD', 'latest-ids', '1732000000000', '35']);
    expect(() => commandArgs(two, 0, one.length - 1)).toThrow(/ends at/);
  });

  it('writes every item through ioredis on a standalone server, and says so in the summary', async () => {
    const r = await produceLocal(['-q', '2000', '-t', '2', '-d', '2', '--client', 'ioredis', '--verify', '--ttl', '120']);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.summary).toMatchObject({ sentBy: 'ioredis', totals: { failed: 0 }, verify: { lost: 0 } });
    // the load generator's own cost stays in summary.client, whoever sent the commands
    expect(r.summary.client.cpuPct).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8')).toMatch(
      /\*\*Load generator:\*\* CPU \d+(\.\d)?% of a core in total, up to \d+(\.\d)?% for one writer/,
    );
    expect(r.summary.totals.acked).toBe(4000);
  }, 60_000);

  it('a shard removed under the writes: ioredis fails them with MOVED (exit 1); nothing it acknowledged is lost', async () => {
    const r = await produceLocal([
      '--cluster',
      '-q',
      '4000',
      '-t',
      '2',
      '-c',
      '10',
      '-d',
      '6',
      '--ttl',
      '120',
      '--verify',
      '--at',
      '2:remove-shard',
      '--client',
      'ioredis',
    ]);
    expect(r.code, describeRun(r)).toBe(1);
    expect(r.summary.errorKinds.MOVED, JSON.stringify(r.summary.errorKinds)).toBeGreaterThan(0);
    expect(r.summary.totals.failed).toBeGreaterThan(0);
    expect(r.summary.outcome.problems.join(' ')).toMatch(/items failed/);
    expect(r.summary.verify).toMatchObject({ lost: 0, mismatched: 0 });
    // ioredis followed no redirect that rqbench's sender would have counted
    expect(r.summary.totals.moved).toBe(0);
  }, 90_000);
});
