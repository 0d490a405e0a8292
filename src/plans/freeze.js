/**
 * A plan is what a command hands its workload: the flags, checked once at the command's edge,
 * with every default and derived value filled in, without yargs' duplicates (aliases, kebab-case
 * keys), and frozen all the way down, so nothing below commands/ can edit it. A workload that
 * needs a value of its own derives a new object from the plan instead.
 */

import { cleanFlags } from '../harness/manifest.js';

/**
 * @template T
 * @param {T} v
 * @returns {Readonly<T>}
 */
export function deepFreeze(v) {
  if (v && typeof v === 'object' && !Object.isFrozen(v) && !Buffer.isBuffer(v)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * The plan of parsed flags: their own keys (camelCase, as the code reads them) and `fills`
 * (defaults and values the checks worked out), frozen. The flags object is left as it was.
 * @param {Readonly<Record<string, any>>} flags parsed by yargs
 * @param {Record<string, any>} [fills]
 * @returns {Readonly<Record<string, any>>}
 */
export function planOf(flags, fills = {}) {
  // the flags as the manifest records them: what the plan holds is what the run says it ran with
  return deepFreeze(structuredClone({ ...cleanFlags(flags), ...fills }));
}
