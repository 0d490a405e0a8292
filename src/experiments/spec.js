/**
 * `experiments/<name>/experiment.yaml`: read, checked field by field, and expanded into steps.
 * Every mistake is one line naming the file and the field path; nothing runs before this passes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, fileReason } from '../usage-error.js';
import { settings } from '../settings.js';
import { flagMapProblem } from './flags.js';
import { parseCheck, refsOf } from './check.js';
import { comparisonsOf } from './verdict.js';
import { DEFAULT_STEP_KIND, STEP_KIND_FIELDS, STEP_KIND_NAMES, STEP_KIND_SPEC_FIELDS, STEP_KINDS } from './kinds/step-kinds.js';
import { KindProblem } from './kinds/kind-contract.js';
import { cpusAccepted, validCpus } from '../local/cpu-cap.js';
import { readSeedColumns, readSeedMetrics, readStepSeed } from './seed-columns.js';
import { readRegime } from './regime.js';
import { readSeedEffects } from './seed-effects.js';
import { readYamlText } from './yaml-text.js';
import { notesProblem } from './notes.js';

export const SPEC_FILE = 'experiment.yaml';
const TOP = [
  'title',
  'seed',
  'kind',
  'topology',
  'repeat',
  'noiseThreshold',
  'duration',
  'warmup',
  'flags',
  'consumer',
  'at',
  ...STEP_KIND_SPEC_FIELDS,
  'steps',
  'matrix',
  'finding',
  'check',
  'checkTests',
  'notes',
  'seedColumns',
  'seedMetrics',
  'seedNodeVcpus',
  'regime',
  'seedEffects',
  'decideBy',
];
const STEP = ['name', 'label', 'kind', 'flags', 'consumer', 'duration', 'warmup', 'at', 'seed', 'repeat', ...STEP_KIND_FIELDS];
const TOPOLOGY = ['local', 'url', 'queue', 'cluster', 'instanceType'];
const QUEUE = ['emulator', 'endpoint'];
const EMULATORS = ['sqs', 'pubsub'];
const LOCAL = ['cluster', 'masters', 'replicas', 'cpus'];
/**
 * topology.local.cpus is checked against this here, not against this machine's cores: a spec is
 * read by `report` on any machine; `run` checks the cores (run-experiment.js checkCanRun).
 */
const SPEC_MAX_CPUS = 1024;
const STEP_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
/** Trials per step when a spec does not say: the fewest that can give a verdict (a 95% interval for a median, and p < 0.05 between two steps). */
export const DEFAULT_REPEAT = 6;
export const MAX_REPEAT = 100;
/** The noise threshold, %: a relative change inside it is never called a difference. */
const DEFAULT_NOISE_PCT = 2;

