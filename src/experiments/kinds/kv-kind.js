/**
 * Steps of kind `kv`: `rqbench kv` with the step's flags (its mix or preset, keys, sizes, rate,
 * clients, --read-from), on the spec's Redis (a local one the runner starts, emptied before each
 * step, fresh for a step with cluster actions) or an endpoint. RESULTS.md has a row per step
 * (rate, latency, CPU, the busiest shard's share of the operations) and each step's operations per
 * node; `check:` names the figures of kv-results.js.
 *
 *   kind: kv
 *   topology: { local: { cluster: true, masters: 3, replicas: 1, cpus: 0.25 } }
 *   flags: { preset: ycsb-b, keys: 100000, rate: 20000, t: 2 }
 *   steps:
 *     - { name: uniform, flags: { key-dist: uniform } }
 *     - { name: zipf, flags: { key-dist: "zipf:0.99:scrambled" } }
 */
import fs from 'node:fs';
import { short } from '../../record/format.js';
import { connectionOptions } from '../../plans/connection.js';
import { outputOptions } from '../../plans/output.js';
import { metricsOptions } from '../../plans/metrics-plan.js';
import { kvOptions, kvPlan } from '../../plans/kv-plan.js';
import { stepArgv } from '../command-line.js';
import { newestRun, runsManifest, stepRecord } from '../layout.js';
import { commandLine, relayArgs, runChild } from '../children.js';
import { KindProblem } from './kind-contract.js';
import { commandProblem, fieldOf } from './kind-flags.js';
import { expandAt } from './produce-kind.js';
import { KV_METRICS, kvResults, kvStepMetrics } from './kv-results.js';

export const name = 'kv';
export const fields = [];
export const specFields = [];
export const metrics = KV_METRICS;
export const results = kvResults;
/** @returns {(s: import('./kind-contract.js').StepRun) => Record<string, number|undefined>} */
export const metricsOf = () => (s) => kvStepMetrics(s.r?.summary);

/** Clients that answered less than this share of the operations due did not run the step's load. */
const HELD_RATE = 0.99;
/** Where a step's flags are checked: the kind of address the runner will give. */
const CHECK_URL = 'redis://127.0.0.1:6379';

/**
 * @param {any} _step
 * @param {Record<string, number|undefined>} m medians
 */
export function outOfRegime(_step, m) {
  if (m.achieved_ratio === undefined || m.achieved_ratio >= HELD_RATE) return null;
  return `its clients answered ${Math.round(m.achieved_ratio * 1000) / 10}% of the operations due (median), below ${HELD_RATE * 100}%`;
}

/** @param {import('../spec.js').Topology} t */
export function topologyProblem(t) {
  return t.local || t.url ? null : 'a kv step needs Redis: topology local: or url:';
}

/** A kv step has no fields of its own. */
export function read() {
  return {};
}

/**
 * The step with the spec-wide fields merged in, its flags through kv's own options and checks.
 * @param {Record<string, any>} d the step as read
 * @param {import('./kind-contract.js').CommonFields} common
 */
export function complete(d, { flags, duration, warmup, consumer, at: specAt, topology }) {
  if (consumer || d.consumer) throw new KindProblem(`${d.path}: a kv step has no consumer`);
  const at = d.at ?? specAt;
  const step = { kind: name, name: d.name, label: d.label, duration, warmup, flags, consumer: null, at, varied: [] };
  const fields = fieldOf(d, flags, { duration: `${d.path}.duration (or duration)`, warmup: `${d.path}.warmup (or warmup)`, at: 'at' });
  const argv = argvOf(step, { where: ['--url', CHECK_URL, ...(topology.cluster ? ['--cluster'] : [])], at }, '.');
  const bad = commandProblem(
    argv.slice(2, argv.indexOf('--quiet')),
    (y) => kvOptions(metricsOptions(outputOptions(connectionOptions(y)))),
    kvPlan,
    fields,
    'kv',
  );
  if (bad) throw new KindProblem(bad);
  return step;
}

/**
 * The step's command (relative paths, so it can be pasted from the repo root).
 * @param {any} step
 * @param {{ where: string[], at: string[] }} target
 * @param {string} out the step's directory
 * @returns {string[]} argv after `node`
 */
function argvOf(step, target, out) {
  return stepArgv({
    cli: ['src/cli.js', 'kv'],
    flags: step.flags,
    at: target.at,
    target: target.where,
    length: { duration: step.duration, warmup: step.warmup },
    output: { out, name: 'kv', json: true },
  });
}

