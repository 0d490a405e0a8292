/**
 * `rqbench experiment run|report experiments/<name>…`: runs an experiment.yaml's steps with the real
 * CLIs and (re)generates its RESULTS.md from the run directories; given several specs, runs them in
 * sequence (resumable, with an overall ETA) and writes the index beside them.
 */
import path from 'node:path';
import { UsageError, bad } from '../usage-error.js';
import { MAX_REPEAT, loadSpec } from '../experiments/spec.js';
import { checkCanRun, runExperiment } from '../experiments/run-experiment.js';
import { verdictWords, writeResults } from '../experiments/results-md.js';
import { runsDir } from '../experiments/layout.js';
import { newestResultsRun, DATA_DIR } from '../experiments/trial-data.js';
import { runAll } from '../experiments/run-all.js';
import { writeIndex } from '../experiments/index-md.js';
import { checkMetrics, metricsOptions } from '../plans/metrics-plan.js';
import { MetricsHub } from '../harness/metrics-hub.js';
import { exitCodeSet, exitNow, setExitCode, writeErr } from '../command-io.js';
import { gitChanges } from '../harness/manifest.js';

const PROG = 'rqbench experiment';
const ACTIONS = ['run', 'report'];
/** A noisy trial is run again at most this many times: a host that stays busy gets no verdict by waiting. */
const MAX_RETRY_NOISY = 5;

export const command = 'experiment <action> <dirs..>';
export const describe =
  'run an experiment spec (experiments/<name>/experiment.yaml) step by step, or regenerate its RESULTS.md and report.html';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return metricsOptions(y)
    .positional('action', {
      type: 'string',
      describe:
        'run: every step, then RESULTS.md and report.html (RESULTS.md with its charts interactive, opens offline); report: both from the newest run only (runs/<stamp>, or the trial data kept in data/<stamp>)',
    })
    .positional('dirs', {
      type: 'string',
      array: true,
      default: undefined,
      describe: 'the experiment directories, each holding experiment.yaml (several: in sequence, and the index experiments/README.md)',
    })
    .option('resume', {
      type: 'boolean',
      default: false,
      describe: 'with run: continue the newest runs/<stamp>/, skipping trials that completed (several specs: the interrupted sequence)',
    })
    .option('repeat', {
      type: 'number',
      requiresArg: true,
      describe:
        "with run: trials of every step (overrides each spec's repeat:; a step's own repeat: stays when lower); fewer than 6 cannot give a timed verdict (a counted step's needs one)",
      defaultDescription: "the spec's repeat:, else 6",
    })
    .option('counted-trials', {
      type: 'number',
      requiresArg: true,
      describe:
        "with run: at most this many trials of each counted step (count:): a count decides on one, and more confirm it (npm run experiments runs 1, npm run experiments:full each spec's own); a resumed run keeps the cap it began with",
      defaultDescription: "each counted step's repeat:",
    })
    .option('retry-noisy', {
      type: 'number',
      requiresArg: true,
      default: 0,
      describe:
        'with run: set a noisy trial aside (something outside the run took CPU: its summary says so) and run it again, at most this many times each',
    })
    .option('allow-dirty', {
      type: 'boolean',
      default: false,
      describe:
        'with run: run although rqbench\'s own tree has uncommitted changes to tracked files; RESULTS.md then marks its tables "from uncommitted code" (without it such a run is refused: a commit alone would not name the code)',
    })
    .option('seed', {
      type: 'number',
      requiresArg: true,
      describe: "with run: the seed of the trials' shuffled order (written to runs/<stamp>/manifest.json)",
      defaultDescription: 'a new one each run',
    })
    .example('$0 experiment run experiments/002-store-models', 'run every step, write RESULTS.md and report.html')
    .example('$0 experiment run experiments/002-store-models --resume', 'after Ctrl-C: re-run the interrupted trial and the rest')
    .example('$0 experiment run experiments/002-store-models --repeat 10', '10 trials of every step, interleaved round by round')
    .example(
      '$0 experiment run experiments/002-store-models --retry-noisy 2',
      'a trial run while something else took the CPU is run again, up to twice',
    )
    .example(
      '$0 experiment report experiments/002-store-models',
      'RESULTS.md again, without running (from runs/, or from data/ in a fresh clone)',
    )
    .example('$0 experiment run experiments/*/', 'every spec in sequence, then experiments/README.md (npm run experiments)');
}

/**
 * @param {Record<string, any>} a parsed flags
 */