/**
 * @typedef {import('./flags.js').FlagMap} FlagMap
 * @typedef {object} Topology
 * @property {{ cluster: boolean, masters: number, replicas: number, cpus: number|null }|null} local a throwaway local Redis
 *   (cpus: each node capped at that many cores, or null)
 * @property {string|null} url an endpoint
 * @property {{ emulator: 'sqs'|'pubsub'|null, endpoint: string|null }|null} [queue] a queue service: a local
 *   emulator the runner starts, a named endpoint, or neither (the cloud, with the SDK's credential chain)
 * @property {boolean} cluster
 * @property {string} label the table's "Instance type"
 * @typedef {object} Step
 * @property {string} name       [A-Za-z][A-Za-z0-9_]*, the run directory's name and the check's reference
 * @property {string} label      shown in tables
 * @property {number} duration   seconds
 * @property {number} warmup     seconds left out of the summary
 * @property {FlagMap} flags     producer flags (fixed flags merged in)
 * @property {FlagMap|null} consumer consumer flags when a consumer runs alongside
 * @property {string[]} at       --at values
 * @property {string[]} varied   the flags whose values differ between steps (table columns)
 * @property {{ timeScale: number }|null} [count] a produce step's count: (kinds/produce-count.js): Redis's instructions
 *   counted under Valgrind instead of its CPU timed
 * @property {number|null} [repeat] its own trials (`repeat:` on the step), at most the run's: a counted step needs few
 * @property {boolean} [failuresMeasured] the check reads this step's failed or lost items: failures
 *   are what it measures, not a run gone wrong (markFailuresMeasured)
 * @property {string} kind  what the step runs, a kind of kinds/step-kinds.js (`produce`, the default: the
 *   producer, and a consumer alongside), whose own fields the step also holds
 * @property {number|null} [cpus]  kind capacity: each local node's CPU cap
 * @property {import('./seed-columns.js').StepSeed|null} [seed]  the seed's row this step stands for, and its figures (`seed:`)
 * @typedef {object} Spec
 * @property {string} dir
 * @property {string} name
 * @property {string} file
 * @property {string} title
 * @property {string} seed
 * @property {Topology} topology
 * @property {Step[]} steps
 * @property {string|null} finding
 * @property {string|null} check
 * @property {import('./check.js').Node|null} checkTree
 * @property {string|null} decideBy  what would decide the check when it is inconclusive (`decideBy:`): RESULTS.md and the index say it
 * @property {string|null} checkTests  what the check tests of the finding, and what it leaves untested (the index lists it)
 * @property {string|null} notes
 * @property {Array<[string, string]>|null} seedColumns  per seed column: "same quantity …" or "stand-in: …"
 * @property {Array<[string, string[]]>|null} seedMetrics  per seed column: the metrics that are this run's figures for it (`seedMetrics:`)
 * @property {import('./regime.js').Regime|null} regime  where the steps' load is placed (`regime:`): every step's rate
 *   scaled so the reference step's busiest master engine is at this share of a core
 * @property {number|null} seedNodeVcpus  the vCPUs of the seed's node, whose CPU figures are % of the whole node (CloudWatch's
 *   CPUUtilization: 50% of a 2-vCPU node is one core saturated); the tables put this run's CPU in that unit beside % of one core
 * @property {import('./seed-effects.js').SeedEffect[]} seedEffects  the seed's own change for comparisons of the check
 *   (`seedEffects:`): RESULTS.md says whether this run's interval includes it
 * @property {Record<string, any>} kindSpec  the spec-wide values of its steps' kind (readSpec), e.g. forRate
 * @property {number} repeat  trials per step (`repeat:`, default 6)
 * @property {number} noise   the noise threshold, relative (`noiseThreshold:` in %, default 2 → 0.02)
 */

/**
 * @param {string} dir experiments/<name>
 * @returns {Spec}
 * @throws {UsageError} one line: `<file>: <field path> <problem>`
 */
export function loadSpec(dir) {
  const file = path.join(dir, SPEC_FILE);
  const fail = (msg) => new UsageError(`${file}: ${msg}`);
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    // the directory given is a file: say which directory is meant
    const why = e.code === 'ENOTDIR' ? `${dir} is not a directory: give the directory that holds ${SPEC_FILE}` : fileReason(e);
    throw fail(`cannot read it (${why})`);
  }
  const { value: raw, problem: notYaml } = readYamlText(text);
  if (notYaml) throw fail(notYaml);
  try {
    return build(raw, dir, file);
  } catch (e) {
    if (e instanceof SpecProblem) throw fail(e.message);
    throw e;
  }
}

class SpecProblem extends Error {}
const problem = (msg) => new SpecProblem(msg);

