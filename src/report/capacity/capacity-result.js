/**
 * What a capacity search leaves for its report: the shapes capacity.json holds, which the search
 * (experiments/capacity/) fills and the report (this folder) reads. Types only: they live here, at
 * the reading end, so the report needs nothing from the search that wrote them.
 */

/**
 * @typedef {object} Criteria
 * @property {number} minAchieved    achieved / target at least this (0.99)
 * @property {number} sloP99Ms       p99 of a chunk from its intended start, at most this
 * @property {number} engineCeiling  % of the CPU its engine can have (projection.js engineCores) it may reach (90)
 * @property {number} nodeCpus       cores each node has (1, or its cap: 0.5 is a node capped at half a core)
 */

/**
 * What a step measured, in the units of the capacity table.
 * @typedef {object} StepFigures
 * @property {number} target       items/s asked
 * @property {number} achieved     items/s acknowledged after the warm-up
 * @property {number} ratio
 * @property {number} failed
 * @property {number|null} p50     ms, a chunk from its intended start
 * @property {number|null} p99
 * @property {NodeEngine[]} nodes
 * @property {NodeEngine|null} busiestMaster
 * @property {NodeEngine|null} busiestReplica
 * @property {number} clientCpu    the busiest writer's CPU, % of one core
 * @property {number} loopP99Ms    the worst event-loop delay p99 of a writer
 * @property {number} exitCode
 */

/**
 * @typedef {{ addr: string, role: string, shard: number, engine: number, process: number|null, basis: 'main thread'|'process' }} NodeEngine
 */

/**
 * @typedef {{ kind: 'engine', node: NodeEngine, pctOfNode: number }
 *   | { kind: 'client' } | { kind: 'latency' } | { kind: 'failures' } | { kind: 'rate' }} Limit
 */

/**
 * @typedef {object} SearchResult
 * @property {number|null} max          the highest rate that held (null: none did)
 * @property {number|null} failedAbove  the lowest rate above it that did not (null: none failed, the ceiling held)
 * @property {'converged'|'ceiling'|'none-held'|'stopped'} end
 */

/**
 * @typedef {object} Confirmation  the boundary re-tested: each end's record, the search's own try counted
 * @property {{ rate: number, held: number, of: number }} at     the highest rate that held
 * @property {{ rate: number, failed: number, of: number }} above the lowest rate above it that did not
 * @property {boolean} confirmed  every try at the rate held, and every try above it failed
 * @property {[number|null, number|null]} interval where the limit lies: [at, above] when confirmed; an
 *   end that did not repeat itself is null (the limit is at or below `at`, or at or above `above`)
 * @property {boolean} stopped   a Ctrl-C cut the re-tests short
 */

/**
 * A trial's noise: the worst of what its runs' noise sentinels saw.
 * @typedef {{ noisy: boolean, outsidePct: number, thresholdPct: number, runs: number, noisyRuns: number }} TrialNoise
 */

export {};
