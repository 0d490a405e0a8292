/**
 * Runs an experiment's steps, one after another, by spawning the real CLIs (the same commands a
 * person would type), against a local Redis this process starts and stops, or an endpoint.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from '../local/local-redis.js';
import { cpuCapProblem, cpusAccepted, describeCap, validCpus } from '../local/cpu-cap.js';
import { UsageError } from '../usage-error.js';
import { toArgs } from './flags.js';
import { latestRun, newestRun, readStep, runsDir, setAside, stamp, stepRecord } from './layout.js';
import { kindOf, needsOf } from './kinds/kinds.js';
import { Progress } from './progress.js';
import { Stopper, relayArgs, runChild } from './children.js';
import { newSeed, readManifest, schedule, trialDir, writeManifest } from './trials.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The consumer and producer start together on this shared --start-at: long enough for -t writers to spawn. */
const START_DELAY_MS = 2500;

/**
 * @typedef {{ runDir: string, ran: number, skipped: number, failed: string|null, interrupted: boolean }} RunOutcome  ran, skipped: trials
 */

/**
 * Runs every step `repeat` times, interleaved round by round in a seeded shuffled order
 * (trials.js); each trial in its own directory. `--resume` goes on with the newest run's own
 * trials and order, skipping the trials that completed and re-running the rest.
 * @param {import('./spec.js').Spec} spec
 * @param {{ resume?: boolean, log?: (line: string) => void, live?: { hub: any, runId: string }|null, stepPrefix?: string, repeat?: number, seed?: number }} [opts]
 *   live: the runner's metrics endpoint, which every step's CLIs relay to (labelled step=<prefix><step>);
 *   repeat: trials per step (default: the spec's); seed: of the shuffle (default: a new one)
 * @returns {Promise<RunOutcome>}
 */
export async function runExperiment(spec, { resume = false, log = (l) => process.stderr.write(`${l}\n`), live = null, stepPrefix = '', repeat, seed } = {}) {
  let previous = resume ? latestRun(spec.dir) : null;
  if (resume && !previous) log('rqbench experiment: nothing to resume, starting a new run');
  if (previous && !readManifest(previous)) {
    log(`rqbench experiment: ${path.relative(process.cwd(), previous)} was made before trials: starting a new run`);
    previous = null;
  }
  const runDir = previous ?? path.join(runsDir(spec.dir), stamp());
  fs.mkdirSync(runDir, { recursive: true });
  const manifest = previous ? /** @type {import('./trials.js').TrialManifest} */ (readManifest(previous)) : newManifest(spec, repeat ?? spec.repeat, seed ?? newSeed());
  if (!previous) writeManifest(runDir, manifest);
  const byName = new Map(spec.steps.map((s) => [s.name, s]));
  const todo = manifest.order.filter((slot) => byName.has(slot.step)).map((slot) => {
    const step = /** @type {import('./spec.js').Step} */ (byName.get(slot.step));
    const dir = trialDir(runDir, step.name, slot.trial);
    const done = readStep(dir, needsOf(step)).complete;
    if (!done && previous) setAside(dir);
    return { step, dir, slot, done };
  });
  log(`rqbench experiment: ${spec.steps.length} step(s) x ${manifest.repeat} trial(s), interleaved (seed ${manifest.seed}) into ${path.relative(process.cwd(), runDir) || runDir}`);
  const progress = new Progress(todo.filter((t) => !t.done).map((t) => t.step), log);
  const stopper = new Stopper(log);
  const topo = new TopologyKeeper(spec.topology, log);
  /** @type {RunOutcome} */
  const outcome = { runDir, ran: 0, skipped: 0, failed: null, interrupted: false };
  /** what the kind's steps share (an emulator), started before the first step that runs */
  let shared = null;
  try {
    for (const t of todo) {
      const trial = `trial ${t.slot.trial}/${manifest.repeat}`;
      if (t.done) {
        outcome.skipped++;
        log(`rqbench experiment: ${t.step.name} ${trial} already complete in ${path.relative(process.cwd(), t.dir)}, skipped`);
        continue;
      }
      if (stopper.stopped) break;
      let result;
      const kind = kindOf(t.step);
      if (kind) {
        // a step of another kind runs its own CLIs (a capacity search starts its own local servers)
        if (!shared && kind.start) shared = await kind.start(spec, { log, signal: stopper.signal });
        if (stopper.stopped) break;
        progress.begin(t.step, trial);
        result = await kind.run(t.step, { stepDir: t.dir, out: relativeOut(t.dir), topology: spec.topology, stopper, shared, live, stepLabel: `${stepPrefix}${t.step.name}` });
      } else {
        // an action changes the cluster's shape: that step gets a cluster of its own, and so does the next one
        const fresh = t.step.at.length > 0;
        const target = await topo.get(fresh, stopper);
        if (stopper.stopped) break;
        progress.begin(t.step, trial);
        result = await runStep(t.step, t.dir, await expandAt(t.step, target, spec.topology), spec.topology.cluster, stopper, { live, stepLabel: `${stepPrefix}${t.step.name}` });
        if (fresh) await topo.release();
      }
      progress.end(t.step, readStep(t.dir, needsOf(t.step)));
      if (stopper.stopped) break;
      if (!result.ok) {
        outcome.failed = `${t.step.name} (${trial}): ${result.error}`;
        break;
      }
      outcome.ran++;
    }
  } finally {
    await shared?.stop();
    await topo.release();
    stopper.dispose();
  }
  outcome.interrupted = stopper.stopped;
  return outcome;
}