function build(raw, dir, file) {
  if (!isMap(raw)) throw problem('must be a map of fields (title, seed, topology, flags, steps or matrix, …)');
  unknownKeys(raw, TOP, '');
  const title = text(raw.title, 'title');
  const seed = text(raw.seed, 'seed');
  const topology = readTopology(raw.topology);
  const duration = seconds(raw.duration ?? 6, 'duration', 1);
  const warmup = seconds(raw.warmup ?? 1, 'warmup', 0);
  checkFlagMap(raw.flags, 'flags');
  const consumer = readConsumer(raw.consumer, 'consumer');
  const at = readAt(raw.at, 'at');
  if (raw.steps !== undefined && raw.matrix !== undefined) throw problem('steps and matrix: use one of them, not both');
  if (raw.steps === undefined && raw.matrix === undefined) throw problem('steps (a list) or matrix (flag → list of values) is needed');
  if (raw.matrix !== undefined && (raw.kind ?? DEFAULT_STEP_KIND) !== DEFAULT_STEP_KIND)
    throw problem('matrix is for produce steps: steps of another kind are listed in steps:');
  if (raw.kind !== undefined && !STEP_KIND_NAMES.includes(raw.kind))
    throw problem(`kind must be one of ${STEP_KIND_NAMES.join(', ')} (got ${JSON.stringify(raw.kind)})`);
  const drafts = raw.steps !== undefined ? readSteps(raw.steps, raw) : expandMatrix(raw.matrix);
  if (new Set(drafts.map((d) => d.kind)).size > 1)
    throw problem(`steps must all be of one kind (${STEP_KIND_NAMES.join(', ')}): their tables differ`);
  const kind = STEP_KINDS[drafts[0].kind];
  const foreign = STEP_KIND_SPEC_FIELDS.find((f) => raw[f] !== undefined && !kind.specFields.includes(f));
  if (foreign)
    throw problem(
      `${foreign} is for steps of another kind (${Object.values(STEP_KINDS)
        .filter((k) => k.specFields.includes(foreign))
        .map((k) => `kind: ${k.name}`)
        .join(', ')})`,
    );
  const topologyBad = kind.topologyProblem(topology);
  if (topologyBad) throw problem(`topology: ${topologyBad}`);
  const kindSpec = kind.readSpec ? asProblem(() => kind.readSpec(raw)) : {};
  const steps = drafts.map((d) => completeStep(d, { flags: raw.flags ?? {}, consumer, duration, warmup, at, topology }));
  markVaried(steps);
  const finding = raw.finding === undefined ? null : text(raw.finding, 'finding');
  const check = raw.check === undefined ? null : text(raw.check, 'check');
  const checkTree = check === null ? null : readCheck(check, steps);
  const seedEffects = readSeedEffects(raw.seedEffects, checkTree, problem);
  markFailuresMeasured(steps, checkTree);
  const notes = raw.notes === undefined ? null : text(raw.notes, 'notes');
  const notesWhy =
    notes === null
      ? null
      : notesProblem(
          notes,
          steps.map((s) => s.name),
          kind.metrics,
        );
  if (notesWhy) throw problem(notesWhy);
  const checkTests = raw.checkTests === undefined ? null : text(raw.checkTests, 'checkTests');
  const decideBy = raw.decideBy === undefined ? null : text(raw.decideBy, 'decideBy');
  if (decideBy !== null && check === null) throw problem('decideBy needs a check: (it says what would decide an inconclusive one)');
  const seedColumns = readSeedColumns(raw.seedColumns, problem);
  drafts.forEach((d, i) => {
    const seedOf = readStepSeed(d.seedRaw, `steps[${i}].seed`, seedColumns, problem);
    if (seedOf) steps[i].seed = seedOf;
  });
  const seedMetrics = readSeedMetrics(raw.seedMetrics, seedColumns, kind.metrics, problem);
  const seedNodeVcpus = raw.seedNodeVcpus === undefined ? null : int(raw.seedNodeVcpus, 'seedNodeVcpus', 1, 448);
  const regime = readRegime(
    raw.regime,
    steps.map((s) => s.name),
    problem,
  );
  if (regime && kind.name !== DEFAULT_STEP_KIND) throw problem(`regime is for ${DEFAULT_STEP_KIND} steps: it scales their rate`);
  if (regime && !topology.local) throw problem('regime needs topology local: the probes run against a Redis started for the spec');
  if (regime && steps.find((st) => st.name === regime.step)?.count)
    throw problem(`regime.step must be a step that is timed, not counted (${regime.step} has count:): the probes read its CPU`);
  // in the regime a window must hold whole periods: a part of one would weigh a burst or a lull
  if (regime)
    steps.forEach((st, i) => {
      const periodMs = Number(st.flags.p ?? st.flags.period ?? 1000);
      const windowMs = (st.duration - st.warmup) * 1000;
      if (windowMs % periodMs !== 0)
        throw problem(
          `steps[${i}] (${st.name}): with regime:, the measured window (duration ${st.duration} s - warmup ${st.warmup} s) must be a whole number of its periods (-p ${periodMs} ms)`,
        );
    });
  const repeat = raw.repeat === undefined ? DEFAULT_REPEAT : int(raw.repeat, 'repeat', 1, MAX_REPEAT);
  const noisePct = raw.noiseThreshold ?? DEFAULT_NOISE_PCT;
  if (typeof noisePct !== 'number' || !Number.isFinite(noisePct) || noisePct < 0 || noisePct >= 100)
    throw problem(`noiseThreshold must be a percentage from 0 to below 100 (got ${JSON.stringify(noisePct)})`);
  return {
    dir,
    name: path.basename(path.resolve(dir)),
    file,
    title,
    seed,
    topology,
    steps,
    finding,
    check,
    checkTree,
    checkTests,
    decideBy,
    notes,
    seedColumns,
    seedMetrics,
    seedNodeVcpus,
    regime,
    seedEffects,
    kindSpec,
    repeat,
    noise: noisePct / 100,
  };
}

