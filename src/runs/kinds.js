/**
 * Every kind of run directory rqbench writes, one module each (runs/<kind>/<kind>-run.js, the
 * contract in run-kind.js), in the order --help and messages list them. manifest.json's `kind`
 * names one; the reports read a directory only through its kind's module.
 *
 * A new kind of run directory is a folder runs/<kind>/ whose module exports its RunKind, and its
 * line below.
 */
import { UsageError, shown } from '../usage-error.js';
import { queueDrivers } from '../transports/queue-drivers.js';
import { produceRun } from './produce/produce-run.js';
import { consumeRun } from './consume/consume-run.js';
import { queuePublishRun } from './queue-publish/queue-publish-run.js';
import { queueConsumeRun } from './queue-consume/queue-consume-run.js';
import { loadRun } from './load/load-run.js';
import { opsRun } from './ops/ops-run.js';
import { kvRun } from './kv/kv-run.js';

/** @typedef {import('./run-kind.js').RunKind} RunKind */
/** @typedef {import('./run-kind.js').ReadableKind} ReadableKind */

/** @type {RunKind[]} */
export const RUN_KINDS = [produceRun, consumeRun, queuePublishRun, queueConsumeRun, loadRun, opsRun, kvRun];

/** The names manifest.json's `kind` may hold. */
export const RUN_KIND_NAMES = RUN_KINDS.map((k) => k.name);

/** @type {ReadableKind[]} the kinds the reports read back */
export const READABLE_KINDS = /** @type {ReadableKind[]} */ (RUN_KINDS.filter((k) => k.readable));

/** The kinds the reports read, in words, for messages. */
const ACCEPTED = `reports read ${READABLE_KINDS.map((k) => k.name.replace('-', ' '))
  .join(', ')
  .replace(/, ([^,]*)$/, ' and $1')} runs`;

/**
 * A kind the reports read, by name.
 * @param {string} name a name kindOf() gave
 * @returns {ReadableKind}
 */
export function readKind(name) {
  const kind = READABLE_KINDS.find((k) => k.name === name);
  if (!kind) throw new TypeError(`not a kind of run the reports read: ${name}`);
  return kind;
}

/**
 * The kind of a run directory: manifest.json's `kind` when it has one, otherwise its `command`
 * and `flags.target` (a queue run is `produce` or `consume` with --target sns|sqs|pubsub).
 * @param {string} dir for messages
 * @param {Record<string, any>} manifest parsed, an object with a string `command` (or a `kind`)
 * @returns {string} the name of a kind the reports read
 * @throws {UsageError} for kinds the reports do not read (load, ops: their summary.md is their report), and anything else
 */
export function kindOf(dir, manifest) {
  const name = manifest.kind !== undefined ? manifest.kind : inferred(dir, manifest);
  const kind = RUN_KINDS.find((k) => k.name === name);
  if (typeof name !== 'string' || !kind) {
    throw new UsageError(`${dir}: manifest.json kind must be one of ${RUN_KIND_NAMES.join(', ')} (got ${shown(String(name))})`);
  }
  if (!kind.readable)
    throw new UsageError(
      `${dir}: ${/** @type {import('./run-kind.js').UnreadableKind} */ (kind).why}; ${ACCEPTED} (its own table is in summary.md)`,
    );
  return name;
}

/**
 * A kind told from a manifest written before manifests had one: the command, and the target of a queue run.
 * @param {string} dir
 * @param {Record<string, any>} manifest
 */
function inferred(dir, manifest) {
  const { command } = manifest;
  if (RUN_KINDS.some((k) => !k.readable && k.name === command)) return command;
  if (command !== 'produce' && command !== 'consume')
    throw new UsageError(`${dir}: manifest.json names command ${shown(String(command))}; ${ACCEPTED}`);
  const flags = manifest.flags !== null && typeof manifest.flags === 'object' ? manifest.flags : {};
  const target = flags.target ?? 'redis';
  if (target === 'redis') return command;
  const targets = queueDrivers().map((d) => d.name);
  if (!targets.includes(target))
    throw new UsageError(`${dir}: manifest.json names target ${shown(String(target))}; reports read redis, ${targets.join(', ')} runs`);
  return command === 'produce' ? queuePublishRun.name : queueConsumeRun.name;
}

/**
 * The seconds [fromSecond, toSecond) a summary's figures cover. A Redis summary says so in whole
 * seconds. A queue summary's window may end inside a second (a consumer done before its
 * --duration): that last second is in its totals, so toSecond is the next whole one.
 * @param {Record<string, any>} summary checked by its kind's checkSummary
 * @returns {{ fromSecond: number, toSecond: number }}
 */
export function windowOf(summary) {
  const w = summary.window;
  if (w.fromSecond !== undefined) return { fromSecond: w.fromSecond, toSecond: w.toSecond };
  return { fromSecond: w.fromS, toSecond: Math.max(w.fromS, Math.ceil(w.toS)) };
}
