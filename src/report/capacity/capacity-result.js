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
 * @property {'items'|'operations'} [unit]  what the rates count: a producer's items (the default) or a kv workload's operations
 */

/**
 * What a step measured, in the units of the capacity table.
 * @typedef {object} StepFigures
 * @property {number} target       items/s asked
 * @property {number} achieved     items/s acknowledged after the warm-up
 * @property {number} ratio
 * @property {number} failed
 * @property {number|null} p50     ms, a chunk (a kv run: any operation) from its intended start
 * @property {number|null} p99
 * @property {NodeEngine[]} nodes
 * @property {NodeEngine|null} busiestMaster
 * @property {NodeEngine|null} busiestReplica
 * @property {number} clientCpu    the busiest writer's CPU, % of one core
 * @property {number} loopP99Ms    the worst event-loop delay p99 of a writer
 * @property {number} exitCode
 * @property {OpsShare|null} [busiestOps]  a kv search's: the node that took the most operations, and its share
 */

/**
 * @typedef {{ addr: string, role: string|null, shard: number|null, opsShare: number }} OpsShare
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
 * @typedef {object} Confirmation  the boundary re-tested (the first round: at, above, confirmed,
 *   interval), then each end that did not repeat itself widened into a calibrated bracket
 * @property {{ rate: number, held: number, of: number }} at     the first round at the highest rate that held, the search's own try counted
 * @property {{ rate: number, failed: number, of: number }} above the first round at the lowest rate above it that did not
 * @property {boolean} confirmed  in the first round every try at the rate held, and every try above it failed
 * @property {[number|null, number|null]} interval where the first round puts the limit: [at, above] when confirmed; an
 *   end that did not repeat itself is null (the limit is at or below `at`, or at or above `above`)
 * @property {boolean} stopped   a Ctrl-C cut the re-tests short
 * @property {[number|null, number|null]} bracket where the limit lies, calibrated: the highest rate at which every
 *   try held, the lowest at which every try failed; null for an end that never repeated itself (see its outcome)
 * @property {number|null} width  (bracket[1] − bracket[0]) / bracket[0]; null while an end is null
 * @property {{ rates: Array<{ rate: number, held: number, of: number }>, outcome: EndOutcome }} lower every rate
 *   tried at the lower end, in order (the first is `at`; a widened rate is tried `--confirm` times, or until a try fails)
 * @property {{ rates: Array<{ rate: number, failed: number, of: number }>, outcome: EndOutcome }} upper the same
 *   above (the first is `above`; failed counts the tries that did not hold)
 */

/**
 * How an end of the bracket ended: 'repeated' every try at its last rate went its way (the end
 * stands); 'moves' it moved out as often as it may and still did not; 'floor' / 'ceiling' it could
 * move no further (no lower rate, --max-rate); 'stopped' a Ctrl-C came first.
 * @typedef {'repeated'|'moves'|'floor'|'ceiling'|'stopped'} EndOutcome
 */

/**
 * A trial's noise: the worst of what its runs' noise sentinels saw.
 * @typedef {{ noisy: boolean, outsidePct: number, thresholdPct: number, runs: number, noisyRuns: number }} TrialNoise
 */

export {};