/** The local Redis the steps share (fresh for a step with actions), or the endpoint: the produce kind's. */
export { start } from './produce-kind.js';

/**
 * Runs the step's kv command to its end; writes step.json before and after.
 * @param {any} step
 * @param {import('./kind-contract.js').RunContext} ctx
 * @returns {Promise<{ ok: boolean, error?: string }>}
 */
export async function run(step, { stepDir, out, topology, stopper, shared, live, stepLabel }) {
  const keeper = /** @type {import('./produce-kind.js').TopologyKeeper} */ (shared?.keeper);
  // an action changes the cluster's shape: that step gets a cluster of its own, and so does the next one
  const fresh = step.at.length > 0;
  try {
    const target = await keeper.get(fresh, stopper);
    if (stopper.stopped) return { ok: false, error: 'interrupted' };
    const at = await expandAt(step, target, topology);
    fs.mkdirSync(stepDir, { recursive: true });
    const argv = argvOf(step, { where: ['--url', target.url, ...(topology.cluster ? ['--cluster'] : [])], at }, out);
    const meta = {
      name: step.name,
      label: step.label,
      kind: name,
      startedAt: new Date().toISOString(),
      commands: [commandLine('node', argv)],
      ok: false,
    };
    const save = stepRecord(stepDir, meta);
    const r = await runChild([...argv, ...relayArgs(live, stepLabel)], stopper, { hub: live?.hub });
    // exit 1 with a summary: a run that measured, and some operations failed (its summary says which)
    const summary = newestRun(stepDir, 'kv').doc;
    const finished = r.code === 0 || (r.code === 1 && Boolean(summary?.outcome));
    const failed = finished && summary ? (summary.totals?.failed ?? 0) + (summary.totals?.unacked ?? 0) : 0;
    const error = !finished
      ? `rqbench kv exited with ${r.code ?? r.signal}: ${r.lastLine}`
      : failed
        ? `${failed} operations failed or were not answered (${summary.outcome?.problems?.join('; ') ?? ''}): the step measured nothing its check can compare`
        : null;
    Object.assign(meta, { endedAt: new Date().toISOString(), exitCodes: [r.code ?? r.signal], ok: !error && !stopper.stopped });
    if (error) meta.error = finished ? error : r.lastLine;
    save();
    return error ? { ok: false, error } : { ok: true };
  } finally {
    if (fresh) await keeper.release();
  }
}

/**
 * The step's run directory and summary.json; complete when the run ended without an interruption.
 * @param {string} stepDir
 * @param {any} meta step.json
 */
export function readBack(stepDir, meta) {
  const { dir: kvDir, doc: summary } = newestRun(stepDir, 'kv');
  return { kvDir, summary, complete: Boolean(summary) && !summary.interrupted && meta?.ok === true };
}

/** @param {import('./kind-contract.js').StepRun[]} steps */
export function manifest(steps) {
  return runsManifest(steps.filter((x) => x.r?.complete).map((x) => x.r.kvDir));
}

/** The charts: each step's kv run, laid end to end. @param {import('./kind-contract.js').StepRun[]} done */
export const chartDirs = (done) => done.map((s) => s.r.kvDir);
/** @param {any} step */
export const nominalSeconds = (step) => step.duration;
/** @param {any} step */
export const what = (step) => `${step.duration} s`;
/** @param {any} step */
export const details = (step) => (step.at.length ? [`at ${step.at.join(' ')}`] : []);
/** @param {any} r */
export const figures = (r) => {
  const s = r?.summary;
  if (!s) return 'no summary';
  const m = kvStepMetrics(s);
  const share =
    m.top_shard_ops_share === undefined ? '' : `, busiest shard ${Math.round(m.top_shard_ops_share * 1000) / 10}% of the operations`;
  return `${short(m.achieved)}/${short(m.target)} operations/s, master CPU ${m.master_cpu ?? '-'}%, busiest master ${m.top_master_cpu ?? '-'}%${share}`;
};
/** @param {import('../spec.js').Spec} spec */
export const commandsNote = (spec) =>
  spec.topology.local
    ? 'The `--url` is the local server the runner started for the run (a new port each time), emptied (FLUSHALL) before every step.'
    : '';
export const setupWords = { starter: 'started by the runner', each: ', each' };