export async function handler(a) {
  let specs;
  /** @type {{ hub: MetricsHub, runId: string }|null} the endpoint every step's CLIs relay their metrics to */
  let live = null;
  try {
    if (!ACTIONS.includes(a.action)) throw bad('<action>', ACTIONS.join(' or '), a.action);
    if (a.resume && a.action !== 'run') throw bad('--resume', 'used with run');
    for (const f of ['repeat', 'seed', 'counted-trials'])
      if (a[f] !== undefined && a.action !== 'run') throw bad(`--${f}`, 'used with run');
    if (a.countedTrials !== undefined && !(Number.isInteger(a.countedTrials) && a.countedTrials >= 1 && a.countedTrials <= MAX_REPEAT))
      throw bad('--counted-trials', `an integer from 1 to ${MAX_REPEAT}`, a.countedTrials);
    if (!(Number.isInteger(a.retryNoisy) && a.retryNoisy >= 0 && a.retryNoisy <= MAX_RETRY_NOISY))
      throw bad('--retry-noisy', `an integer from 0 to ${MAX_RETRY_NOISY}`, a.retryNoisy);
    if (a.retryNoisy && a.action !== 'run') throw bad('--retry-noisy', 'used with run');
    if (a.repeat !== undefined && !(Number.isInteger(a.repeat) && a.repeat >= 1 && a.repeat <= MAX_REPEAT))
      throw bad('--repeat', `an integer from 1 to ${MAX_REPEAT}`, a.repeat);
    if (a.seed !== undefined && !(Number.isInteger(a.seed) && a.seed >= 0 && a.seed < 2 ** 32))
      throw bad('--seed', 'an integer from 0 to 4294967295', a.seed);
    if (a.resume && (a.repeat !== undefined || a.seed !== undefined))
      throw bad(a.repeat !== undefined ? '--repeat' : '--seed', 'left out with --resume (the run goes on with its own trials and order)');
    const metrics = checkMetrics(a);
    if (a.metricsRelay) throw bad('--metrics-relay', 'used by a step of a runner, not by an experiment run (it serves its own steps)');
    if (a.metricsPort !== undefined && a.action !== 'run') throw bad('--metrics-port', 'used with run');
    // every spec is checked before any runs: a mistake in the last is not found an hour in
    specs = a.dirs.map((d) => loadSpec(d));
    if (a.action === 'run') specs.forEach(checkCanRun);
    if (a.allowDirty && a.action !== 'run') throw bad('--allow-dirty', 'used with run');
    // last of the checks, so a spec's own mistakes are said first
    const tree = a.action === 'run' && !a.allowDirty ? gitChanges() : null;
    if (tree?.dirty)
      throw new UsageError(
        `rqbench's tree has uncommitted changes (${tree.files} tracked file${tree.files === 1 ? '' : 's'}): commit them, or give --allow-dirty (RESULTS.md then marks its tables "from uncommitted code")`,
      );
    // it listens before anything is written: a port in use is bad input
    if (a.metricsPort !== undefined) {
      const name = specs.length > 1 ? 'experiments' : specs[0].name;
      live = {
        hub: await MetricsHub.open({
          port: a.metricsPort,
          host: metrics.metricsHost,
          lingerS: metrics.metricsLinger,
          labels: { run_id: metrics.metricsRunId, run_name: name, ...metrics.metricsLabels },
          buckets: metrics.metricsBuckets,
        }),
        runId: metrics.metricsRunId,
      };
    }
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    writeErr(`${PROG}: ${e.message}\n`);
    exitNow(2);
  }
  try {
    await (specs.length > 1 ? several(specs, a, live) : one(specs[0], a, live));
  } finally {
    // the last scrape finds the final values (not after Ctrl-C: that leaves at once)
    if (live && exitCodeSet() !== 130) await live.hub.linger();
    else await live?.hub.close();
  }
}

/**
 * One spec: run it (or not), then its RESULTS.md.
 * @param {import('../experiments/spec.js').Spec} spec
 * @param {Record<string, any>} a
 * @param {{ hub: MetricsHub, runId: string }|null} live
 */
async function one(spec, a, live) {
  let code = 0;
  if (a.action === 'report' && !newestResultsRun(spec.dir)) {
    // no runs and no committed trial data: never overwrite RESULTS.md with an empty one
    writeErr(
      `${PROG}: no runs under ${path.relative(process.cwd(), runsDir(spec.dir)) || '.'} and no trial data in ${DATA_DIR}/: "rqbench experiment run ${a.dirs[0]}" makes them (RESULTS.md is left as it is)\n`,
    );
    setExitCode(1);
    return;
  }
  if (a.action === 'run') {
    const o = await runExperiment(spec, {
      resume: a.resume,
      live,
      repeat: a.repeat,
      seed: a.seed,
      retryNoisy: a.retryNoisy,
      countedTrials: a.countedTrials,
    });
    if (o.failed) {
      writeErr(`${PROG}: step ${o.failed}\n`);
      code = 1;
    }
    if (o.interrupted) code = 130;
  }
  const r = await writeResults(spec);
  writeErr(
    `${PROG}: wrote ${path.relative(process.cwd(), r.file)} and ${path.relative(process.cwd(), r.html)} (${verdictWords(r)})${code === 130 ? '; interrupted: --resume continues' : ''}\n`,
  );
  setExitCode(code);
}

/**
 * Several specs: run in sequence, or their RESULTS.md again; the index beside them either way.
 * @param {import('../experiments/spec.js').Spec[]} specs
 * @param {Record<string, any>} a
 * @param {{ hub: MetricsHub, runId: string }|null} live
 */
async function several(specs, a, live) {
  if (a.action === 'run') {
    const o = { resume: a.resume, live, repeat: a.repeat, seed: a.seed, retryNoisy: a.retryNoisy, countedTrials: a.countedTrials };
    setExitCode((await runAll(specs, o)).exitCode);
    return;
  }
  for (const spec of specs) {
    if (!newestResultsRun(spec.dir)) {
      writeErr(`${PROG}: ${spec.name}: no runs here and no trial data in ${DATA_DIR}/, RESULTS.md left as it is\n`);
      continue;
    }
    const r = await writeResults(spec);
    writeErr(`${PROG}: wrote ${path.relative(process.cwd(), r.file)} and ${path.relative(process.cwd(), r.html)} (${verdictWords(r)})\n`);
  }
  writeErr(`${PROG}: wrote ${path.relative(process.cwd(), writeIndex(specs))}\n`);
}
