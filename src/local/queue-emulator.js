/**
 * `rqbench local sqs|pubsub`: one queue emulator on 127.0.0.1 until SIGINT/SIGTERM, with how
 * to point rqbench at it.
 */
import { startSqs } from './sqs.js';
import { stopSignals, untilAborted } from './process.js';
import { PUBSUB_INSTALL_HINT, findPubsubEmulator, startPubsub } from './pubsub.js';

/**
 * @param {'sqs'|'pubsub'} what
 * @returns {Promise<void>} sets process.exitCode
 */
export async function runQueueEmulator(what) {
  if (what === 'pubsub' && !findPubsubEmulator()) {
    process.stderr.write(`${PUBSUB_INSTALL_HINT}\n`);
    process.exitCode = 1;
    return;
  }
  const stopRequested = stopSignals();
  try {
    const t = Date.now();
    const emu = what === 'sqs' ? await startSqs() : await startPubsub();
    process.stdout.write(formatEmulator(what, emu, Date.now() - t));
    await untilAborted(stopRequested.signal);
    await emu.stop();
    process.stdout.write(`Stopped the ${what === 'sqs' ? 'SQS/SNS' : 'Pub/Sub'} emulator\n`);
    process.exitCode = 0;
  } catch (e) {
    process.stderr.write(`rqbench: ${String(e.message).replace(/\s+/g, ' ').trim()}\n`);
    process.exitCode = 1;
  } finally {
    stopRequested.dispose();
  }
}

/**
 * @param {'sqs'|'pubsub'} what
 * @param {{ endpoint: string, pid?: number }} emu
 * @param {number} ms
 */
export function formatEmulator(what, emu, ms) {
  const secs = (ms / 1000).toFixed(1);
  if (what === 'sqs') {
    return [
      `Local SQS + SNS emulator (fauxqs) ready in ${secs} s`,
      `endpoint: ${emu.endpoint}`,
      '',
      'Use:',
      `  rqbench produce --target sns --endpoint ${emu.endpoint} --topic updates --queue updates --create --rate 10 --batch-size 100`,
      `  rqbench consume --target sqs --endpoint ${emu.endpoint} --queue updates --threads 4`,
      `  aws --endpoint-url ${emu.endpoint} sqs list-queues`,
      '',
      'Ctrl-C stops it (everything lives in memory).',
      '',
    ].join('\n');
  }
  return [
    `Local Pub/Sub emulator ready in ${secs} s (pid ${emu.pid})`,
    `endpoint: ${emu.endpoint}`,
    '',
    'Use:',
    `  rqbench produce --target pubsub --endpoint ${emu.endpoint} --topic updates --subscription updates --create --rate 10 --batch-size 100`,
    `  rqbench consume --target pubsub --endpoint ${emu.endpoint} --topic updates --subscription updates --threads 1`,
    `  PUBSUB_EMULATOR_HOST=${emu.endpoint} <any Pub/Sub client>`,
    '',
    'Ctrl-C stops it.',
    '',
  ].join('\n');
}