/** @returns {Topology} */
function readTopology(t) {
  if (!isMap(t)) throw problem('topology must be a map: { local: { cluster, masters, replicas, cpus } } or { url, cluster, instanceType }');
  unknownKeys(t, TOPOLOGY, 'topology');
  if ([t.local, t.url, t.queue].filter((x) => x !== undefined).length !== 1)
    throw problem('topology needs exactly one of local:, url: (Redis) or queue: (a queue service)');
  if (t.queue !== undefined) return readQueueTopology(t);
  const cluster = t.cluster === undefined ? undefined : bool(t.cluster, 'topology.cluster');
  if (t.local !== undefined) {
    const l = t.local ?? {};
    if (!isMap(l)) throw problem('topology.local must be a map: { cluster, masters, replicas, cpus }');
    unknownKeys(l, LOCAL, 'topology.local');
    const isCluster = l.cluster === undefined ? false : bool(l.cluster, 'topology.local.cluster');
    if (cluster !== undefined) throw problem('topology.cluster is for an endpoint; a local one says topology.local.cluster');
    const masters = isCluster ? int(l.masters ?? 3, 'topology.local.masters', settings.localMasters.min, settings.localMasters.max) : 1;
    if (!isCluster && l.masters !== undefined) throw problem('topology.local.masters needs topology.local.cluster: true');
    const replicas = int(
      l.replicas ?? (isCluster ? 1 : 0),
      'topology.local.replicas',
      settings.localReplicas.min,
      settings.localReplicas.max,
    );
    const cpus = l.cpus === undefined ? null : l.cpus;
    if (cpus !== null && !validCpus(cpus, SPEC_MAX_CPUS))
      throw problem(`topology.local.cpus must be ${cpusAccepted(SPEC_MAX_CPUS)} (got ${JSON.stringify(cpus)})`);
    const shape = isCluster
      ? `local cluster ${masters}x${replicas}`
      : `local standalone${replicas ? ` +${replicas} replica${replicas > 1 ? 's' : ''}` : ''}`;
    const capped = cpus === null ? shape : `${shape}, ${cpus} core per node`;
    const label = t.instanceType === undefined ? capped : text(t.instanceType, 'topology.instanceType');
    return { local: { cluster: isCluster, masters, replicas, cpus }, url: null, cluster: isCluster, label };
  }
  const url = text(t.url, 'topology.url');
  let u;
  try {
    u = new URL(url);
  } catch {
    throw problem('topology.url must be a redis:// or rediss:// URL');
  }
  if (!['redis:', 'rediss:'].includes(u.protocol)) throw problem('topology.url must be a redis:// or rediss:// URL');
  // a password belongs in REDIS_PASSWORD, never in a committed spec
  if (u.password) throw problem('topology.url must not hold a password (set REDIS_PASSWORD instead)');
  const label = text(t.instanceType ?? u.host, 'topology.instanceType');
  return { local: null, url, cluster: cluster ?? false, label };
}

