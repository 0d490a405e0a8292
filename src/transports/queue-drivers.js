/**
 * The queue systems rqbench knows, one driver module each (queue-driver.js says what a driver
 * declares). The commands read everything system-specific from here: the --target values, the
 * queue flags and their --help lines, the checks, the size limits, how to open each side, the
 * `rqbench ops` services and the `rqbench local` emulators. Adding a system is one module and
 * one line below.
 */
import { sqs } from './sqs-driver.js';
import { sns } from './sns-driver.js';
import { pubsub } from './pubsub-driver.js';

/** @typedef {import('./queue-driver.js').QueueDriver} QueueDriver */
/** @typedef {import('./queue-driver.js').QueueFlag} QueueFlag */
/** @typedef {import('./queue-driver.js').QueueSide} QueueSide */
/** @typedef {import('./queue-driver.js').QueueEmulator} QueueEmulator */

/** In the order --help, error lines and the ops table list them (SQS before the route built on it). */
const DRIVERS = [sqs, sns, pubsub];

/**
 * The drivers, or those with a side.
 * @param {QueueSide} [side]
 * @returns {QueueDriver[]}
 */
export function queueDrivers(side) {
  return DRIVERS.filter((d) => !side || d.sides.includes(side));
}

/**
 * @param {string} name a --target value
 * @returns {QueueDriver|undefined}
 */
export function queueDriver(name) {
  return DRIVERS.find((d) => d.name === name);
}

/**
 * Adds a driver after the built-in ones (a test's fake system); the returned function removes it.
 * @param {QueueDriver} driver
 * @returns {() => void}
 */
export function registerQueueDriver(driver) {
  if (queueDriver(driver.name)) throw new Error(`a queue driver named ${driver.name} is registered already`);
  DRIVERS.push(driver);
  return () => {
    const i = DRIVERS.indexOf(driver);
    if (i >= 0) DRIVERS.splice(i, 1);
  };
}

/**
 * Every queue flag a command takes, once each. All drivers' flags, whichever --target: yargs
 * parses one flag set, and a flag another target reads is not an unknown flag. A flag one side
 * only reads is left out of the other side's command.
 * @param {QueueSide} side
 * @returns {Array<[string, QueueFlag]>} by camelCase key, in an order that keeps each driver's own
 */
export function queueFlags(side) {
  return merged(DRIVERS.map((d) => Object.entries(d.options).filter(([, f]) => !f.side || f.side === side)));
}

/**
 * The emulators, once each (SQS and SNS share fauxqs).
 * @returns {QueueEmulator[]}
 */
export function queueEmulators() {
  return [...new Set(DRIVERS.map((d) => d.emulator).filter((e) => e !== undefined))];
}

/**
 * Several drivers' flag lists as one: the first declaration of a key is the one used, and the
 * order keeps every list's own (so --help shows related flags together, whichever driver
 * declared them first); among flags free to go next, the one listed earliest goes first.
 * @param {Array<Array<[string, QueueFlag]>>} lists
 * @returns {Array<[string, QueueFlag]>}
 */
export function merged(lists) {
  /** @type {Map<string, { flag: QueueFlag, rank: number, before: Set<string> }>} */
  const byKey = new Map();
  lists.forEach((list, i) =>
    list.forEach(([key, flag], j) => {
      if (!byKey.has(key)) byKey.set(key, { flag, rank: i * 10_000 + j, before: new Set() });
      if (j > 0) byKey.get(key)?.before.add(list[j - 1][0]);
    }),
  );
  const left = new Set(byKey.keys());
  const out = [];
  const rank = (k) => byKey.get(k)?.rank ?? 0;
  while (left.size) {
    const free = [...left].filter((k) => [...(byKey.get(k)?.before ?? [])].every((b) => !left.has(b)));
    // two lists in opposite orders leave nothing free: the earliest listed goes, and the rest follow
    const next = (free.length ? free : [...left]).sort((a, b) => rank(a) - rank(b))[0];
    left.delete(next);
    out.push(/** @type {[string, QueueFlag]} */ ([next, byKey.get(next)?.flag]));
  }
  return out;
}
