/**
 * Queue emulators for tests: fauxqs (always there: an npm dependency) and the Pub/Sub emulator
 * (a system package: tests that need it are skipped with a visible message when it is missing,
 * except under CI=true, where they run and fail).
 */
import { describe } from 'vitest';
import { findPubsubEmulator } from '../../src/local/pubsub-emulator.js';

export const PUBSUB_INSTALLED = !!findPubsubEmulator();

/**
 * describe() for tests that need the Pub/Sub emulator.
 * @param {string} name
 * @param {() => void} fn
 */
export function describePubsub(name, fn) {
  const run = PUBSUB_INSTALLED || process.env.CI === 'true';
  if (run) return describe(name, fn);
  process.stderr.write(`\nSKIPPED "${name}": the Google Cloud Pub/Sub emulator is not installed (apt-get install google-cloud-cli-pubsub-emulator)\n`);
  // skipped only for want of the emulator, and said so above and in the test's name
  return describe.skipIf(!run)(`${name} (SKIPPED: Pub/Sub emulator not installed)`, fn);
}