/** `queue: { emulator: sqs }`, `{ endpoint: https://… }` or `{}` (the cloud). @returns {Topology} */
function readQueueTopology(t) {
  const q = t.queue ?? {};
  if (!isMap(q)) throw problem('topology.queue must be a map: { emulator: sqs|pubsub } or { endpoint } or {} (the cloud)');
  unknownKeys(q, QUEUE, 'topology.queue');
  if (q.emulator !== undefined && q.endpoint !== undefined) throw problem('topology.queue needs one of emulator: or endpoint:, not both');
  if (t.cluster !== undefined) throw problem('topology.cluster is for Redis');
  if (q.emulator !== undefined && !EMULATORS.includes(q.emulator))
    throw problem(`topology.queue.emulator must be one of ${EMULATORS.join(', ')} (got ${JSON.stringify(q.emulator)})`);
  const endpoint = q.endpoint === undefined ? null : text(q.endpoint, 'topology.queue.endpoint');
  // credentials come from the SDKs' chains, never from a committed spec
  if (endpoint && /\/\/[^/]*@/.test(endpoint))
    throw problem('topology.queue.endpoint must not hold credentials (the AWS and Google credential chains give them)');
  const label =
    t.instanceType === undefined
      ? q.emulator
        ? `local ${q.emulator === 'sqs' ? 'SQS/SNS' : 'Pub/Sub'} emulator`
        : (endpoint ?? 'the cloud service')
      : text(t.instanceType, 'topology.instanceType');
  return { local: null, url: null, queue: { emulator: q.emulator ?? null, endpoint }, cluster: false, label };
}

function readConsumer(c, where) {
  if (c === undefined || c === null || c === false) return null;
  if (c === true) return {};
  checkFlagMap(c, where);
  return c;
}

function readAt(at, where) {
  if (at === undefined || at === null) return [];
  if (!Array.isArray(at) || !at.every((x) => typeof x === 'string' || typeof x === 'number')) {
    throw problem(`${where} must be a list like ["5:reshard:500", "12:remove-shard"]`);
  }
  return at.map(String);
}

function readSteps(steps, raw) {
  if (!Array.isArray(steps) || !steps.length) throw problem('steps must be a non-empty list of { name, flags, … }');
  const seen = new Set();
  return steps.map((s, i) => {
    const p = `steps[${i}]`;
    if (!isMap(s)) throw problem(`${p} must be a map: { name, flags, consumer, duration, warmup, at }`);
    unknownKeys(s, STEP, p);
    const name = text(s.name, `${p}.name`);
    if (!STEP_NAME.test(name))
      throw problem(`${p}.name must be letters, digits and _ starting with a letter (got ${JSON.stringify(name)})`);
    if (seen.has(name)) throw problem(`${p}.name ${JSON.stringify(name)} is used by an earlier step`);
    seen.add(name);
    checkFlagMap(s.flags, `${p}.flags`);
    const kind = s.kind ?? raw.kind ?? DEFAULT_STEP_KIND;
    if (!STEP_KIND_NAMES.includes(kind))
      throw problem(`${p}.kind must be one of ${STEP_KIND_NAMES.join(', ')} (got ${JSON.stringify(kind)})`);
    const foreign = STEP_KIND_FIELDS.find((k) => s[k] !== undefined && !STEP_KINDS[kind].fields.includes(k));
    if (foreign)
      throw problem(
        `${p}.${foreign} is for steps of another kind (${Object.values(STEP_KINDS)
          .filter((k) => k.fields.includes(foreign))
          .map((k) => `kind: ${k.name}`)
          .join(', ')})`,
      );
    const own = asProblem(() => STEP_KINDS[kind].read(s, p, raw));
    return {
      kind,
      ...own,
      name,
      path: p,
      label: s.label === undefined ? name : text(s.label, `${p}.label`),
      flags: s.flags ?? {},
      flagPaths: Object.fromEntries(Object.keys(s.flags ?? {}).map((k) => [k, `${p}.flags.${k}`])),
      consumer: s.consumer === undefined ? undefined : readConsumer(s.consumer, `${p}.consumer`),
      consumerPaths: isMap(s.consumer) ? pathsOf(s.consumer, `${p}.consumer`) : {},
      duration: s.duration === undefined ? undefined : seconds(s.duration, `${p}.duration`, 1),
      warmup: s.warmup === undefined ? undefined : seconds(s.warmup, `${p}.warmup`, 0),
      at: s.at === undefined ? undefined : readAt(s.at, `${p}.at`),
      repeat: s.repeat === undefined ? null : int(s.repeat, `${p}.repeat`, 1, MAX_REPEAT),
      seedRaw: s.seed,
    };
  });
}

