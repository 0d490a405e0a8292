/**
 * A load or ops step's flags through its command's own options and checks (the same yargs
 * options and plan the command runs with), a problem coming back as the command's one line with
 * its flag replaced by the spec field the flag came from.
 */
import { UsageError } from '../../usage-error.js';
import { parseQuietly } from '../flags.js';

/**
 * @param {string[]} argv the command's flags, as the step will run them (no positionals)
 * @param {(y: import('yargs').Argv) => import('yargs').Argv} build the command's options
 * @param {(a: Record<string, any>) => unknown} check the command's plan (throws UsageError)
 * @param {(flag: string) => string} pathOf a flag as the command names it ('reader-threads') → its spec field
 * @param {string} command 'load', 'ops'
 * @returns {string|null}
 */
export function commandProblem(argv, build, check, pathOf, command) {
  const { a, failure, unknown, notNumber } = parseQuietly(argv, build);
  // "--reader-threads must be …": the first flag names the field
  const named = (/** @type {string} */ line) => line.replace(/^-{1,2}([A-Za-z][\w-]*)/, (_m, name) => pathOf(name));
  if (failure) {
    if (unknown) return `${pathOf(unknown)} is not a flag of rqbench ${command} (see rqbench ${command} --help)`;
    const needs = /^Not enough arguments following: (\S+)/.exec(failure);
    return needs ? `${pathOf(needs[1])} needs a value` : named(failure);
  }
  if (notNumber) return named(notNumber);
  try {
    check(/** @type {Record<string, any>} */ (a));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return named(e.message);
  }
  return null;
}

/**
 * The flag map with lists written as the commands take them: `reader-threads: [1, 2, 4]` → "1,2,4".
 * @param {Record<string, any>} flags
 * @param {string[]} keys the flags that take a comma-separated list
 */
export function joinLists(flags, keys) {
  return Object.fromEntries(Object.entries(flags).map(([k, v]) => [k, keys.includes(k) && Array.isArray(v) ? v.join(',') : v]));
}

/**
 * The spec field a flag came from: the step's flags, the spec's flags, or a field the runner
 * turns into that flag; otherwise the step's flags, with the flag named.
 * @param {Record<string, any>} d the step as read (its path, and flagPaths: where each of its flags was written)
 * @param {Record<string, any>} flags the step's flags merged with the spec's
 * @param {Record<string, string>} runnerFields flag → the field it comes from
 * @returns {(flag: string) => string}
 */
export function fieldOf(d, flags, runnerFields) {
  return (flag) =>
    d.flagPaths[flag] ?? (flags[flag] !== undefined ? `flags.${flag}` : (runnerFields[flag] ?? `${d.path}.flags (--${flag})`));
}
