/**
 * `rqbench k8s`: renders the Kubernetes manifests of one run of N pods × W writers (an Indexed
 * Job, and a PodMonitor with --podmonitor) to stdout, for `| kubectl apply -f -`, or into --out.
 * The producer flags are checked here by the producer's own options, so a typo fails now, not
 * in N pods 90 s after the apply.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yargs from 'yargs';
import { k8sOptions, k8sPlan, OWNED } from '../plans/k8s-plan.js';
import { metricsPorts, renderManifests } from '../plans/k8s-manifests.js';
import { UsageError, givenFlags, numberWordProblem, shown } from '../usage-error.js';
import { builder as producerBuilder } from './produce.js';
import { producerPlan } from '../plans/producer-plan.js';
import { printOutput } from './report-run.js';
import { commandArgv, writeErr } from '../command-io.js';
import { fsReason } from '../record/run-dir.js';

export const command = 'k8s';
export const describe = 'render the Kubernetes Indexed Job (and PodMonitor) of a run of N pods × W writers';
/** `--flags '--cluster …'` reads as --flags without a value: the line that says so names this way too */
export const valueHints = { flags: 'put the producer flags after -- (rqbench k8s --pods 3 -- --cluster -q 300000)' };

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return k8sOptions(y)
    .example(
      'rqbench k8s --pods 3 --writers-per-pod 2 -- --cluster -q 300000 --ns 10 -d 60 | kubectl apply -f -',
      '6 writers on 3 pods, starting 90 s from now: the apply is now',
    )
    .example('rqbench k8s --pods 3 --flags="--cluster -q 300000 --sl"', 'the producer flags as one value (note the =)')
    .example(
      'rqbench k8s --pods 8 --podmonitor --namespace bench --out k8s/',
      'k8s/job.yaml and k8s/podmonitor.yaml, starting 90 s from now',
    )
    .example('rqbench k8s --template > job.yaml', 'a file to apply later: sed fills in @START_AT@ and @RUN_ID@ (docs/multi-host.md)');
}

/**
 * @param {Record<string, any>} a
 */
export function handler(a) {
  printOutput('rqbench k8s', () => {
    const plan = k8sPlan({ ...a, flags: producerFlags(a) });
    checkProducerFlags(plan.flags, plan.writers);
    const files = renderManifests(plan);
    const start = /^\d+$/.test(plan.startAt)
      ? `start ${new Date(Number(plan.startAt)).toISOString()} (in ${a.startIn} s)`
      : `start ${plan.startAt}, filled in at apply time`;
    writeErr(`rqbench k8s: ${plan.pods} pod(s) × ${plan.perPod} writer(s), run ${plan.runId}, ${start}\n`);
    if (plan.out === undefined) return files.map((f) => f.text).join('---\n');
    writeFiles(plan.out, files);
    return files.map((f) => `${path.join(plan.out, f.name)}\n`).join('');
  });
}

/**
 * The producer flags: everything after `--` (as typed: yargs would turn `-d 010` into 10), or --flags.
 * @param {Record<string, any>} a
 * @returns {string}
 */
function producerFlags(a) {
  const argv = commandArgv();
  const cut = argv.indexOf('--');
  if (a._.length <= 1 || cut < 0) return a.flags;
  if (givenFlags(a)?.has('flags')) throw new UsageError('--flags must not be given with producer flags after -- (give them once)');
  const words = argv.slice(cut + 1);
  const spaced = words.find((w) => /\s/.test(w));
  if (spaced !== undefined) throw new UsageError(`--flags must be words without spaces (got ${shown(spaced)})`);
  return words.join(' ');
}

/**
 * The producer flags, parsed by the producer's options: unknown flags, missing values and flags the
 * manifest sets itself are refused, and -q must give every writer an item.
 * @param {readonly string[]} words
 * @param {number} writers
 */
function checkProducerFlags(words, writers) {
  const y = yargs([...words]);
  producerBuilder(y);
  y.strict()
    .exitProcess(false)
    .help(false)
    .version(false)
    .fail((msg, err) => {
      const line = (err?.message || msg)
        .split('\n')[0]
        .replace(
          /^Unknown arguments?: (.*)$/,
          (_m, names) =>
            `unknown producer flag(s) ${names
              .split(', ')
              .map((n) => (words.includes(n) ? n : n.length === 1 ? `-${n}` : `--${n}`))
              .join(', ')}`,
        )
        .replace(/^Not enough arguments following: (\S+)/, (_m, n) => `${n.length === 1 ? `-${n}` : `--${n}`} needs a value`);
      throw new UsageError(`--flags must be producer flags (rqbench produce --help): ${line}`);
    });
  const parsed = /** @type {Record<string, any>} */ (y.parseSync());
  const notNumber = numberWordProblem([...words], y.getOptions());
  if (notNumber) throw new UsageError(`--flags: ${notNumber}`);
  const aliases = /** @type {Record<string, string[]>} */ (y.getOptions().alias ?? {});
  for (const w of words) {
    const m = /^--?(?:no-)?([^=]+)/.exec(w);
    if (!m || /^-\d/.test(w)) continue;
    const names = w.startsWith('--') ? [m[1]] : [...m[1]];
    for (const n of names) {
      const key = Object.keys(OWNED).find((k) => k === n || (aliases[k] ?? []).includes(n));
      if (key) throw new UsageError(`--flags must not hold ${shown(w)}: ${OWNED[key]}`);
    }
  }
  if (parsed._.length > 0) throw new UsageError(`--flags must be flags only (got ${shown(String(parsed._[0]))})`);
  if (parsed.quantity < writers)
    throw new UsageError(
      `--flags: -q must be at least the writers, pods × writers per pod (${writers}), so every writer has an item (got ${parsed.quantity})`,
    );
  // every check the producer runs on its flags, with what the manifest sets in a pod standing in
  // (the Secret's URL, the writers, a writable directory): a value each pod would refuse fails now
  try {
    producerPlan({
      ...parsed,
      url: 'redis://redis-from-the-secret:6379',
      t: writers,
      writers,
      out: os.tmpdir(),
      metricsPort: metricsPorts(1)[0].containerPort,
    });
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`--flags: ${e.message}`);
    throw e;
  }
}

/**
 * Writes every file or none: each goes to a temporary name first and is renamed into place once
 * all are written. --out was checked with the plan (k8sPlan): what fails here happened since (a
 * full disk, a directory removed), said in words.
 * @param {string} dir
 * @param {{ name: string, text: string }[]} files
 */
function writeFiles(dir, files) {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UsageError(
      `--out must be a directory rqbench can write (${shown(dir)}: ${fsReason(/** @type {NodeJS.ErrnoException} */ (e))})`,
    );
  }
  const tmp = files.map((f) => path.join(dir, `.${f.name}.${process.pid}.tmp`));
  try {
    files.forEach((f, i) => fs.writeFileSync(tmp[i], f.text));
    files.forEach((f, i) => fs.renameSync(tmp[i], path.join(dir, f.name)));
  } catch (e) {
    for (const t of tmp) fs.rmSync(t, { force: true });
    throw new UsageError(
      `--out must be a directory rqbench can write (${shown(dir)}: ${fsReason(/** @type {NodeJS.ErrnoException} */ (e))})`,
    );
  }
}
