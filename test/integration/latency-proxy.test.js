// The latency model for queue endpoints (issue 24, point 3): a log-normal through the seed's two
// percentiles, and a proxy in front of the SQS/SNS emulator that holds only the modelled actions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { SQSClient, CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
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

  const timed = async (n, command) => {
    const ms = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await client.send(command());
      ms.push(performance.now() - t);
    }
    return ms.sort((a, b) => a - b)[Math.floor(n / 2)];
  };

  it("holds each ReceiveMessage for the model's draw and lets SendMessage through at once; the report counts both", async () => {
    const receive = await timed(30, () => new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0 }));
    const send = await timed(30, () => new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x' }));
    expect(receive).toBeGreaterThan(30);
    expect(receive).toBeLessThan(60);
    expect(send).toBeLessThan(15);
    const report = proxy.report();
    expect(report.ReceiveMessage.calls).toBe(30);
    expect(report.SendMessage.calls).toBe(30);
    expect(report.SendMessage.delayMs).toBeNull();
    expect(report.ReceiveMessage.delayMs.p50).toBeGreaterThan(25);
  }, 30_000);
});
