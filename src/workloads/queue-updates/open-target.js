/**
 * A queue target opened through its driver (targets/queue-drivers.js): a publisher gets
 * something with publish(), a consumer something with consume(); both probe(). A failure is
 * one line naming the service and where it is, exit 1.
 */
import { redactString } from '../../record/redact.js';
import { CALL_TIMEOUT_MS } from '../../transports/bounds.js';
import { writeErr } from '../../command-io.js';

/** @typedef {import('../../transports/queue-driver.js').OpenedPublisher} OpenedPublisher */
/** @typedef {import('../../transports/queue-driver.js').OpenedConsumer} OpenedConsumer */

/**
 * @template {'publish'|'consume'} S
 * @param {import('../../transports/queue-driver.js').QueueDriver} driver
 * @param {Readonly<Record<string, any>>} opts what the driver's check returned
 * @param {S} side
 * @param {{ quiet?: boolean }} [say] unless quiet, a line on stderr once the SDK is loaded: a
 *   service that does not answer keeps the run waiting up to its call timeout, and this says on what
 * @returns {Promise<S extends 'publish' ? OpenedPublisher : OpenedConsumer>}
 */
export async function openQueueTarget(driver, opts, side, { quiet = false } = {}) {
  const loaded = () => {
    if (!quiet) writeErr(`contacting ${whereOf(driver, opts)} (no answer within ${CALL_TIMEOUT_MS / 1000} s ends the run)\n`);
  };
  try {
    // the contract: what a side opens has that side's call
    return /** @type {any} */ (await driver.open(side, opts, loaded));
  } catch (e) {
    const msg = String(/** @type {any} */ (e)?.message ?? e)
      .replace(/\s+/g, ' ')
      .trim();
    throw Object.assign(new Error(`cannot open ${whereOf(driver, opts)}: ${msg}`), { exitCode: 1 });
  }
}

/**
 * The service and where it is, as error lines name it (`Pub/Sub at 127.0.0.1:8085`), with any
 * credentials in the endpoint masked.
 * @param {import('../../transports/queue-driver.js').QueueDriver} driver
 * @param {Readonly<Record<string, any>>} opts
 */
export function whereOf(driver, opts) {
  return redactString(driver.where(opts));
}
