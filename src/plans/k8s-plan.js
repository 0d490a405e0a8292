/**
 * `rqbench k8s`: the flags of a Kubernetes run's shape (pods × writers per pod, the producer flags,
 * image, namespace, Secret, run id, start) and their checks, into one frozen plan that
 * k8s-manifests.js renders. Nothing here reads a cluster: the plan is text in, text out (--out is
 * only looked at, to be sure the files can be written there).
 */
import { bad, intIn, shown, UsageError } from '../usage-error.js';
import { deepFreeze } from './freeze.js';
import { checkOutput } from './output.js';

/** The placeholders a --template manifest carries, replaced when it is applied (docs/multi-host.md). */
export const PLACEHOLDER = Object.freeze({ startAt: '@START_AT@', runId: '@RUN_ID@' });

/** The names a manifest gets unless told otherwise (the command line shown in it leaves them out). */
export const K8S_DEFAULTS = Object.freeze({
  image: 'rqbench:0.1.0',
  jobName: 'rqbench-producers',
  secret: 'rqbench-redis',
  claim: 'rqbench-results',
});

/**
 * Producer flags the manifest sets itself (each pod's slice, the shared run, the Secret's URL, the
 * pod's metrics endpoint and run directory): given in --flags they would fight the manifest's.
 * Key: the producer's option name; value: why it is refused.
 */
export const OWNED = Object.freeze({
  url: 'the URL comes from the Secret (--secret, key url)',
  host: 'the URL comes from the Secret (--secret, key url)',
  port: 'the URL comes from the Secret (--secret, key url)',
  password: 'the password comes from the Secret (key password)',
  user: "a user goes in the Secret's URL",
  local: 'the pods reach the Redis of the Secret',
  target: 'the Job runs Redis writers',
  writers: 'the manifest sets it: --pods × --writers-per-pod',
  writer: "the manifest sets it from each pod's JOB_COMPLETION_INDEX",
  'run-id': 'use --run-id',
  'start-at': 'use --start-in or --template',
  out: 'the manifest sets it: the shared volume',
  name: 'the manifest sets it: writer-<number>',
  quiet: 'the manifest sets it',
  json: 'the manifest sets it',
  'metrics-port': "the manifest sets it: 9100 + the writer's place in its pod",
  'metrics-host': 'the manifest sets it',
  'metrics-linger': 'the manifest sets it',
});

/** A DNS-1123 label (a Job's, namespace's or Secret's name; 63 at most, 52 for a Job whose pods are indexed). */
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** What --flags may hold: they are split on spaces by the pod's `sh`, so no quoting, globbing or expansion. */
const SAFE_FLAGS = /^[A-Za-z0-9_.,:=/+@-]*$/;

/** @param {import('yargs').Argv} y */
export function k8sOptions(y) {
  const s = 'Shape:';
  const p = 'Pods:';
  return y
    .option('pods', {
      type: 'number',
      requiresArg: true,
      default: 8,
      group: s,
      describe: "pods (hosts): the Indexed Job's completions and parallelism",
    })
    .option('writers-per-pod', {
      alias: 'w',
      type: 'number',
      requiresArg: true,
      default: 1,
      group: s,
      describe: 'writer processes in each pod: pod i runs writers i*W+1 … (i+1)*W of pods*W',
    })
    .option('flags', {
      type: 'string',
      requiresArg: true,
      default: '--cluster -q 300000 -d 60',
      group: s,
      describe:
        'the producer flags every writer gets (the data model, -q across all writers, -d, …), as --flags="…" or after --; not -t, -a, --url or what the manifest sets',
    })
    .option('image', {
      type: 'string',
      requiresArg: true,
      default: K8S_DEFAULTS.image,
      group: p,
      describe: 'the rqbench image (docker build -f deploy/k8s/Dockerfile)',
    })
    .option('namespace', {
      type: 'string',
      requiresArg: true,
      group: p,
      describe: 'namespace of every object',
      defaultDescription: "kubectl's current one",
    })
    .option('job-name', {
      type: 'string',
      requiresArg: true,
      default: K8S_DEFAULTS.jobName,
      group: p,
      describe: "the Job's name (delete the last run's Job before applying one of the same name)",
    })
    .option('secret', {
      type: 'string',
      requiresArg: true,
      default: K8S_DEFAULTS.secret,
      group: p,
      describe:
        'the Secret holding the Redis URL (key url) and, optionally, its password (key password); its values never enter the manifest',
    })
    .option('claim', {
      type: 'string',
      requiresArg: true,
      default: K8S_DEFAULTS.claim,
      group: p,
      describe: 'the ReadWriteMany PersistentVolumeClaim every pod writes its run directories to (/results)',
    })
    .option('run-id', {
      type: 'string',
      requiresArg: true,
      group: s,
      describe: 'the run id every writer shares',
      defaultDescription: 'k8s-<UTC time> (with --template: @RUN_ID@)',
    })
    .option('start-in', {
      type: 'number',
      requiresArg: true,
      default: 90,
      group: s,
      describe: 'seconds from now to the shared start: pipe the output straight into kubectl apply, so now is apply time',
    })
    .option('template', {
      type: 'boolean',
      default: false,
      group: s,
      describe: 'leave the start (and, without --run-id, the run id) as @START_AT@ and @RUN_ID@ for sed to fill in when it is applied',
    })
    .option('podmonitor', {
      type: 'boolean',
      default: false,
      group: p,
      describe: 'also render the Prometheus Operator PodMonitor that scrapes every writer',
    })
    .option('out', {
      alias: 'o',
      type: 'string',
      requiresArg: true,
      group: 'Output:',
      describe: 'write job.yaml (and podmonitor.yaml) into this directory',
      defaultDescription: 'YAML documents on stdout',
    });
}

