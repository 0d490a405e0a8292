/**
 * A plan is what a command hands its workload: the flags, checked once at the command's edge,
 * with every default and derived value filled in, without yargs' duplicates (aliases, kebab-case
 * keys), and frozen all the way down, so nothing below commands/ can edit it. A workload that
 * needs a value of its own derives a new object from the plan instead.
 */

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
  /** @type {Record<string, any>} */
  const out = {};
  for (const [k, v] of Object.entries(flags)) {
    if (k === '_' || k === '$0' || k.length === 1 || k.includes('-') || v === undefined) continue;
    out[k] = structuredClone(v);
  }
  return deepFreeze(Object.assign(out, structuredClone(fills)));
}