/**
 * @param {import('./spec.js').Spec} spec
 * @param {number} repeat
 * @param {number} seed
 * @returns {import('./trials.js').TrialManifest}
 */
function newManifest(spec, repeat, seed) {
  return { repeat, seed, noiseThreshold: spec.noise, startedAt: new Date().toISOString(), order: schedule(spec.steps.map((s) => s.name), repeat, seed) };
}

/**
 * What `run` needs of this machine beyond the spec, checked before anything is written: a CPU cap
 * within its cores, and the right to set it.
 * @param {import('./spec.js').Spec} spec
 * @throws {UsageError} one line naming the file and the field
 */
export function checkCanRun(spec) {
  const caps = [['topology.local.cpus', spec.topology.local?.cpus], ...spec.steps.map((s, i) => [`steps[${i}].cpus`, s.cpus])].filter(([, c]) => c);
  for (const [field, cpus] of caps) {
    if (!validCpus(cpus)) throw new UsageError(`${spec.file}: ${field} must be ${cpusAccepted()} on this machine (got ${cpus})`);
    const problem = cpuCapProblem();
    if (problem) throw new UsageError(`${spec.file}: ${field}: ${problem}`);
  }
}


/**
 * Starts the spec's local Redis when needed (fresh when asked), or points at the endpoint.
 */
class TopologyKeeper {
  /**
   * @param {import('./spec.js').Topology} topology
   * @param {(line: string) => void} log
   */
  constructor(topology, log) {
    this.topology = topology;
    this.log = log;
    /** @type {Awaited<ReturnType<typeof startRedis>>|null} */
    this.local = null;
  }

