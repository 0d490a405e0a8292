/**
 * Runs an experiment's steps, trial by trial, through their kind (kinds/): each kind spawns the
 * real CLIs (the same commands a person would type) against what its start() hook gave it — a
 * local Redis this process starts and stops, an emulator — or an endpoint.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuCapProblem, cpusAccepted, validCpus } from '../local/cpu-cap.js';
import { UsageError } from '../usage-error.js';
import { latestRun, readStep, runsDir, setAside, stamp } from './layout.js';
import { stepKindOf } from './kinds/step-kinds.js';
import { Progress } from './progress.js';
import { Stopper } from './children.js';
import { capCounted, grownSlots, newSeed, readManifest, schedule, trialDir, trialsPlanned, writeManifest } from './trials.js';
import { trialNoise } from './trial-noise.js';
import { placeRegime, probeFigures, scaleFlags } from './regime.js';
import { writeErr } from '../command-io.js';
import { gitChanges, gitSha } from '../harness/manifest.js';
import { SERVICE_RETRIES, UNANSWERED, serviceSilence, unansweredTries } from './trial-service.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * @typedef {{ runDir: string, ran: number, skipped: number, failed: string|null, interrupted: boolean }} RunOutcome  ran, skipped: trials
 */

/**
 * Runs every step `repeat` times, interleaved round by round in a seeded shuffled order
 * (trials.js); each trial in its own directory. `--resume` goes on with the newest run's own
 * trials and order, skipping the trials that completed and re-running the rest.
 * @param {import('./spec.js').Spec} spec
 * @param {{ resume?: boolean, log?: (line: string) => void, live?: { hub: any, runId: string }|null, stepPrefix?: string, repeat?: number, seed?: number, retryNoisy?: number, countedTrials?: number }} [opts]
 *   live: the runner's metrics endpoint, which every step's CLIs relay to (labelled step=<prefix><step>);
 *   repeat: trials per step (default: the spec's); seed: of the shuffle (default: a new one); retryNoisy: how many
 *   times a noisy trial (trial-noise.js) is set aside and run again (default 0: kept, and marked in RESULTS.md)
 * @returns {Promise<RunOutcome>}
 */
