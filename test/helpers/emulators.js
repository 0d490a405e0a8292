/**
 * Emulators for tests: fauxqs (always there: an npm dependency), the Pub/Sub emulator and moto
 * (a system package and a PyPI one: tests that need one are skipped with a visible message when it is missing,
 * except under CI=true, where they run and fail).
 */
import { describe } from 'vitest';
import { findPubsubEmulator } from '../../src/local/pubsub-emulator.js';
import { findMotoServer } from '../../src/local/moto-emulator.js';

export const PUBSUB_INSTALLED = !!findPubsubEmulator();

/**
 * describe() for tests that need the Pub/Sub emulator.
 * @param {string} name
 * @param {() => void} fn
 */
export function describePubsub(name, fn) {
  const run = PUBSUB_INSTALLED || process.env.CI === 'true';
  if (run) return describe(name, fn);
  process.stderr.write(
    `\nSKIPPED "${name}": the Google Cloud Pub/Sub emulator is not installed (apt-get install google-cloud-cli-pubsub-emulator)\n`,
  );
  // skipped only for want of the emulator, and said so above and in the test's name
  return describe.skipIf(!run)(`${name} (SKIPPED: Pub/Sub emulator not installed)`, fn);
}

export const MOTO_INSTALLED = !!findMotoServer();

/**
 * describe() for tests that need moto's server (`npm run install:moto`; .ci/run installs it).
 * @param {string} name
 * @param {() => void} fn
 */
export function describeMoto(name, fn) {
  const run = MOTO_INSTALLED || process.env.CI === 'true';
  if (run) return describe(name, fn);
  process.stderr.write(`\nSKIPPED "${name}": moto's server is not installed (npm run install:moto)\n`);
  return describe.skipIf(!run)(`${name} (SKIPPED: moto not installed)`, fn);
}