/**
 * @typedef {object} K8sPlan
 * @property {number} pods
 * @property {number} perPod       writers in each pod
 * @property {number} writers      pods × perPod: the producer's -t
 * @property {string[]} flags      the producer flags, one word each
 * @property {string} image
 * @property {string|undefined} namespace
 * @property {string} jobName
 * @property {string} secret
 * @property {string} claim
 * @property {string} runId        or PLACEHOLDER.runId
 * @property {string} startAt      epoch ms as text, or PLACEHOLDER.startAt
 * @property {boolean} podMonitor
 * @property {string|undefined} out
 */

/**
 * Checks the flags (the producer flags are checked by the command, which knows the producer's
 * options) and resolves the start: now + --start-in, unless --template leaves it to apply time.
 * @param {Readonly<Record<string, any>>} a parsed flags
 * @param {number} [now] epoch ms (a test pins it)
 * @returns {Readonly<K8sPlan>}
 */
export function k8sPlan(a, now = Date.now()) {
  intIn(a.pods, '--pods', 1, 1024);
  intIn(a.writersPerPod, '--writers-per-pod', 1, 64);
  if (a.pods * a.writersPerPod > 1024)
    throw bad('--pods × --writers-per-pod', "at most 1024 writers (the producer's -t)", a.pods * a.writersPerPod);
  for (const [flag, v, max] of [
    ['--job-name', a.jobName, 52],
    ['--namespace', a.namespace, 63],
    ['--secret', a.secret, 253],
    ['--claim', a.claim, 253],
  ]) {
    if (v !== undefined && !(typeof v === 'string' && v.length <= max && LABEL.test(v)))
      throw bad(flag, `a Kubernetes name: lower-case letters, digits and '-', at most ${max} characters`, v);
  }
  if (typeof a.image !== 'string' || !/^[^\s"'`$\\]+$/.test(a.image))
    throw bad('--image', 'an image reference without spaces or quotes', a.image);
  if (typeof a.flags !== 'string' || !SAFE_FLAGS.test(a.flags.replace(/ /g, ''))) {
    throw new UsageError(
      `--flags must be producer flags of letters, digits and _.,:=/+@- separated by spaces (no quotes, globs or $: the pod's sh splits them) (got ${shown(String(a.flags))})`,
    );
  }
  if (a.runId !== undefined && !(typeof a.runId === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(a.runId)))
    throw bad('--run-id', "letters, digits, '.', '_' and '-', at most 63", a.runId);
  if (!(Number.isFinite(a.startIn) && a.startIn >= 0 && a.startIn <= 86400)) throw bad('--start-in', 'seconds from 0 to 86400', a.startIn);
  // a directory the files cannot go into (a device, a read-only file system) is said now, before
  // the line that says what would be rendered, as every command with an --out does
  if (a.out !== undefined) checkOutput({ out: a.out });
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return deepFreeze({
    pods: a.pods,
    perPod: a.writersPerPod,
    writers: a.pods * a.writersPerPod,
    flags: a.flags.split(' ').filter(Boolean),
    image: a.image,
    namespace: a.namespace,
    jobName: a.jobName,
    secret: a.secret,
    claim: a.claim,
    runId: a.runId ?? (a.template ? PLACEHOLDER.runId : `k8s-${stamp}`),
    startAt: a.template ? PLACEHOLDER.startAt : String(Math.round(now + a.startIn * 1000)),
    podMonitor: Boolean(a.podmonitor),
    out: a.out,
  });
}