export async function runExperiment(
  spec,
  { resume = false, log = (l) => writeErr(`${l}\n`), live = null, stepPrefix = '', repeat, seed, retryNoisy = 0, countedTrials } = {},
) {
  let previous = resume ? latestRun(spec.dir) : null;
  if (resume && !previous) log('rqbench experiment: nothing to resume, starting a new run');
  if (previous && !readManifest(previous)) {
    log(`rqbench experiment: ${path.relative(process.cwd(), previous)} was made before trials: starting a new run`);
    previous = null;
  }
  const runDir = previous ?? path.join(runsDir(spec.dir), stamp());
  fs.mkdirSync(runDir, { recursive: true });
  const manifest = previous
    ? /** @type {import('./trials.js').TrialManifest} */ (readManifest(previous))
    : newManifest({ ...spec, steps: capCounted(spec.steps, countedTrials) }, repeat ?? spec.repeat, seed ?? newSeed(), countedTrials);
  // the code each session of this run ran (a --resume may run a later commit): RESULTS.md names it
  const changes = gitChanges();
  manifest.code = [
    ...(manifest.code ?? []),
    { git: gitSha(), dirty: changes?.dirty ?? null, ...(changes?.dirty ? { changed: changes.changed } : {}), at: new Date().toISOString() },
  ];
  writeManifest(runDir, manifest);
  // a run begun with --counted-trials keeps its cap when resumed: its counted steps are not grown back
  spec = { ...spec, steps: capCounted(spec.steps, manifest.countedTrials) };
  // steps added to the spec since the run began: their trials go after the run's own, in the same rounds' manner
  const added = previous ? spec.steps.filter((s) => !manifest.order.some((slot) => slot.step === s.name)) : [];
  if (added.length) {
    manifest.order.push(
      ...schedule(
        added.map((s) => s.name),
        manifest.repeat,
        manifest.seed,
        ownRepeats(added),
      ),
    );
    writeManifest(runDir, manifest);
    log(`rqbench experiment: ${added.map((s) => s.name).join(', ')} joined the spec after this run began: their trials run after its own`);
  }
  // steps given more trials (their own repeat: raised) since the run began: the missing rounds, after the rest
  const grown = previous ? grownSlots(manifest, spec.steps) : [];
  if (grown.length) {
    manifest.order.push(...grown);
    writeManifest(runDir, manifest);
    log(
      `rqbench experiment: ${[...new Set(grown.map((s) => s.step))].join(', ')} gained trials since this run began: ${grown.length} more, after its own`,
    );
  }
  const byName = new Map(spec.steps.map((s) => [s.name, s]));
  const todo = manifest.order
    .filter((slot) => byName.has(slot.step))
    .map((slot) => {
      const step = /** @type {import('./spec.js').Step} */ (byName.get(slot.step));
      const dir = trialDir(runDir, step.name, slot.trial);
      const done = readStep(dir, stepKindOf(step), step).complete;
      if (!done && previous) setAside(dir);
      return { step, dir, slot, done };
    });
  log(
    `rqbench experiment: ${spec.steps.length} step(s) x ${manifest.repeat} trial(s)${spec.steps.some((s) => s.repeat && s.repeat < manifest.repeat) ? ' (fewer for a step with its own repeat:)' : ''}, interleaved (seed ${manifest.seed}) into ${path.relative(process.cwd(), runDir) || runDir}`,
  );
  const progress = new Progress(
    todo.filter((t) => !t.done).map((t) => t.step),
    log,
  );
  const stopper = new Stopper(log);
  /** @type {RunOutcome} */
  const outcome = { runDir, ran: 0, skipped: 0, failed: null, interrupted: false };
  /** @type {import('./kinds/kind-contract.js').Shared|null} */
  let shared = null;
  try {
    // the seed's regime: probed once per run, before the first trial (a --resume keeps what was found)
    if (spec.regime && !manifest.regime && !stopper.stopped) {
      const kind = stepKindOf(spec.steps[0]);
      if (!shared && kind.start) shared = await kind.start(spec, { log, signal: stopper.signal });
      const placed = await placeRegime(spec.regime, probeRun(spec, runDir, { kind, stopper, shared, live, stepPrefix }), log);
      if (stopper.stopped) throw Object.assign(new Error('interrupted while placing the regime'), { interruptedRegime: true });
      manifest.regime = placed;
      writeManifest(runDir, manifest);
    }
    const factor = manifest.regime?.factor ?? 1;
    for (const t of todo) {
      const trial = `trial ${t.slot.trial}/${trialsPlanned(manifest, t.step.name)}`;
      if (t.done) {
        outcome.skipped++;
        log(`rqbench experiment: ${t.step.name} ${trial} already complete in ${path.relative(process.cwd(), t.dir)}, skipped`);
        continue;
      }
      /** @type {{ ok: boolean, error?: string }} */
      let result = { ok: false, error: 'not run' };
      // at the regime's rate, when the spec places one
      const step = factor === 1 ? t.step : { ...t.step, flags: scaleFlags(t.step.flags, factor) };
      // why the trial is run again: its last run was noisy, or its service stopped answering
      for (let again = '', noisyAgain = 0; !stopper.stopped;) {
        const kind = stepKindOf(step);
        // what the steps share (a local Redis, an emulator), started before the first step that runs
        if (!shared && kind.start) shared = await kind.start(spec, { log, signal: stopper.signal });
        if (stopper.stopped) break;
        progress.begin(t.step, again ? `${trial}, again: the last ${again}` : trial);
        result = await kind.run(step, {
          stepDir: t.dir,
          out: relativeOut(t.dir),
          topology: spec.topology,
          stopper,
          shared,
          live,
          stepLabel: `${stepPrefix}${t.step.name}`,
        });
        progress.end(t.step, readStep(t.dir, kind, step));
        if (stopper.stopped) break;
        // a trial whose server or emulator stopped answering measured the fault: set aside (kept), run again on a fresh one
        const silent = serviceSilence(t.dir, result);
        if (silent && unansweredTries(t.dir) < SERVICE_RETRIES) {
          const aside = setAside(t.dir, UNANSWERED);
          log(
            `rqbench experiment: ${t.step.name} ${trial}: its service stopped answering (${silent}): kept in ${path.relative(process.cwd(), String(aside))}, running it again on a fresh server (${unansweredTries(t.dir)} of at most ${SERVICE_RETRIES})`,
          );
          await shared?.stop();
          shared = null;
          progress.again(t.step);
          again = 'was not answered';
          continue;
        }
        if (!result.ok) break;
        // a trial something outside the run disturbed is set aside (kept) and run again, a bounded number of times
        const noise = trialNoise(t.dir);
        // a count does not move with the host's load: a counted trial is kept whatever ran beside it
        if (!noise?.noisy || noisyAgain >= retryNoisy || t.step.count) break;
        noisyAgain++;
        again = 'was noisy';
        const aside = setAside(t.dir, 'noisy');
        log(
          `rqbench experiment: ${t.step.name} ${trial} was noisy (other processes took ${noise.outsidePct}% of a core, noisy at ${noise.thresholdPct}%): kept in ${path.relative(process.cwd(), String(aside))}, running it again (${noisyAgain} of at most ${retryNoisy})`,
        );
        progress.again(t.step);
      }
      if (stopper.stopped) break;
      if (!result.ok) {
        outcome.failed = `${t.step.name} (${trial}): ${result.error}`;
        break;
      }
      outcome.ran++;
    }
  } catch (e) {
    if (!e.interruptedRegime) throw e;
  } finally {
    await shared?.stop();
    stopper.dispose();
  }
  outcome.interrupted = stopper.stopped;
  return outcome;
}

