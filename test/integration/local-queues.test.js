// src/local/sqs-emulator.js, src/local/pubsub-emulator.js and `rqbench local sqs|pubsub`: the real emulators on 127.0.0.1.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SQSClient, ListQueuesCommand } from '@aws-sdk/client-sqs';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { startPubsub } from '../../src/local/pubsub-emulator.js';
import { isAlive } from '../../src/local/process.js';
import { awsClientConfig } from '../../src/transports/aws.js';
import { describePubsub } from '../helpers/emulators.js';
import { ROOT } from '../helpers/run.js';

describe('local sqs', () => {
  it('serves SQS on 127.0.0.1 and stops', async () => {
    const sqs = await startSqs();
    expect(sqs.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = new SQSClient(awsClientConfig({ endpoint: sqs.endpoint }));
    expect((await client.send(new ListQueuesCommand({}))).$metadata.httpStatusCode).toBe(200);
    client.destroy();
    await sqs.stop();
    await expect(fetch(sqs.endpoint)).rejects.toThrow();
  });

  it('rqbench local sqs prints the endpoint and stops on SIGINT', async () => {
    const out = await untilPrinted(['src/cli.js', 'local', 'sqs'], /endpoint: (http:\/\/127\.0\.0\.1:\d+)/);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('Stopped the SQS/SNS emulator');
  }, 30_000);
});

describePubsub('local pubsub', () => {
  it('starts the JVM on 127.0.0.1, answers Ok, and is gone after stop', async () => {
    const ps = await startPubsub();
    try {
      expect(ps.endpoint).toMatch(/^127\.0\.0\.1:\d+$/);
      expect((await (await fetch(`http://${ps.endpoint}/`)).text()).trim()).toBe('Ok');
      expect(isAlive(ps.pid)).toBe(true);
    } finally {
      await ps.stop();
    }
    expect(isAlive(ps.pid)).toBe(false);
  }, 60_000);
});

/** Starts the CLI, waits for `re` on stdout (checks the endpoint answers), sends SIGINT, waits for exit. */
function untilPrinted(args, re) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let sent = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ${re} in ${stdout}`));
    }, 25_000);
    child.stdout.on('data', async (d) => {
      stdout += d;
      const m = stdout.match(re);
      if (m && !sent) {
        sent = true;
        await fetch(m[1]).catch(() => {});
        child.kill('SIGINT');
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}
