// rqbench ops measures seed 003's quantity, the client's overhead (a call less its time on the
// wire), beside the round trip; and times the seed's 7 AWS services on fauxqs and moto's server,
// an operation the emulator lacks being a row that says so (issue 24, point 1).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Client, ListBucketsCommand } from '@aws-sdk/client-s3';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { startRedis } from '../../src/local/local-redis.js';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { startMoto } from '../../src/local/moto-emulator.js';
import { startPubsub } from '../../src/local/pubsub-emulator.js';
import { awsClientConfig } from '../../src/transports/aws.js';
import { startDelayProxy } from '../helpers/delay-proxy.js';
import { describeMoto, describePubsub } from '../helpers/emulators.js';
import { CLI, describeRun, readRun, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

const DELAY_MS = 20;

afterAll(() => removeTempDirs());

async function ops(args, timeoutMs = 60_000, seconds = 0.6) {
  const out = tempDir('rqbench-ops-overhead-');
  const r = await runNode([CLI, 'ops', '--warmup', '0.2', '-d', String(seconds), '--out', out, '--json', ...args], { timeoutMs });
  return { ...r, ...readRun(out, r.stdout) };
}

const opsOf = (summary) => summary.services.flatMap((s) => s.ops.map((op) => ({ ...op, service: s.service })));

describe('overhead: the call less its time on the wire', () => {
  it("on a server that delays every answer by 20 ms, the SDK's overhead stays far below the round trip (SNS on fauxqs)", async () => {
    const sqs = await startSqs();
    const proxy = await startDelayProxy({ host: sqs.host, port: sqs.port }, DELAY_MS);
    try {
      const r = await ops(['--only', 'sns', '--endpoint', `http://127.0.0.1:${proxy.port}`]);
      expect(r.code, describeRun(r)).toBe(0);
      for (const op of opsOf(r.summary)) {
        expect(op.stats.p50, `${op.name} round trip`).toBeGreaterThanOrEqual(DELAY_MS);
        expect(op.overhead.count, op.name).toBe(op.stats.count);
        expect(op.overhead.p50, `${op.name} overhead`).toBeGreaterThan(0);
        // the 20 ms the server held the answer are the wire's, not the client's
        expect(op.overhead.p50, `${op.name} overhead`).toBeLessThan(op.stats.p50 - DELAY_MS * 0.75);
      }
      const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
      expect(md).toMatch(/\| +\| Overhead \(ms\) \|/);
      expect(md).toMatch(/\| +\| Round trip \(ms\) \|/);
      expect(md.indexOf('Overhead (ms)')).toBeLessThan(md.indexOf('Round trip (ms)'));
      expect(fs.readdirSync(r.dir)).toEqual(expect.arrayContaining(['sns-publish.hlog', 'sns-publish.overhead.hlog']));
    } finally {
      await proxy.close();
      await sqs.stop();
    }
  }, 60_000);

  it('Redis: encoding and parsing are the overhead, the delayed answer is not', async () => {
    const redis = await startRedis();
    const proxy = await startDelayProxy({ host: redis.host, port: redis.port }, DELAY_MS);
    try {
      const r = await ops(['--url', `redis://127.0.0.1:${proxy.port}`]);
      expect(r.code, describeRun(r)).toBe(0);
      for (const op of opsOf(r.summary)) {
        expect(op.stats.p50, `${op.name} round trip`).toBeGreaterThanOrEqual(DELAY_MS);
        expect(op.overhead.p50, `${op.name} overhead`).toBeLessThan(1);
      }
    } finally {
      await proxy.close();
      await redis.stop();
    }
  }, 60_000);
});

describePubsub('overhead of a gRPC call (Pub/Sub)', () => {
  it("behind a 20 ms delay, the interceptor leaves the client's work only: far below the round trip", async () => {
    const ps = await startPubsub();
    const proxy = await startDelayProxy({ host: ps.host, port: ps.port }, DELAY_MS);
    try {
      const r = await ops(['--only', 'pubsub', '--pubsub-endpoint', `127.0.0.1:${proxy.port}`]);
      expect(r.code, describeRun(r)).toBe(0);
      for (const op of opsOf(r.summary)) {
        expect(op.stats.p50, `${op.name} round trip`).toBeGreaterThanOrEqual(DELAY_MS);
        expect(op.overhead.p50, `${op.name} overhead`).toBeGreaterThan(0);
        expect(op.overhead.p50, `${op.name} overhead`).toBeLessThan(op.stats.p50 - DELAY_MS * 0.75);
      }
    } finally {
      await proxy.close();
      await ps.stop();
    }
  }, 120_000);
});

describeMoto("seed 003's services on fauxqs and moto's server", () => {
  let moto;
  let sqs;
  beforeAll(async () => {
    [moto, sqs] = await Promise.all([startMoto(), startSqs()]);
  }, 60_000);
  afterAll(async () => {
    await moto?.stop();
    await sqs?.stop();
  });

  it('two operations of each, overhead and round trip measured; Pinpoint\'s two that moto lacks say "not emulated" (exit 0); every resource made is deleted', async () => {
    const r = await ops(
      ['--only', 's3,sts,cloudwatch,events,dynamodb,pinpoint,s3express', '--endpoint', sqs.endpoint, '--api-endpoint', moto.endpoint],
      120_000,
      // 1.5 s of calls each: moto's server shares the 2 cores, and on a busy host answered 16 AssumeRoles in 0.6 s
      1.5,
    );
    expect(r.code, describeRun(r)).toBe(0);
    const got = opsOf(r.summary);
    expect(got.map((op) => `${op.service} ${op.name}`)).toEqual([
      'S3 HeadObject',
      'S3 PutObject',
      'STS AssumeRole',
      'STS GetCallerIdentity',
      'CloudWatch GetMetricData',
      'CloudWatch PutMetricData',
      'CloudWatch Events DescribeEventBus',
      'CloudWatch Events PutEvents',
      'DynamoDB GetItem',
      'DynamoDB PutItem',
      'Pinpoint GetEndpoint',
      'Pinpoint PutEvents',
      'S3Express PutObject',
      'S3Express GetObject',
    ]);
    for (const op of got) {
      if (op.service === 'Pinpoint') {
        expect(op.notEmulated, op.name).toBe(true);
        expect(op.error).toMatch(/does not implement/);
        expect(op.stats).toBeNull();
        continue;
      }
      expect(op.error, `${op.service} ${op.name}`).toBeUndefined();
      expect(op.stats.count, `${op.service} ${op.name}`).toBeGreaterThan(20);
      expect(op.overhead.p50).toBeGreaterThan(0);
      expect(op.overhead.p50).toBeLessThan(op.stats.p50);
    }
    const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
    expect(md).toMatch(/\| {3}—GetEndpoint +\| +not emulated \|( +\|){7}/);
    expect(md).toMatch(/Pinpoint GetEndpoint: .* — \*\*not emulated\*\*/);
    // the bucket of each S3 service and the DynamoDB table are gone
    const s3 = new S3Client({ ...awsClientConfig(sqs), forcePathStyle: true });
    const db = new DynamoDBClient(awsClientConfig(moto));
    try {
      expect((await s3.send(new ListBucketsCommand({}))).Buckets ?? []).toEqual([]);
      expect((await db.send(new ListTablesCommand({}))).TableNames).toEqual([]);
    } finally {
      s3.destroy();
      db.destroy();
    }
  }, 150_000);

  it('--local starts moto for those services and stops it after', async () => {
    const r = await ops(['--local', '--only', 'sts'], 60_000);
    expect(r.code, describeRun(r)).toBe(0);
    const started = /started a local AWS API emulator \(moto, pid (\d+)\) at http:\/\/127\.0\.0\.1:\d+/.exec(r.stderr);
    expect(started, r.stderr).not.toBeNull();
    expect(fs.existsSync(`/proc/${started?.[1]}`), 'moto stopped with the run').toBe(false);
    expect(opsOf(r.summary).map((op) => op.name)).toEqual(['AssumeRole', 'GetCallerIdentity']);
  }, 60_000);
});
