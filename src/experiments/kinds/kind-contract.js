/**
 * What a kind of experiment step declares — the default `produce` (the Redis producer and its
 * consumer) as much as capacity, queue, load and ops. A new kind of step is one module here and
 * its line in kinds.js, as a data model is one module in stores/models/. Every hook is the
 * runner's or the report's only way into the kind: trials, statistics and verdicts know none.
 *
 * @typedef {object} StepKind
 * @property {string} name              the step's `kind:`
 * @property {string[]} fields          its own step fields, beside name, label, flags, consumer, duration, warmup
 * @property {string[]} specFields      its own spec-wide fields (defaults for its steps, table settings)
 * @property {(t: import('../spec.js').Topology) => string|null} topologyProblem  why the spec's topology
 *   cannot carry this kind (a queue step needs a queue service, a capacity step Redis), or null
 * @property {(s: Record<string, any>, p: string, raw: Record<string, any>) => Record<string, any>} read
 *   its own fields of step `s` (at path `p`), spec-wide defaults merged from `raw`; throws KindProblem
 * @property {(d: Record<string, any>, common: CommonFields) => Record<string, any>} complete  the step
 *   with the common fields merged in, through its CLI's own checks; throws KindProblem naming the field
 * @property {(raw: Record<string, any>) => Record<string, any>} [readSpec]  spec-wide values the report needs
 * @property {(step: any, ctx: RunContext) => Promise<{ ok: boolean, error?: string }>} run  runs the
 *   step to its end with the real CLIs, writing step.json before and after
 * @property {(spec: import('../spec.js').Spec, ctx: { log: (line: string) => void, signal: AbortSignal }) => Promise<Shared>} [start]
 *   servers the kind's steps share (an emulator), started once before the first step that runs
 * @property {(stepDir: string, meta: any, step: any) => { complete: boolean } & Record<string, any>} readBack
 *   what a finished step's directory holds (meta: its step.json)
 * @property {Record<string, string>} metrics  metric name → what it is, for `check:`
 * @property {string} [headline]  its main figure (a metric): a spec without a check shows it over every trial
 * @property {string} [shownBy]  the figure a step's tables pick their trial by (its median one) when the check
 *   names none of that step's (defaults to headline)
 * @property {string[]} [counts]  the metrics that are counts, not timings (Redis's instructions per item): a
 *   check on them is decided by the counter's rule, not a test built for noisy figures (verdict.js)
 * @property {(spec: import('../spec.js').Spec, steps: StepRun[]) => (s: StepRun) => Record<string, number|undefined>} metricsOf
 * @property {(spec: import('../spec.js').Spec, steps: StepRun[]) => Promise<string[]>} results  RESULTS.md's Results section
 * @property {(steps: StepRun[]) => any|null} manifest  a run manifest for the host line
 * @property {(step: any, medians: Record<string, number|undefined>) => string|null} [outOfRegime]  why a step
 *   did not run in the seed's regime (its writers fell short of the rate, its consumer fell behind, its
 *   cells were too short to measure), from the medians of its trials' metrics; null: it did. Such a
 *   step cannot decide a verdict: every comparison that names it is inconclusive
 * @property {(done: StepRun[]) => string[]} [chartDirs]  the run directory of each complete step the
 *   charts are drawn from (rqbench chart's kinds), laid end to end; none: no charts
 * @property {(step: any) => number} nominalSeconds  how long the step should take, for the ETA
 * @property {(step: any) => string} what           how the progress line names the step's length
 * @property {(step: any) => string[]} [details]    the progress line's words beside the trial (a consumer alongside, actions)
 * @property {(r: StepRun['r']) => string} figures  the progress line's figures when it ends
 * @property {(spec: import('../spec.js').Spec) => string} commandsNote  under the Commands block
 * @property {(spec: import('../spec.js').Spec) => string} [setupWhere]  RESULTS.md's setup line: where the steps ran, when not Redis
 * @property {{ starter: string, each: string }} setupWords  RESULTS.md's setup line: who started a local
 *   topology, and how the steps are counted (", each" / " capacity searches, each run")
 * @property {(spec: import('../spec.js').Spec) => string} [setupSteps]  RESULTS.md's setup line: what the
 *   steps are, for steps that do not run for a duration (instead of "N, each 6 s with 1 s warm-up")
 *
 * @typedef {{ flags: Record<string, any>, consumer: Record<string, any>|null, duration: number, warmup: number, at: string[], topology: import('../spec.js').Topology,
 *   origins: Record<string, string> }} CommonFields  origins: the spec field each of the merged flags was written in
 * @typedef {{ endpoint?: string|null, stop: () => Promise<void> } & Record<string, any>} Shared  what a kind's start() gave its steps
 * @typedef {{ stepDir: string, out: string, topology: import('../spec.js').Topology, stopper: import('../children.js').Stopper, shared: Shared|null,
 *   live?: { hub: any, runId: string }|null, stepLabel?: string }} RunContext  live: the runner's metrics endpoint its CLIs relay to
 *   (children.js relayArgs), labelled step=stepLabel; a kind whose CLI is a runner itself (capacity) does not relay
 * @typedef {{ step: any, r: any|null }} StepRun
 */

/** A mistake in a step of this kind: spec.js turns it into the spec's one line. */
export class KindProblem extends Error {}