/**
 * One regime probe: the reference step alone (no consumer), its rate scaled, in runs/<stamp>/regime/probe-<k>.
 * @param {import('./spec.js').Spec} spec
 * @param {string} runDir
 * @param {{ kind: any, stopper: Stopper, shared: any, live: any, stepPrefix: string }} ctx
 * @returns {(factor: number, k: number) => Promise<import('./regime.js').Probe>}
 */
function probeRun(spec, runDir, { kind, stopper, shared, live, stepPrefix }) {
  const ref = /** @type {import('./spec.js').Step} */ (spec.steps.find((s) => s.name === spec.regime?.step));
  return async (factor, k) => {
    const step = { ...ref, flags: scaleFlags(ref.flags, factor), consumer: null };
    const dir = path.join(runDir, 'regime', `probe-${k}`);
    if (stopper.stopped) return { factor, engine: null, held: false, dir };
    const r = await kind.run(step, {
      stepDir: dir,
      out: relativeOut(dir),
      topology: spec.topology,
      stopper,
      shared,
      live,
      stepLabel: `${stepPrefix}regime`,
    });
    const read = readStep(dir, kind, step);
    const figures = r.ok ? probeFigures(read.producer, spec.topology.local?.cpus ?? null) : { engine: null, held: false };
    return { factor, ...figures, dir: path.relative(runDir, dir) };
  };
}

/**
 * @param {import('./spec.js').Spec} spec
 * @param {number} repeat
 * @param {number} seed
 * @param {number} [countedTrials]
 * @returns {import('./trials.js').TrialManifest}
 */
function newManifest(spec, repeat, seed, countedTrials) {
  return {
    repeat,
    seed,
    ...(countedTrials ? { countedTrials } : {}),
    noiseThreshold: spec.noise,
    startedAt: new Date().toISOString(),
    order: schedule(
      spec.steps.map((s) => s.name),
      repeat,
      seed,
      ownRepeats(spec.steps),
    ),
  };
}

/** @param {import('./spec.js').Step[]} steps → each one's own `repeat:`, where it has one */
const ownRepeats = (steps) => Object.fromEntries(steps.map((s) => [s.name, s.repeat]));

/**
 * What `run` needs of this machine beyond the spec, checked before anything is written: a CPU cap
 * within its cores, and the right to set it.
 * @param {import('./spec.js').Spec} spec
 * @throws {UsageError} one line naming the file and the field
 */
export function checkCanRun(spec) {
  const caps = [['topology.local.cpus', spec.topology.local?.cpus], ...spec.steps.map((s, i) => [`steps[${i}].cpus`, s.cpus])].filter(
    ([, c]) => c,
  );
  for (const [field, cpus] of caps) {
    if (!validCpus(cpus)) throw new UsageError(`${spec.file}: ${field} must be ${cpusAccepted()} on this machine (got ${cpus})`);
    const problem = cpuCapProblem();
    if (problem) throw new UsageError(`${spec.file}: ${field}: ${problem}`);
  }
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
