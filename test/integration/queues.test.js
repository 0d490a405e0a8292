// Realtime updates end to end on the real emulators (fauxqs, the Pub/Sub emulator) on 127.0.0.1:
// publisher → SNS→SQS / SQS / Pub/Sub → consumer, the seed's metrics, nothing lost (bad input:
// test/unit/queue-flags.test.js).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { startPubsub } from '../../src/local/pubsub-emulator.js';
import { startRedis } from '../../src/local/local-redis.js';
import fs from 'node:fs';
import path from 'node:path';
import { CLI, freePort, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { consumeQueue, publish, startConsumer } from '../helpers/queue-run.js';
import { describePubsub } from '../helpers/emulators.js';

const SLOW = { timeout: 60_000 };
let sqs;
beforeAll(async () => {
  sqs = await startSqs();
});
afterAll(async () => {
  await sqs?.stop();
  removeTempDirs();
});

/** 2 s at 20 messages/s x 100 updates: 40 messages. */
const LOAD = ['--rate', '20', '--batch-size', '100', '-d', '2'];

function expectNothingLost(s, messages) {
  expect(s.nothingLost).toMatchObject({ ok: true, missing: 0, publishers: 1 });
  expect(s.publishers[0]).toMatchObject({ received: messages, last: messages, missing: 0 });
  expect(s.counts.rows).toBe(s.counts.messages * 100);
  expect(s.latency.e2e.count).toBe(s.counts.messages);
  expect(s.latency.e2eCloud.count).toBe(s.counts.messages);
  expect(s.latency.processing.count).toBeGreaterThan(0);
}

describe('SNS → SQS', () => {
  for (const raw of [false, true]) {
    it(`fan-out with raw delivery ${raw ? 'on' : 'off'}: every message applied once, the seed's table`, SLOW, async () => {
      const names = ['--topic', `fan-${raw}`, '--queue', `fan-${raw}`];
      const p = await publish(['--target', 'sns', '--endpoint', sqs.endpoint, ...names, '--create', ...(raw ? ['--raw'] : []), ...LOAD]);
      expect(p.code, p.stderr).toBe(0);
      expect(p.summary.messages).toMatchObject({ acked: 40, failed: 0 });
      const c = await consumeQueue([
        '--target',
        'sqs',
        '--endpoint',
        sqs.endpoint,
        '--queue',
        `fan-${raw}`,
        '--threads',
        '4',
        '--until-complete',
        '-d',
        '20',
      ]);
      expect(c.code, c.stderr).toBe(0);
      expectNothingLost(c.summary, 40);
      expect(c.summary.counts.duplicates).toBe(0);
      expect(c.summary.latency.read.count).toBeGreaterThan(0);
      const md = (await import('node:fs')).readFileSync(`${c.dir}/summary.md`, 'utf8');
      expect(md).toMatch(
        /\| Percentile \| Reading off SQS \| Server side processing \| E2E \|\n\| --- \|.*\n\| p50 \| \S+ \| \S+ \| \S+ \|\n\| p999 \|/,
      );
      expect(md).toContain('Nothing lost: every message of 1 publisher(s) was applied');
    });
  }

  it('counts duplicates: the same publisher id and sequence numbers sent twice', SLOW, async () => {
    const args = ['--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', 'dups', '--create', '--publisher-id', 'twice', ...LOAD];
    expect((await publish(args)).code).toBe(0);
    expect((await publish(args)).code).toBe(0);
    const c = await consumeQueue(['--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', 'dups', '--until-complete', '-d', '5']);
    expect(c.summary.counts.messages).toBe(80);
    expect(c.summary.counts.duplicates).toBe(40);
    expect(c.summary.nothingLost).toMatchObject({ missing: 0, duplicates: 40 });
  });

  it('generate-deltas then --from-folder: the files are the message bodies, in order, cycled', SLOW, async () => {
    const dir = path.join(tempDir('rqbench-deltas-'), 'deltas');
    const g = await runNode([CLI, 'generate-deltas', '--out', dir, '-n', '3', '--batch-size', '100'], { timeoutMs: 15_000 });
    expect(g.code, g.stderr).toBe(0);
    expect(fs.readdirSync(dir)).toEqual(['delta-000001.txt', 'delta-000002.txt', 'delta-000003.txt']);
    expect(fs.readFileSync(path.join(dir, 'delta-000002.txt'), 'utf8').split('\n').filter(Boolean)).toHaveLength(100);
    // 40 messages from 3 files: every file sent, over and over
    const p = await publish([
      '--target',
      'sqs',
      '--endpoint',
      sqs.endpoint,
      '--queue',
      'folder',
      '--create',
      '--from-folder',
      dir,
      '--rate',
      '20',
      '-d',
      '2',
    ]);
    expect(p.code, p.stderr).toBe(0);
    expect(p.summary.messages).toMatchObject({ acked: 40, failed: 0 });
    expect(p.summary.batchSize).toBe(100);
    const c = await consumeQueue(['--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', 'folder', '--until-complete', '-d', '20']);
    expect(c.code, c.stderr).toBe(0);
    expectNothingLost(c.summary, 40);
  });

  it(
    "--delete-when before-apply, as the seed's readers: nothing lost; and their wait for the publisher to start is not 'Reading off SQS'",
    SLOW,
    async () => {
      const q = ['--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', 'first-wait'];
      // the consumer first, its two pollers in 5 s long polls; the publisher 2 s after its first second
      const run = await startConsumer(
        [
          ...q,
          '--create',
          '--wait-seconds',
          '5',
          '--threads',
          '2',
          '--delete-when',
          'before-apply',
          '--until-complete',
          '-d',
          '20',
          '--json',
        ],
        /\[1s\]/,
      );
      let stdout = '';
      run.child.stdout.on('data', (d) => (stdout += d));
      const closed = new Promise((r) => run.child.on('close', r));
      await new Promise((r) => setTimeout(r, 2000));
      const p = await publish([...q, ...LOAD]);
      expect(p.code, p.stderr).toBe(0);
      expect(await closed, run.stderr()).toBe(0);
      const s = JSON.parse(String(stdout));
      expectNothingLost(s, 40);
      // the polls begun before the first message was sent waited 3 s and more for the publisher: not
      // timed; the receives of the run under way are (40 messages, 10 at most a receive)
      expect(s.latency.read.count, JSON.stringify(s.latency.read)).toBeGreaterThanOrEqual(2);
      expect(s.latency.read.max, JSON.stringify(s.latency.read)).toBeLessThan(2000);
      const md = fs.readFileSync(path.join(run.out, fs.readdirSync(run.out)[0], 'summary.md'), 'utf8');
      expect(md).toContain('DeleteMessageBatch before apply');
    },
  );

  it(
    'a consumer killed mid-run and another started: nothing lost (redelivery after the visibility timeout), Redis cache',
    SLOW,
    async () => {
      const redis = await startRedis();
      try {
        const q = ['--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', 'restart'];
        const cache = ['--cache', 'redis', '--cache-url', redis.url];
        // the first consumer makes the queue, gets the first messages and is killed while the
        // publisher goes on; what it held comes back after the 2 s visibility timeout
        const first = await startConsumer(
          [...q, ...cache, '--create', '--visibility-timeout', '2', '--threads', '1', '-d', '30'],
          /\[1s\]/,
        );
        const published = publish([...q, '--rate', '20', '--batch-size', '100', '-d', '3']);
        await new Promise((r) => {
          const t = setInterval(() => {
            if (/total [1-9]/.test(first.stderr())) {
              clearInterval(t);
              r();
            }
          }, 20);
        });
        first.child.kill('SIGKILL');
        const c = await consumeQueue([...q, ...cache, '--threads', '2', '--until-complete', '-d', '20']);
        expect((await published).code).toBe(0);
        expect(c.code, c.stderr).toBe(0);
        expect(c.summary.counts.messages).toBeLessThan(60);
        expect(c.summary.publishers[0]).toMatchObject({ received: 60, last: 60, missing: 0 });
        expect(c.summary.nothingLost.ok).toBe(true);
      } finally {
        await redis.stop();
      }
    },
  );

  it("serves the seed's Prometheus metrics while it runs", SLOW, async () => {
    const q = ['--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', 'metrics'];
    expect((await publish([...q, '--create', ...LOAD])).code).toBe(0);
    const port = await freePort();
    const run = await startConsumer(
      [...q, '--metrics-port', String(port), '--metrics-linger', '0', '--name', 'seed-metrics', '-d', '4'],
      /metrics: (http:\S+)[\s\S]*total 40/,
    );
    expect(run.match[1]).toBe(`http://127.0.0.1:${port}/metrics`);
    const text = await (await fetch(run.match[1])).text();
    await new Promise((r) => run.child.on('close', r));
    // every series says which run it is (docs/live-metrics.md); the keys below leave those labels out
    const series = text.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(series.filter((l) => !/run_id="[0-9a-f]{8}".*run_name="seed-metrics".*host="/.test(l))).toEqual([]);
    const m = parseProm(text);
    expect(m.get('ReceivedLowLatencyNotificationsE2E_count')).toBe(40);
    // the seed's name keeps the seed's meaning (from the actual send); the corrected one is new, and says so
    expect(m.get('ReceivedLowLatencyNotificationsE2EIntended_count')).toBe(40);
    expect(text).toMatch(/^# HELP ReceivedLowLatencyNotificationsE2E E2E from the actual send \(time_sent/m);
    expect(text).toMatch(/^# HELP ReceivedLowLatencyNotificationsE2EIntended E2E from the intended send \(time_intended/m);
    expect(m.get('ReceivedLowLatencyNotificationsE2EAwsProvided_count')).toBe(40);
    expect(m.get('AwsSqsReceiveMessageLatency_count')).toBeGreaterThan(0);
    expect(m.get('Latency_count{event="ReceivedLowLatencyNotifications"}')).toBe(m.get('ReceivedLowLatencyNotifications_count'));
    expect(m.get('EventStatus{event="RealtimeTotalRowsUpdated"}')).toBe(4000);
    expect(m.get('RealtimeTotalRowsUpdated')).toBe(4000);
    // histogram_quantile(0.5, …E2E_bucket): the bucket where the cumulative count passes half
    const buckets = [...m]
      .filter(([k]) => k.startsWith('ReceivedLowLatencyNotificationsE2E_bucket'))
      .map(([k, v]) => [Number(/le="([^"]+)"/.exec(k)[1]), v]);
    const median = buckets.find(([, v]) => v >= 20)[0];
    expect(median).toBeGreaterThan(0);
    expect(median).toBeLessThan(60e6);
  });
});

describePubsub('Pub/Sub', () => {
  let ps;
  beforeAll(async () => {
    ps = await startPubsub();
  }, 60_000);
  afterAll(() => ps?.stop());

  it("streaming pull: every message applied once, ack after apply, the seed's GCP table", SLOW, async () => {
    const t = ['--target', 'pubsub', '--endpoint', ps.endpoint, '--topic', 'rt-updates', '--subscription', 'rt-updates'];
    const p = await publish([...t, '--create', ...LOAD]);
    expect(p.code, p.stderr).toBe(0);
    const c = await consumeQueue([...t, '--threads', '1', '--until-complete', '-d', '20']);
    expect(c.code, c.stderr).toBe(0);
    expectNothingLost(c.summary, 40);
    const md = (await import('node:fs')).readFileSync(`${c.dir}/summary.md`, 'utf8');
    expect(md).toMatch(/\| Percentile \| Server side processing \| E2E \|/);
  });
});

/** Prometheus text format → Map of 'name{labels}' → value (labels in the order served). */
function parseProm(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    const key = line
      .slice(0, i)
      .replace(/,?(run_id|run_name|host)="[^"]*"/g, '')
      .replace('{,', '{')
      .replace('{}', '');
    out.set(key, Number(line.slice(i + 1)));
  }
  return out;
}
