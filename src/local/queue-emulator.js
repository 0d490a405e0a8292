/**
 * `rqbench local <emulator>`: one queue emulator (a queue driver's, transports/queue-drivers.js)
 * on 127.0.0.1 until SIGINT/SIGTERM, with how to point rqbench at it.
 */
import { stopSignals, untilAborted } from './process.js';
import { setExitCode, writeErr, writeOut } from '../command-io.js';

/**
 * @param {import('../transports/queue-driver.js').QueueEmulator} emulator
 * @returns {Promise<void>} sets the exit code
 */
export async function runQueueEmulator(emulator) {
  const missing = await emulator.missing();
  if (missing) {
    writeErr(`${missing}\n`);
    setExitCode(1);
    return;
  }
  const stopRequested = stopSignals();
  try {
    const t = Date.now();
    const emu = await emulator.start();
    writeOut(emulator.ready(emu, ((Date.now() - t) / 1000).toFixed(1)));
    await untilAborted(stopRequested.signal);
    await emu.stop();
    writeOut(`Stopped the ${emulator.label} emulator\n`);
    setExitCode(0);
  } catch (e) {
    writeErr(`rqbench: ${String(e.message).replace(/\s+/g, ' ').trim()}\n`);
    setExitCode(1);
  } finally {
    stopRequested.dispose();
  }
}
