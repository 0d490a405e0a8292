/**
 * A spec's flag maps ({ q: 20000, sl: true }) → the CLIs' argv, checked by the CLIs' own yargs
 * options and checks, so a spec accepts exactly what `node src/producer.js` accepts and a bad value
 * gets the same words — with the spec's field path instead of the flag.
 */
import yargs from 'yargs';
import { connectionOptions, checkConnection } from '../plans/connection.js';
import { producerOptions, checkProducer } from '../plans/producer-plan.js';
import { MODEL_FLAGS as STORE_MODEL_FLAGS } from '../workloads/items/stores/registry.js';
import { consumerOptions, checkConsumer } from '../plans/consumer-plan.js';
import { outputOptions } from '../plans/output.js';
import { COMMON_PARTS, ownedFlags, toArgs } from './command-line.js';
import { choicesLine, numberWordProblem } from '../usage-error.js';

export { toArgs };

/** Flags the runner sets itself (target, length, actions, output): a spec sets them in its own fields. */
const RUNNER_OWNED = ownedFlags(COMMON_PARTS);

/** Data-model flags the consumer takes from the producer's step (it must read what was written). */
export const MODEL_FLAGS = ['actual-value', 'ns', 'same-slot', ...STORE_MODEL_FLAGS, 'ttl'];

/**
 * @typedef {Record<string, string|number|boolean|Array<string|number>>} FlagMap
 * @typedef {{ key: string, path: string }} FlagOrigin  the spec field a flag came from
 */

/**
 * Checks one flag map's keys and value types before the CLI's checks see it.
 * @param {unknown} flags
 * @param {string} path e.g. 'steps[2].flags'
 * @returns {string|null} the problem, path first, or null
 */
export function flagMapProblem(flags, path) {
  if (flags === undefined || flags === null) return null;
  if (typeof flags !== 'object' || Array.isArray(flags)) return `${path} must be a map of flags (e.g. { q: 20000, sl: true })`;
  for (const [k, v] of Object.entries(flags)) {
    if (RUNNER_OWNED.has(k)) {
      const where = RUNNER_OWNED.get(k);
      return `${path}.${k} is set by the runner${where ? ` (use the spec's ${where}: field)` : ''}`;
    }
    const ok = (x) => ['string', 'number', 'boolean'].includes(typeof x);
    if (!(ok(v) || (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')))) {
      return `${path}.${k} must be a number, a string, true/false or a list`;
    }
  }
  return null;
}

/**
 * Parses argv with a CLI's options without printing or exiting: the parsed flags, or the first
 * line of what yargs found wrong (and the flag it did not know, as yargs names it).
 * @param {string[]} argv
 * @param {(y: import('yargs').Argv) => import('yargs').Argv} options adds the CLI's options
 * @returns {{ y: import('yargs').Argv, a: Record<string, any>|undefined, failure: string|null, unknown: string|null, notNumber: string|null }}
 */
export function parseQuietly(argv, options) {
  let failure = null;
  const y = options(
    yargs(argv)
      .exitProcess(false)
      .help(false)
      .version(false)
      .strict()
      .fail((msg, err) => {
        const text = err?.message || msg || 'invalid flags';
        failure = choicesLine(text, argv) ?? text.split('\n')[0];
      }),
  );
  /** @type {Record<string, any>|undefined} */
  let a;
  try {
    a = y.parseSync();
  } catch (e) {
    failure ??= e.message.split('\n')[0];
  }
  const unknown = failure ? (/^Unknown arguments?: ([^,\s]+)/.exec(failure)?.[1] ?? null) : null;
  // a number flag whose value is no number as typed (yargs read it as NaN, or a blank as 0): its
  // line starts with the flag, for the caller to name as its field
  const notNumber = failure ? null : numberWordProblem(argv, y.getOptions());
  return { y, a, failure, unknown, notNumber };
}

/**
 * Parses argv with a CLI's options and runs its checks; a problem comes back as one line whose
 * flag is replaced by the spec field it came from.
 * @param {'producer'|'consumer'} cli
 * @param {string[]} argv
 * @param {(flag: string) => string} pathOf maps a flag name as the CLI names it ('q', 'quantity', 'same-slot') to a field path
 * @returns {string|null}
 */
export function cliProblem(cli, argv, pathOf) {
  const opts = (y) => outputOptions(cli === 'producer' ? producerOptions(connectionOptions(y)) : consumerOptions(connectionOptions(y)));
  const { y, a, failure, unknown, notNumber } = parseQuietly(argv, opts);
  /** "-q must be …", "--same-slot must be …", "--sl with --ss must be …": the first flag names the field */
  const named = (/** @type {string} */ line) =>
    line.replace(/^-{1,2}([A-Za-z][\w-]*)/, (_m, name) => {
      const group = Object.entries(y.getOptions().alias).find(([k, al]) => k === name || al.includes(name));
      const names = group ? [group[0], ...group[1]] : [name];
      return pathOf(names.join('|'));
    });
  if (failure) return unknown ? `${pathOf(unknown)} is not a ${cli} flag (see node src/${cli}.js --help)` : named(failure);
  if (notNumber) return named(notNumber);
  try {
    checkConnection(a);
    (cli === 'producer' ? checkProducer : checkConsumer)(a);
  } catch (e) {
    return named(e.message);
  }
  return null;
}
