/**
 * The services `rqbench ops` times beside Redis: the queue drivers that have operations (SQS,
 * SNS, Pub/Sub), then the rest of seed 003's AWS services (api-driver.js). Each is
 * `{ name, ops, emulator }`: the `--only` word, its part in the command (queue-driver.js's
 * QueueOps) and the local stand-in `--local` starts.
 */
import { merged, queueDrivers } from './queue-drivers.js';
import { AWS_API_DRIVERS } from './api-driver.js';

/** @typedef {import('./queue-driver.js').QueueFlag} QueueFlag */
/** @typedef {import('./queue-driver.js').QueueEmulator} QueueEmulator */
/** @typedef {import('./api-driver.js').OpsDriver} OpsDriver */

/**
 * Every service with operations to time, after Redis, in table order.
 * @returns {OpsDriver[]}
 */
export function opsDrivers() {
  return [.../** @type {OpsDriver[]} */ (queueDrivers().filter((d) => d.ops)), ...AWS_API_DRIVERS];
}

/**
 * The flags of `rqbench ops`, once each.
 * @returns {Array<[string, QueueFlag]>}
 */
export function opsFlags() {
  return merged(opsDrivers().map((d) => Object.entries(d.ops.options)));
}

/**
 * The stand-ins `ops --local` may start, once each.
 * @returns {QueueEmulator[]}
 */
export function opsEmulators() {
  return [
    ...new Set(
      opsDrivers()
        .map((d) => d.emulator)
        .filter((e) => e !== undefined),
    ),
  ];
}
