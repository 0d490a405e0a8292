/**
 * The kinds of experiment step, by their `kind:`; `produce` (the Redis producer and its consumer)
 * is the default. A new kind is one module here (its hooks: kind-contract.js) and its line below.
 */
import * as produce from './produce-kind.js';
import * as capacity from './capacity-kind.js';
import * as queue from './queue-kind.js';
import * as load from './load-kind.js';
import * as ops from './ops-kind.js';
import * as kv from './kv-kind.js';

/** @type {Record<string, import('./kind-contract.js').StepKind>} */
export const STEP_KINDS = {
  [produce.name]: produce,
  [capacity.name]: capacity,
  [queue.name]: queue,
  [load.name]: load,
  [ops.name]: ops,
  [kv.name]: kv,
};

/** The kind of a step that names none. */
export const DEFAULT_STEP_KIND = produce.name;

/** Every `kind:` a step may name. */
export const STEP_KIND_NAMES = Object.keys(STEP_KINDS);

/** Every kind's own step fields. */
export const STEP_KIND_FIELDS = [...new Set(Object.values(STEP_KINDS).flatMap((k) => k.fields))];

/** Every kind's own spec-wide fields. */
export const STEP_KIND_SPEC_FIELDS = [...new Set(Object.values(STEP_KINDS).flatMap((k) => k.specFields))];

/**
 * The kind of a step (a checked spec's steps always name one; a draft without one is the default's).
 * @param {{ kind?: string }} step
 * @returns {import('./kind-contract.js').StepKind}
 */
export function stepKindOf(step) {
  return STEP_KINDS[step.kind ?? DEFAULT_STEP_KIND];
}
