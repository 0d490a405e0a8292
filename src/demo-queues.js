#!/usr/bin/env node
/**
 * npm run demo:queues — the seed's realtime-updates experiment, short, on local emulators:
 * SNS→SQS (fauxqs, 4 pollers) and Pub/Sub (the emulator, 1 stream, when installed), 45
 * messages/s x 1000 updates for 5 s each, consumer and publisher as separate processes.
 * Prints each consumer's summary (the seed's table first).
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startSqs } from './local/sqs-emulator.js';
import { PUBSUB_INSTALL_HINT, findPubsubEmulator, startPubsub } from './local/pubsub-emulator.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LOAD = ['--rate', '45', '--batch-size', '1000', '-d', '5'];
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-demo-queues-'));

/** Runs a node script; resolves with its stdout (stderr passes through). */
function run(script, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args, '--out', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${script} exited with ${code}`))));
  });
}

/** Consumer first (so nothing waits in the queue before it reads), then the publisher. */
async function experiment(title, consumerArgs, publisherArgs) {
  process.stdout.write(`\n## ${title}\n`);
  const consumer = run('src/consumer.js', [...consumerArgs, '--until-complete', '-d', '60', '--json']);
  await new Promise((r) => setTimeout(r, 2500)); // the consumer loads its SDK and makes the queue
  await run('src/producer.js', [...publisherArgs, ...LOAD, '--quiet']);
  const summary = JSON.parse(await consumer);
  process.stdout.write(fs.readFileSync(path.join(out, summary.name, 'summary.md'), 'utf8'));
}

const sqs = await startSqs();
try {
  const ep = ['--endpoint', sqs.endpoint];
  await experiment(
    'SNS→SQS (fauxqs), batch size 1000, rate 45, thread pool 4',
    ['--target', 'sqs', ...ep, '--queue', 'demo', '--create', '--threads', '4', '--wait-seconds', '20'],
    ['--target', 'sns', ...ep, '--topic', 'demo', '--queue', 'demo', '--create'],
  );
} finally {
  await sqs.stop();
}
if (findPubsubEmulator()) {
  const ps = await startPubsub();
  try {
    const t = ['--target', 'pubsub', '--endpoint', ps.endpoint, '--topic', 'demo', '--subscription', 'demo'];
    await experiment(
      'Pub/Sub (emulator), batch size 1000, rate 45, thread pool 1',
      [...t, '--create', '--threads', '1'],
      [...t, '--create'],
    );
  } finally {
    await ps.stop();
  }
} else {
  process.stdout.write(`\n## Pub/Sub: skipped. ${PUBSUB_INSTALL_HINT}\n`);
}
process.stdout.write(`\nRun directories: ${out}\n`);
