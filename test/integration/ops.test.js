// rqbench ops (issue 7, point 2): real servers and emulators, the seed's table, setup and
// teardown around every service even when an operation fails (bad input: test/unit/ops-flags.test.js).
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { startPubsub } from '../../src/local/pubsub-emulator.js';
import { describePubsub } from '../helpers/emulators.js';
import { findFreePorts } from '../../src/local/ports.js';
import { CLI, describeRun, readRun, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

let local;
let admin;

beforeAll(async () => {
  local = await startRedis({ password: 'ops-pass' });
  admin = new Redis({ host: local.host, port: local.port, password: 'ops-pass' });
  // an ACL user that may do everything but ZRANGEBYSCORE: that operation fails, the rest must not
  await admin.call('ACL', 'SETUSER', 'noread', 'on', '>noread-pass', '~*', '&*', '+@all', '-zrangebyscore');
}, 30_000);

afterAll(async () => {
  admin?.disconnect();
  await local?.stop();
  removeTempDirs();
});

async function ops(extra) {
  const out = tempDir('rqbench-ops-');
  const r = await runNode(
    [CLI, 'ops', '--host', '127.0.0.1', '--port', String(local.port), '--warmup', '0.2', '-d', '0.5', '--out', out, '--json', ...extra],
    { timeoutMs: 30_000 },
  );
  return { ...r, ...readRun(out, r.stdout) };
}

const OPS = ['GET', 'MGET', 'ZRANGEBYSCORE', 'SET', 'ZADD'];

describe('rqbench ops', () => {
  it("times each operation and prints the seed's table, then leaves no key behind", async () => {
    const r = await ops(['--password', 'ops-pass']);
    expect(r.code, describeRun(r)).toBe(0);
    const [redis] = r.summary.services;
    expect(redis.ops.map((o) => o.name)).toEqual(OPS);
    for (const o of redis.ops) {
      const s = o.stats;
      expect(s.count, o.name).toBeGreaterThan(50);
      expect(s.min <= s.p50 && s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.max, JSON.stringify(s)).toBe(true);
      expect(o.connectMs).toBeGreaterThan(0);
      expect(o.firstMs).toBeGreaterThan(0);
    }
    expect(await admin.keys('{rqbench:ops}*'), 'teardown removed every key').toEqual([]);

    const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
    const table = md
      .split('\n')
      .filter((l) => l.startsWith('|'))
      .slice(0, 2 + 1 + OPS.length);
    expect(table[0]).toMatch(/^\| +\| Overhead \(ms\) \| +n \| +min \| +avg \| +med \| +p90 \| +p99 \| +max \|$/);
    expect(table[1]).toMatch(/^\| :---  *\|( +---: \|){8}$/);
    expect(table[2]).toMatch(/^\| \*\*Redis\*\* +\|( +\|){8}$/);
    OPS.forEach((name, i) => expect(table[3 + i]).toMatch(new RegExp(`^\\|   —${name} +\\| +\\| +\\d+ \\|( +\\d+\\.\\d{3}( ⚠)? \\|){6}$`)));
    // every line padded to the same width: the columns line up as in the seed
    expect(new Set(table.map((l) => l.length)).size).toBe(1);
    expect(md).toMatch(/\| +\| connect \(ms\) \| first call \(ms\) \| warm med \(ms\) \|/);
    for (const f of ['manifest.json', 'summary.json', 'summary.md', 'redis-get.hlog', 'redis-zadd.hlog'])
      expect(fs.readdirSync(r.dir)).toContain(f);
    expect(fs.readFileSync(path.join(r.dir, 'manifest.json'), 'utf8')).not.toContain('ops-pass');
  }, 40_000);

  it('an operation that fails is reported, the others are measured, and teardown still runs (exit 1)', async () => {
    const r = await ops(['--user', 'noread', '--password', 'noread-pass']);
    expect(r.code, describeRun(r)).toBe(1);
    const [redis] = r.summary.services;
    const denied = redis.ops.find((o) => o.name === 'ZRANGEBYSCORE');
    expect(denied.error).toMatch(/NOPERM/);
    expect(redis.ops.filter((o) => o.stats).map((o) => o.name)).toEqual(['GET', 'MGET', 'SET', 'ZADD']);
    expect(await admin.keys('{rqbench:ops}*'), 'teardown removed every key').toEqual([]);
    expect(r.stdout + r.stderr).not.toContain('noread-pass');
  }, 40_000);

  it("SQS and SNS on the emulator: the seed's table with a row per operation, and the queue and topic deleted after", async () => {
    const sqs = await startSqs();
    try {
      const r = await ops(['--only', 'sqs,sns', '--endpoint', sqs.endpoint]);
      expect(r.code, describeRun(r)).toBe(0);
      expect(r.summary.services.map((s) => [s.service, s.ops.map((o) => o.name)])).toEqual([
        ['SQS', ['ReceiveMessage', 'SendMessage']],
        ['SNS', ['GetTopicAttributes', 'Publish']],
      ]);
      for (const s of r.summary.services) for (const o of s.ops) expect(o.stats.count, `${s.service} ${o.name}`).toBeGreaterThan(5);
      const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
      expect(md).toMatch(/^\| \*\*SQS\*\* +\|/m);
      expect(md).toMatch(/^\| {3}—GetTopicAttributes +\| +\| +\d+ \|/m);
      // teardown: nothing of the run's own is left on the emulator
      const { SQSClient, ListQueuesCommand } = await import('@aws-sdk/client-sqs');
      const { SNSClient, ListTopicsCommand } = await import('@aws-sdk/client-sns');
      const { awsClientConfig } = await import('../../src/transports/aws.js');
      const cfg = awsClientConfig({ endpoint: sqs.endpoint });
      const queues = (await new SQSClient(cfg).send(new ListQueuesCommand({}))).QueueUrls ?? [];
      const topics = (await new SNSClient(cfg).send(new ListTopicsCommand({}))).Topics ?? [];
      expect(queues.filter((q) => q.includes('rqbench-ops'))).toEqual([]);
      expect(topics.filter((t) => t.TopicArn.includes('rqbench-ops'))).toEqual([]);
    } finally {
      await sqs.stop();
    }
  }, 60_000);

  it("--local --cluster: every operation, MGET included, on the master that owns the keys' slot", async () => {
    const out = tempDir('rqbench-ops-cluster-');
    const r0 = await runNode([CLI, 'ops', '--local', '--cluster', '--warmup', '0.2', '-d', '0.5', '--out', out, '--json'], {
      timeoutMs: 40_000,
    });
    const r = { ...r0, ...readRun(out, r0.stdout) };
    expect(r.code, describeRun(r)).toBe(0);
    const [redis] = r.summary.services;
    expect(redis.ops.map((o) => [o.name, o.error ?? null, o.stats.count > 20])).toEqual(OPS.map((name) => [name, null, true]));
    expect(r.summary.targets.redis).toMatch(/cluster/);
  }, 45_000);

  it('--local starts only what the chosen services need: the SQS/SNS emulator for --only sqs, no Redis', async () => {
    const out = tempDir('rqbench-ops-local-');
    const r0 = await runNode([CLI, 'ops', '--local', '--only', 'sqs', '--warmup', '0.2', '-d', '0.5', '--out', out, '--json'], {
      timeoutMs: 30_000,
    });
    const r = { ...r0, ...readRun(out, r0.stdout) };
    expect(r.code, describeRun(r)).toBe(0);
    expect(Object.keys(r.summary.targets)).toEqual(['sqs']);
    expect(r.summary.targets.sqs).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(r.stderr).toMatch(/started a local SQS\/SNS emulator/);
    expect(r.stderr).not.toMatch(/Redis/);
  }, 30_000);

  it('Pub/Sub on an endpoint nobody listens on: a one-line error within the 10 s call timeout, exit 1', async () => {
    const [port] = await findFreePorts(1);
    const r = await ops(['--only', 'pubsub', '--pubsub-endpoint', `127.0.0.1:${port}`]);
    expect(r.code, describeRun(r)).toBe(1);
    const [svc] = r.summary.services;
    expect(svc.error).toMatch(/ECONNREFUSED/);
    expect(svc.error).not.toMatch(/Previous errors|\n/);
  }, 30_000);
});

describePubsub('rqbench ops on the Pub/Sub emulator', () => {
  let ps;
  beforeAll(async () => {
    ps = await startPubsub();
  }, 60_000);
  afterAll(() => ps?.stop());

  it('Publish and Pull are single calls, every Pull finds a message, and the topic and subscription are deleted after', async () => {
    const r = await ops(['--only', 'pubsub', '--pubsub-endpoint', ps.endpoint]);
    expect(r.code, describeRun(r)).toBe(0);
    const [svc] = r.summary.services;
    expect([svc.service, svc.ops.map((o) => o.name)]).toEqual(['Pub/Sub', ['Publish', 'Pull']]);
    for (const o of svc.ops) {
      expect(o.stats.count, o.name).toBeGreaterThan(5);
      expect(o.connectMs).toBeGreaterThan(0);
      expect(o.firstMs).toBeGreaterThan(0);
    }
    // the generated client would hold every publish up to 10 ms to bundle it: no call may wait that
    expect(svc.ops[0].stats.min, 'Publish is sent at once, not bundled').toBeLessThan(10);
    const pulled = svc.ops[1].detail.match(/^([\d,]+) of ([\d,]+) calls/);
    expect(pulled?.[1], svc.ops[1].detail).toBe(pulled?.[2]);
    expect(r.summary.targets).toEqual({ pubsub: ps.endpoint });
    const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
    expect(md).toMatch(/^\| \*\*Pub\/Sub\*\* +\|( +\|){8}$/m);
    expect(md).toMatch(/^\| {3}—Pull +\| +\| +\d+ \|( +\d+\.\d{3}( ⚠)? \|){6}$/m);
    for (const f of ['pubsub-publish.hlog', 'pubsub-pull.hlog']) expect(fs.readdirSync(r.dir)).toContain(f);
    const { newPubsubClient } = await import('../../src/transports/pubsub.js');
    const client = newPubsubClient({ endpoint: ps.endpoint });
    try {
      const [topics] = await client.getTopics();
      const [subs] = await client.getSubscriptions();
      expect(topics.map((t) => t.name).filter((n) => n.includes('rqbench-ops'))).toEqual([]);
      expect(subs.map((t) => t.name).filter((n) => n.includes('rqbench-ops'))).toEqual([]);
    } finally {
      await client.close();
    }
  }, 60_000);
});
