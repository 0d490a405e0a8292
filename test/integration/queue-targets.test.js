// src/transports/sqs.js, sns.js, pubsub.js against the real emulators on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { startPubsub } from '../../src/local/pubsub-emulator.js';
import { openSns } from '../../src/transports/sns.js';
import { openSqs } from '../../src/transports/sqs.js';
import { openPubsub } from '../../src/transports/pubsub.js';
import { awsClientConfig } from '../../src/transports/aws.js';
import { describePubsub } from '../helpers/emulators.js';

/** Consumes until `n` messages arrived (or 5 s passed). */
async function take(target, n, extra = {}) {
  const got = [];
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 5000);
  await target.consume({
    threads: 2,
    waitSeconds: 1,
    signal: ac.signal,
    ...extra,
    onMessages: async (msgs) => {
      got.push(...msgs);
      if (got.length >= n) ac.abort();
    },
  });
  clearTimeout(timer);
  return got;
}

describe('AWS client config', () => {
  it('gives dummy credentials to loopback endpoints only', () => {
    expect(awsClientConfig({ endpoint: 'http://127.0.0.1:9324' }).credentials).toBeDefined();
    expect(awsClientConfig({ endpoint: 'https://sqs.eu-west-1.amazonaws.com' }).credentials).toBeUndefined();
    expect(awsClientConfig({})).toEqual({});
  });
});

describe('SNS → SQS on fauxqs', () => {
  let sqs;
  beforeAll(async () => {
    sqs = await startSqs();
  });
  afterAll(() => sqs?.stop());

  for (const raw of [false, true]) {
    it(`creates the route and unwraps messages, raw delivery ${raw ? 'on' : 'off'}`, async () => {
      const names = { topic: `t-${raw}`, queue: `q-${raw}` };
      const sns = await openSns({ endpoint: sqs.endpoint, ...names, raw, create: true });
      const queue = await openSqs({ endpoint: sqs.endpoint, queue: names.queue });
      try {
        await sns.publish('k1\tv1\n', { time_sent: '1', publisher: 'p', seq: '7' });
        const [m] = await take(queue, 1);
        expect(m.body).toBe('k1\tv1\n');
        expect(m.attrs).toEqual({ time_sent: '1', publisher: 'p', seq: '7' });
        expect(Math.abs(m.cloudMs - Date.now())).toBeLessThan(10_000);
      } finally {
        sns.close();
        queue.close();
      }
    }, 20_000);
  }

  it('an SNS topic by name needs --create or an ARN', async () => {
    await expect(openSns({ endpoint: sqs.endpoint, topic: 'nope' })).rejects.toThrow(/ARN/);
  });
});

describePubsub('Pub/Sub on the emulator', () => {
  let ps;
  beforeAll(async () => {
    ps = await startPubsub();
  }, 60_000);
  afterAll(() => ps?.stop());

  it('creates topic and subscription, streams the message with its publish time', async () => {
    const t = await openPubsub({ endpoint: ps.endpoint, topic: 'updates-t', subscription: 'updates-s', create: true });
    try {
      await t.publish('k\tv\n', { time_sent: '1', publisher: 'p', seq: '1' });
      const [m] = await take(t, 1, { threads: 1 });
      expect(m.body).toBe('k\tv\n');
      expect(m.attrs.seq).toBe('1');
      expect(Math.abs(m.cloudMs - Date.now())).toBeLessThan(10_000);
    } finally {
      await t.close();
    }
  }, 30_000);
});