  /**
   * @param {boolean} fresh
   * @param {Stopper} stopper
   * @returns {Promise<{ url: string, local: any }>}
   */
  async get(fresh, stopper) {
    if (!this.topology.local) return { url: this.topology.url, local: null };
    if (fresh) await this.release();
    if (!this.local) {
      const { cluster, masters, replicas, cpus } = this.topology.local;
      const started = Date.now();
      this.local = await startRedis({ cluster, masters, replicas, ...(cpus && { cpus }), signal: stopper.signal });
      const cap = cpus ? `, ${describeCap(cpus)}` : '';
      this.log(`rqbench experiment: started a ${this.topology.label} at ${this.local.url}${cap} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
    return { url: this.local.url, local: this.local };
  }

  async release() {
    const l = this.local;
    this.local = null;
    await l?.stop();
  }
}

/**
 * A bare `add-shard` on a local cluster: the runner starts the new nodes (it owns the local
 * servers; the CLI it spawns does not) and names them, as on a real cluster.
 * @param {import('./spec.js').Step} step
 * @param {{ url: string, local: any }} target
 * @param {import('./spec.js').Topology} topology
 * @returns {Promise<{ url: string, at: string[] }>}
 */
async function expandAt(step, target, topology) {
  const at = [];
  for (const a of step.at) {
    const m = /^([\d.]+):add-shard$/.exec(a);
    if (m && target.local?.addNodes) {
      const nodes = await target.local.addNodes(1 + topology.local.replicas);
      at.push(`${m[1]}:add-shard:${nodes.map((n) => `${n.host}:${n.port}`).join(',')}`);
    } else at.push(a);
  }
  return { url: target.url, at };
}

/**
 * A step directory as a command names it: relative to the repo root when inside it, so the
 * commands can be pasted from there.
 * @param {string} stepDir
 */
function relativeOut(stepDir) {
  const rel = path.relative(ROOT, path.resolve(stepDir));
  return rel.startsWith('..') ? path.resolve(stepDir) : rel;
}

/**
 * The commands of one step, as run (relative paths, so they can be pasted from the repo root).
 * @param {import('./spec.js').Step} step
 * @param {string} stepDir
 * @param {{ url: string, at: string[] }} target
 * @param {boolean} cluster
 * @param {number|null} startAt
 * @returns {Array<{ role: 'producer'|'consumer', argv: string[] }>}
 */
export function stepCommands(step, stepDir, target, cluster, startAt) {
  const out = relativeOut(stepDir);
  const common = (role) => [
    '--url', target.url, ...(cluster ? ['--cluster'] : []), '-d', String(step.duration), '--warmup', String(step.warmup),
    ...(startAt ? ['--start-at', String(startAt)] : []), '--json', '--quiet', '--out', out, '--name', role,
  ];
  /** @type {Array<{ role: 'producer'|'consumer', argv: string[] }>} */
  const cmds = [{ role: /** @type {const} */ ('producer'), argv: ['src/producer.js', ...toArgs(step.flags), ...target.at.flatMap((x) => ['--at', x]), ...common('producer')] }];
  if (step.consumer) cmds.push({ role: 'consumer', argv: ['src/consumer.js', ...toArgs(step.consumer), ...common('consumer')] });
  return cmds;
}

/**
 * Runs a step's producer (and consumer) to their end; writes step.json before and after.
 * @param {import('./spec.js').Step} step
 * @param {string} stepDir
 * @param {{ url: string, at: string[] }} target
 * @param {boolean} cluster
 * @param {Stopper} stopper
 * @param {{ live: { hub: any, runId: string }|null, stepLabel: string }} metrics where the step's CLIs relay their live metrics
 * @returns {Promise<{ ok: boolean, error?: string }>}
 */
async function runStep(step, stepDir, target, cluster, stopper, { live, stepLabel }) {
  fs.mkdirSync(stepDir, { recursive: true });
  const startAt = step.consumer ? Date.now() + START_DELAY_MS : null;
  const cmds = stepCommands(step, stepDir, target, cluster, startAt);
  const meta = { name: step.name, label: step.label, startedAt: new Date().toISOString(), commands: cmds.map((c) => ['node', ...c.argv].join(' ')), ok: false };
  const save = stepRecord(stepDir, meta);
  const results = await Promise.all(cmds.map((c) => runChild([...c.argv, ...relayArgs(live, stepLabel)], stopper, { hub: live?.hub })));
  // exit 1 is a run that finished and measured, but not all it was asked did happen (items failed,
  // cycles failed): its summary says why, and the step's check judges it; anything else failed
  const finished = (r, i) => r.code === 0 || (r.code === 1 && hasOutcome(stepDir, cmds[i].role));
  const badIndex = results.findIndex((r, i) => !finished(r, i));
  const bad = badIndex >= 0 ? results[badIndex] : undefined;
  Object.assign(meta, { endedAt: new Date().toISOString(), exitCodes: results.map((r) => r.code ?? r.signal), ok: !bad && !stopper.stopped });
  if (bad) meta.error = bad.lastLine;
  const problems = results.filter((r) => r.code === 1 && !bad).map((r) => r.lastLine);
  if (problems.length) meta.problems = problems;
  save();
  return bad ? { ok: false, error: `${bad.argv[0]} exited with ${bad.code ?? bad.signal}: ${bad.lastLine}` } : { ok: true };
}

/**
 * The role's run in the step directory has a summary with an outcome: it ran to its end.
 * @param {string} stepDir
 * @param {'producer'|'consumer'} role
 */
function hasOutcome(stepDir, role) {
  return Boolean(newestRun(stepDir, role).doc?.outcome);
}
