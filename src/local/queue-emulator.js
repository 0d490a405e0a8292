/**
 * `rqbench local <emulator>`: one queue emulator (a queue driver's, transports/queue-drivers.js)
 * on 127.0.0.1 until SIGINT/SIGTERM, with how to point rqbench at it.
 */
import { stopSignals, untilAborted } from './process.js';

/**
 * @param {import('../transports/queue-driver.js').QueueEmulator} emulator
 * @returns {Promise<void>} sets process.exitCode
 */
export async function runQueueEmulator(emulator) {
  const missing = await emulator.missing();
  if (missing) {
    process.stderr.write(`${missing}\n`);
    process.exitCode = 1;
    return;
  }
  const stopRequested = stopSignals();
  try {
    const t = Date.now();
    const emu = await emulator.start();
    process.stdout.write(emulator.ready(emu, ((Date.now() - t) / 1000).toFixed(1)));
    await untilAborted(stopRequested.signal);
    await emu.stop();
    process.stdout.write(`Stopped the ${emulator.label} emulator\n`);
    process.exitCode = 0;
  } catch (e) {
    process.stderr.write(`rqbench: ${String(e.message).replace(/\s+/g, ' ').trim()}\n`);
    process.exitCode = 1;
  } finally {
    stopRequested.dispose();
  }
}