/** `matrix: { t: [1, 2], q: [20000, 40000] }` → 4 steps t1_q20000 … in the order written (last key fastest). */
function expandMatrix(m) {
  if (!isMap(m) || !Object.keys(m).length)
    throw problem('matrix must be a map of flag → list of values, e.g. { t: [1, 2], q: [20000, 40000] }');
  let combos = [{ flags: {}, consumer: {}, parts: [], flagPaths: {}, consumerPaths: {} }];
  for (const [key, values] of Object.entries(m)) {
    const p = `matrix.${key}`;
    if (!Array.isArray(values) || !values.length) throw problem(`${p} must be a non-empty list of values`);
    const isConsumer = key.startsWith('consumer.');
    const flag = isConsumer ? key.slice('consumer.'.length) : key;
    const probe = flagMapProblem({ [flag]: values[0] }, isConsumer ? 'matrix.consumer' : 'matrix');
    if (probe) throw problem(probe);
    combos = combos.flatMap((c) =>
      values.map((v, j) => {
        const bad = flagMapProblem({ [flag]: v }, 'matrix');
        if (bad) throw problem(`${p}[${j}] must be a number, a string or true/false`);
        const part = `${flag.replace(/[^A-Za-z0-9]/g, '')}${v === true ? '' : v === false ? '_off' : String(v).replace(/[^A-Za-z0-9]/g, '')}`;
        return {
          flags: isConsumer ? c.flags : { ...c.flags, [flag]: v },
          consumer: isConsumer ? { ...c.consumer, [flag]: v } : c.consumer,
          parts: [...c.parts, part],
          flagPaths: isConsumer ? c.flagPaths : { ...c.flagPaths, [flag]: `${p}[${j}]` },
          consumerPaths: isConsumer ? { ...c.consumerPaths, [flag]: `${p}[${j}]` } : c.consumerPaths,
        };
      }),
    );
  }
  return combos.map((c, i) => ({
    kind: DEFAULT_STEP_KIND,
    name: /^[A-Za-z]/.test(c.parts[0]) ? c.parts.join('_') : `s${i + 1}_${c.parts.join('_')}`,
    path: 'matrix',
    label: c.parts.join(' '),
    flags: c.flags,
    flagPaths: c.flagPaths,
    consumer: Object.keys(c.consumer).length ? c.consumer : undefined,
    consumerPaths: c.consumerPaths,
  }));
}

/**
 * Merges the spec-wide fields into a step; its kind checks it with its CLIs' own checks.
 * @returns {Step}
 */
function completeStep(d, common) {
  const origins = { ...pathsOf(common.flags, 'flags'), ...d.flagPaths };
  const flags = { ...common.flags, ...d.flags };
  // per-writer is the seed's "items per writer per sec": q = per-writer x t
  if (flags['per-writer'] !== undefined) {
    const pw = flags['per-writer'];
    const where = origins['per-writer'];
    if (!Number.isInteger(pw) || pw < 1) throw problem(`${where} must be a positive integer`);
    if (flags.q !== undefined || flags.quantity !== undefined) throw problem(`${where} and q: give one of them (q = per-writer x t)`);
    const t = flags.t ?? flags.writers ?? 1;
    flags.q = Number.isInteger(t) ? pw * t : pw;
    origins.q = where;
    delete flags['per-writer'];
  }
  const duration = d.duration ?? common.duration;
  const warmup = d.warmup ?? common.warmup;
  const step = asProblem(() => STEP_KINDS[d.kind].complete(d, { ...common, flags, duration, warmup, origins }));
  return /** @type {Step} */ ({ ...step, repeat: d.repeat ?? null });
}

