// The latency model for queue endpoints (issue 24, point 3): a log-normal through the seed's two
// percentiles, and a proxy in front of the SQS/SNS emulator that holds only the modelled actions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { SQSClient, CreateQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { SNSClient, CreateTopicCommand, PublishCommand, SubscribeCommand } from '@aws-sdk/client-sns';
import { drawDelay, startLatencyProxy } from '../../src/local/latency-proxy.js';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { awsClientConfig } from '../../src/transports/aws.js';

describe('drawDelay', () => {
  it("has the seed's p50 and p999 (ReceiveMessage 77 ms, 505 ms) over 200,000 draws", () => {
    const draws = Float64Array.from({ length: 200_000 }, () => drawDelay({ p50Ms: 77, p999Ms: 505 })).sort();
    const at = (q) => draws[Math.floor(q * draws.length)];
    expect(at(0.5)).toBeGreaterThan(77 * 0.97);
    expect(at(0.5)).toBeLessThan(77 * 1.03);
    expect(at(0.999)).toBeGreaterThan(505 * 0.9);
    expect(at(0.999)).toBeLessThan(505 * 1.1);
    expect(draws[0]).toBeGreaterThan(0);
  });
});

describe('the latency proxy in front of fauxqs', () => {
  let sqs;
  let proxy;
  let client;
  let queueUrl;
  beforeAll(async () => {
    sqs = await startSqs();
    proxy = await startLatencyProxy(sqs.endpoint, { ReceiveMessage: { p50Ms: 40, p999Ms: 80 } });
    client = new SQSClient(awsClientConfig({ endpoint: proxy.endpoint }));
    queueUrl = (await client.send(new CreateQueueCommand({ QueueName: 'latency-model' }))).QueueUrl;
  });
  afterAll(async () => {
    client?.destroy();
    await proxy?.stop();
    await sqs?.stop();
  });

  /** The median ms of n calls, through the proxy unless another client is given. */
  const timed = async (n, command, via = client) => {
    const ms = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await via.send(command());
      ms.push(performance.now() - t);
    }
    return ms.sort((a, b) => a - b)[Math.floor(n / 2)];
  };

  it("holds each ReceiveMessage for the model's draw and lets SendMessage through at once; the report counts both", async () => {
    // each call also straight on the emulator, on the same (empty, then filling) queue: what the host
    // adds to every call, proxied or not (a CI host running other test files beside this one took a
    // proxied receive's median past 60 ms)
    const direct = new SQSClient(awsClientConfig({ endpoint: sqs.endpoint }));
    const receiveCmd = () => new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0 });
    const sendCmd = () => new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' });
    const bare = await timed(30, receiveCmd, direct);
    const receive = await timed(30, receiveCmd);
    const bareSend = await timed(30, sendCmd, direct);
    const send = await timed(30, sendCmd);
    direct.destroy();
    // the hold the proxy adds is the model's draw, median 40 ms: no less, and nothing beyond it
    expect(receive - bare).toBeGreaterThan(30);
    expect(receive - bare).toBeLessThan(55);
    // a SendMessage is not held: the proxy adds no more than a hop on loopback
    expect(send - bareSend).toBeLessThan(10);
    const report = proxy.report();
    expect(report.ReceiveMessage.calls).toBe(30);
    expect(report.SendMessage.calls).toBe(30);
    expect(report.SendMessage.delayMs).toBeNull();
    expect(report.ReceiveMessage.delayMs.p50).toBeGreaterThan(25);
  }, 30_000);

  it('holds an SNS Publish before it reaches the emulator: the message reaches the queue only after the draw (the SNS→SQS delivery)', async () => {
    const delivery = await startLatencyProxy(sqs.endpoint, { Publish: { p50Ms: 200, p999Ms: 400 } });
    const sns = new SNSClient(awsClientConfig({ endpoint: delivery.endpoint }));
    try {
      // the queue and its subscription straight on the emulator; only the Publish goes through the model
      const direct = new SQSClient(awsClientConfig({ endpoint: sqs.endpoint }));
      const url = (await direct.send(new CreateQueueCommand({ QueueName: 'delivery-model' }))).QueueUrl;
      const arn = (await direct.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn;
      const topic = (await sns.send(new CreateTopicCommand({ Name: 'delivery-model' }))).TopicArn;
      await sns.send(new SubscribeCommand({ TopicArn: topic, Protocol: 'sqs', Endpoint: arn }));
      const t0 = performance.now();
      const publishing = sns.send(new PublishCommand({ TopicArn: topic, Message: 'x' })).then(() => performance.now() - t0);
      let seenAt = null;
      while (seenAt === null && performance.now() - t0 < 3000) {
        const got = await direct.send(new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 0 }));
        if (got.Messages?.length) seenAt = performance.now() - t0;
        else await new Promise((r) => setTimeout(r, 5));
      }
      const publishMs = await publishing;
      direct.destroy();
      // a draw through (200, 400) lies above 90 ms but in 1 of about 10^5
      expect(seenAt).toBeGreaterThan(90);
      expect(publishMs).toBeGreaterThan(90);
      const report = delivery.report();
      expect(report.Publish.calls).toBe(1);
      expect(report.Publish.delayMs.count).toBe(1);
      // held before it reached the emulator: the message was in the queue once the held request went on
      expect(seenAt).toBeGreaterThanOrEqual(report.Publish.delayMs.max - 5);
      expect(report.CreateTopic.delayMs).toBeNull();
    } finally {
      sns.destroy();
      await delivery.stop();
    }
  }, 30_000);
});
