/**
 * The kinds of experiment step beside the default (`produce`), by their `kind:`. A new kind is one
 * module here (its hooks: kind-contract.js) and its line below.
 */
import * as capacity from './capacity-kind.js';
import * as queue from './queue-kind.js';
import * as load from './load-kind.js';
import * as ops from './ops-kind.js';

/** @type {Record<string, import('./kind-contract.js').StepKind>} */
export const KINDS = { [capacity.name]: capacity, [queue.name]: queue, [load.name]: load, [ops.name]: ops };

/** Every `kind:` a step may name; `produce` is the default. */
export const KIND_NAMES = ['produce', ...Object.keys(KINDS)];

/** Every kind's own step fields. */
export const KIND_FIELDS = [...new Set(Object.values(KINDS).flatMap((k) => k.fields))];

/** Every kind's own spec-wide fields. */
export const KIND_SPEC_FIELDS = [...new Set(Object.values(KINDS).flatMap((k) => k.specFields))];

/**
 * The kind of a step, or null for the default.
 * @param {{ kind?: string }} step
 * @returns {import('./kind-contract.js').StepKind|null}
 */
export function kindOf(step) {
  return KINDS[step.kind] ?? null;
}

/**
 * What a step's directory must hold to be complete: its consumer's run (the default kind), or
 * what its kind reads back.
 * @param {{ kind?: string, consumer?: any }} step
 */
export function needsOf(step) {
  return { consumer: Boolean(step.consumer), kind: kindOf(step) };
}