/**
 * A kind's hook, its KindProblem as the spec's one line.
 * @template T
 * @param {() => T} fn
 * @returns {T}
 */
function asProblem(fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof KindProblem) throw problem(e.message);
    throw e;
  }
}

function pathsOf(map, prefix) {
  return Object.fromEntries(Object.keys(map).map((k) => [k, `${prefix}.${k}`]));
}

/** The flags whose values differ between steps become the table's extra columns. */
function markVaried(steps) {
  const keys = new Set(steps.flatMap((s) => Object.keys(s.flags)));
  const varied = [...keys].filter((k) => new Set(steps.map((s) => JSON.stringify(s.flags[k] ?? null))).size > 1);
  for (const s of steps) s.varied = varied;
}

/** The metrics that count writes that failed: a check on them makes failures the measurement. */
const FAILURE_METRICS = ['failed', 'lost'];

/**
 * Marks the steps whose failed or lost items the check reads (by name, or as first / last).
 * @param {Step[]} steps
 * @param {import('./check.js').Node|null} tree
 */
function markFailuresMeasured(steps, tree) {
  const refs = tree ? refsOf(tree).filter((r) => FAILURE_METRICS.includes(r.metric)) : [];
  steps.forEach((s, i) => {
    s.failuresMeasured = refs.some(
      (r) => r.step === s.name || (r.step === 'first' && i === 0) || (r.step === 'last' && i === steps.length - 1),
    );
  });
}

function readCheck(check, steps) {
  let tree;
  try {
    tree = parseCheck(check);
    comparisonsOf(tree);
  } catch (e) {
    throw problem(`check: ${e.message}`);
  }
  const names = new Set(['first', 'last', ...steps.map((s) => s.name)]);
  // the metrics of the steps' kind
  const metrics = STEP_KINDS[steps[0].kind].metrics;
  for (const r of refsOf(tree)) {
    if (!names.has(r.step))
      throw problem(`check: "${r.text}" names no step (steps: ${steps.map((s) => s.name).join(', ')}; or first, last)`);
    if (!(r.metric in metrics))
      throw problem(`check: "${r.text}": ${r.metric} is not a metric (known: ${Object.keys(metrics).join(', ')})`);
  }
  return tree;
}

function checkFlagMap(flags, where) {
  const p = flagMapProblem(flags, where);
  if (p) throw problem(p);
}

function unknownKeys(map, known, where) {
  const extra = Object.keys(map).find((k) => !known.includes(k));
  if (extra !== undefined) throw problem(`${where ? `${where}.` : ''}${extra} is not a field here (known: ${known.join(', ')})`);
}

function isMap(x) {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

function text(v, where) {
  if (typeof v !== 'string' || !v.trim()) throw problem(`${where} must be a non-empty string`);
  return v.trim();
}

function bool(v, where) {
  if (typeof v !== 'boolean') throw problem(`${where} must be true or false`);
  return v;
}

function int(v, where, min, max) {
  if (!Number.isInteger(v) || v < min || v > max)
    throw problem(`${where} must be an integer from ${min} to ${max} (got ${JSON.stringify(v)})`);
  return v;
}

/**
 * A spec's duration or warm-up: at most a week, as -d (settings.maxDurationSeconds: past about
 * 24.8 days a Node timer fires at once), said here with the field's name; the commands' own "0:
 * until Ctrl-C" is not for a spec, whose steps always end.
 */
function seconds(v, where, min) {
  const max = settings.maxDurationSeconds;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
    throw problem(`${where} must be a number of seconds from ${min} to ${max} (got ${JSON.stringify(v)})`);
  return v;
}
