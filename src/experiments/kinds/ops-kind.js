/**
 * Steps of kind `ops` (seeds 003 and 004): `rqbench ops`, each operation of the step's services
 * timed one call at a time on a fresh connection — connect, the first call, `warmup` seconds of
 * unrecorded calls, then `duration` seconds measured. `flags` are ops's own (`only`, `region`,
 * `project`, …); the runner owns where the services are and the output. On a local topology the
 * runner starts what the steps need once (a throwaway Redis, the SQS/SNS emulator, the Pub/Sub
 * emulator) and passes `--url`, `--endpoint`, `--pubsub-endpoint`, so each server's CPU can be
 * read around each step; `queue: { emulator }` starts that emulator alone, `queue: { endpoint }`
 * names one, `url:` is a Redis endpoint (queue services then go to their cloud, or to the
 * endpoints a step's flags name). RESULTS.md has seed 003's per-operation table, seed 004's
 * connect / first call / warm table, and wrk2's "Detailed Percentile spectrum" of the warm calls
 * of the operations `spectrum:` names.
 *
 *   kind: ops
 *   topology: { local: {} }
 *   duration: 4                      # seconds measured per operation
 *   warmup: 1                        # seconds of unrecorded calls per operation first
 *   spectrum: [redis.GET]            # service.Operation (spec-wide, or per step)
 *   steps:
 *     - { name: redis, flags: { only: redis } }
 *     - { name: sqs, flags: { only: sqs } }
 */
import fs from 'node:fs';
import path from 'node:path';
import { connectionOptions } from '../../plans/connection.js';
import { outputOptions } from '../../plans/output.js';
import { opsOptions, opsPlan } from '../../plans/ops-plan.js';
import { ownedFlags, stepArgv } from '../command-line.js';
import { newestRun, readJson, stepRecord } from '../layout.js';
import { commandLine, runChild } from '../children.js';
import { KindProblem } from './kind-contract.js';
import { commandProblem, fieldOf, joinLists } from './kind-flags.js';
import { cpuBetween, startServers } from './kind-servers.js';
import { OPS_METRICS, opsMetricsOf, opsResults, OPS_OF, SERVICE_NAMES } from './ops-results.js';
import { opsDrivers } from '../../transports/ops-drivers.js';
import { FAUXQS } from '../../transports/sqs-driver.js';
import { MOTO as MOTO_EMULATOR } from '../../transports/api-driver.js';

export const name = 'ops';
export const fields = ['spectrum'];
export const specFields = ['spectrum'];
export const metrics = OPS_METRICS;
export const metricsOf = opsMetricsOf;
export const results = opsResults;

/** Where the queue services are: the runner's, on a local or queue topology. */
const WHERE_FLAGS = ownedFlags(['endpoint']);
/** What a service's setup and teardown take, beside its operations' time, for the ETA. */
const SERVICE_OVERHEAD_S = 2;
/** The services each local stand-in serves, as their drivers declare it. @param {string} emulator */
const servedBy = (emulator) =>
  opsDrivers()
    .filter((d) => d.emulator?.name === emulator)
    .map((d) => d.name);
/** On the SQS/SNS/S3 emulator (fauxqs, in the runner's process). */
const AWS = servedBy(FAUXQS.name);
/** On moto's server (a child the runner starts). */
const MOTO = servedBy(MOTO_EMULATOR.name);

/** @param {import('../spec.js').Topology} t */
export function topologyProblem(t) {
  return t.local || t.url || t.queue ? null : 'an ops step needs topology local:, url: or queue:';
}

/**
 * `spectrum: redis.GET` or a list of them, checked against the services and their operations.
 * @param {unknown} v
 * @param {string} where its field
 * @returns {Array<{ service: string, op: string }>}
 */
function readSpectrum(v, where) {
  if (v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((x, i) => {
    const at = Array.isArray(v) ? `${where}[${i}]` : where;
    const m = typeof x === 'string' ? /^(\w+)\.(\w+)$/.exec(x.trim()) : null;
    if (!m) throw new KindProblem(`${at} must be service.Operation, e.g. redis.GET (got ${JSON.stringify(x)})`);
    const service = m[1].toLowerCase();
    if (!OPS_OF[service])
      throw new KindProblem(`${at}: ${m[1]} is not a service of rqbench ops (known: ${Object.keys(OPS_OF).join(', ')})`);
    const op = OPS_OF[service].find((o) => o.toLowerCase() === m[2].toLowerCase());
    if (!op) throw new KindProblem(`${at}: ${m[2]} is not an operation of ${service} (known: ${OPS_OF[service].join(', ')})`);
    return { service, op };
  });
}

/**
 * @param {Record<string, any>} s the step as written
 * @param {string} p its path
 * @param {Record<string, any>} raw the spec as written
 */
export function read(s, p, raw) {
  const own = readSpectrum(s.spectrum, `${p}.spectrum`);
  // spec-wide ones apply to the steps that time their service
  const wide = readSpectrum(raw.spectrum, 'spectrum');
  return { spectrum: own, spectrumWide: wide };
}

/**
 * @param {Record<string, any>} d the step as read
 * @param {import('./kind-contract.js').CommonFields} common
 */
export function complete(d, { flags: given, duration, warmup, consumer, at, topology }) {
  if (consumer || d.consumer) throw new KindProblem(`${d.path}: an ops step has no consumer`);
  if (at.length || d.at?.length) throw new KindProblem(`${d.path}: at: is for Redis Cluster steps, not an ops step`);
  const flags = joinLists(given, ['only']);
  const fieldFor = fieldOf(d, flags, {});
  const runnerWhere = Boolean(topology.local || topology.queue);
  const owned = Object.keys(flags).find((k) => WHERE_FLAGS.has(k) && runnerWhere);
  if (owned)
    throw new KindProblem(`${fieldFor(owned)} is set by the runner (from the topology: the servers it starts, or topology.queue.endpoint)`);
  const services = String(flags.only ?? 'redis')
    .split(',')
    .map((x) => x.trim().toLowerCase())
    .filter(Boolean);
  const onlyField = fieldFor('only');
  const q = topology.queue;
  if (q && services.includes('redis'))
    throw new KindProblem(`${onlyField}: redis needs topology local: or url: (this topology is a queue service)`);
  if (q?.emulator === 'sqs' && services.includes('pubsub'))
    throw new KindProblem(`${onlyField}: pubsub is not on the SQS/SNS emulator (topology.queue.emulator: sqs)`);
  if (q?.emulator === 'pubsub' && services.some((x) => AWS.includes(x)))
    throw new KindProblem(
      `${onlyField}: ${services.find((x) => AWS.includes(x))} is not on the Pub/Sub emulator (topology.queue.emulator: pubsub)`,
    );
  if (q?.endpoint && services.includes('pubsub') && services.some((x) => AWS.includes(x) || MOTO.includes(x)))
    throw new KindProblem(`${onlyField}: one topology.queue.endpoint cannot serve both Pub/Sub and AWS services (one step per service)`);
  const onMoto = services.find((x) => MOTO.includes(x));
  if (q?.emulator && onMoto)
    throw new KindProblem(
      `${onlyField}: ${onMoto} is on moto's server, which topology local: starts (topology.queue.emulator is ${q.emulator})`,
    );
  const step = {
    kind: name,
    name: d.name,
    label: d.label,
    duration,
    warmup,
    flags,
    consumer: null,
    at: [],
    varied: [],
    services,
    spectrum: [
      ...d.spectrumWide.filter((x) => services.includes(x.service) && !d.spectrum.some((y) => y.service === x.service && y.op === x.op)),
      ...d.spectrum,
    ],
  };
  const fields = fieldOf(d, flags, {
    duration: `${d.path}.duration (or duration)`,
    warmup: `${d.path}.warmup (or warmup)`,
    url: 'topology.url',
    endpoint: 'topology.queue.endpoint',
    'pubsub-endpoint': 'topology.queue.endpoint',
  });
  // the command's own checks, with the kind of address the runner will give
  const places = {
    redisUrl: 'redis://127.0.0.1:6379',
    sqsEndpoint: 'http://127.0.0.1:4566',
    pubsubEndpoint: '127.0.0.1:8085',
    motoEndpoint: 'http://127.0.0.1:5000',
  };
  const bad = commandProblem(
    argvOf(step, topology, places, '.').slice(2),
    (y) => opsOptions(outputOptions(connectionOptions(y))),
    opsPlan,
    fields,
    'ops',
  );
  if (bad) throw new KindProblem(bad);
  const stray = d.spectrum.find((x) => !services.includes(x.service));
  if (stray)
    throw new KindProblem(
      `${d.path}.spectrum: ${stray.service}.${stray.op} is not timed by this step (${onlyField}: ${services.join(',')})`,
    );
  return step;
}

/**
 * The step's command (relative paths, so it can be pasted from the repo root).
 * @param {any} step
 * @param {import('../spec.js').Topology} topology
 * @param {{ redisUrl?: string|null, sqsEndpoint?: string|null, pubsubEndpoint?: string|null, motoEndpoint?: string|null }} servers what the runner started
 * @param {string} out the step's directory
 * @returns {string[]} argv after `node`: src/cli.js ops …
 */
function argvOf(step, topology, servers, out) {
  const has = (x) => step.services.includes(x);
  const q = topology.queue;
  const redis = !has('redis')
    ? []
    : topology.local
      ? ['--url', String(servers.redisUrl), ...(topology.local.cluster ? ['--cluster'] : [])]
      : ['--url', String(topology.url), ...(topology.cluster ? ['--cluster'] : [])];
  const aws = topology.local || q?.emulator ? servers.sqsEndpoint : q?.endpoint;
  const pubsub = topology.local || q?.emulator ? servers.pubsubEndpoint : q?.endpoint;
  const where = [
    // a topology.queue.endpoint (AWS, LocalStack) serves moto's services too, through --endpoint
    ...((AWS.some(has) || (MOTO.some(has) && !topology.local)) && aws ? ['--endpoint', aws] : []),
    ...(MOTO.some(has) && topology.local ? ['--api-endpoint', String(servers.motoEndpoint)] : []),
    ...(has('pubsub') && pubsub ? ['--pubsub-endpoint', pubsub] : []),
  ];
  return stepArgv({
    cli: ['src/cli.js', 'ops'],
    flags: step.flags,
    target: [...redis, ...where],
    length: { duration: step.duration, warmup: step.warmup },
    output: { out, name: 'ops' },
  });
}

/**
 * What the steps need, started once: on a local topology a Redis and the emulators the steps'
 * services use; on `queue: { emulator }` that emulator.
 * @param {import('../spec.js').Spec} spec
 * @param {{ log: (line: string) => void, signal: AbortSignal }} ctx
 */
export async function start(spec, { log, signal }) {
  const used = new Set(spec.steps.flatMap((s) => /** @type {any} */ (s).services));
  const t = spec.topology;
  return startServers(
    {
      redis: t.local && used.has('redis') ? t.local : null,
      sqs: (Boolean(t.local) || t.queue?.emulator === 'sqs') && AWS.some((x) => used.has(x)),
      moto: Boolean(t.local) && MOTO.some((x) => used.has(x)),
      pubsub: (Boolean(t.local) || t.queue?.emulator === 'pubsub') && used.has('pubsub'),
    },
    { log, signal },
  );
}

/**
 * Runs the step; step.json before and after, with the CPU each server and the ops process used meanwhile.
 * @param {any} step
 * @param {import('./kind-contract.js').RunContext} ctx
 */
export async function run(step, { stepDir, out, topology, stopper, shared }) {
  fs.mkdirSync(stepDir, { recursive: true });
  const servers = /** @type {import('./kind-servers.js').Servers} */ (/** @type {unknown} */ (shared));
  const argv = argvOf(step, topology, servers, out);
  const meta = {
    name: step.name,
    label: step.label,
    kind: name,
    startedAt: new Date().toISOString(),
    commands: [commandLine('node', argv)],
    ok: false,
    ...(step.services.includes('redis') && { redisVersion: servers.redisVersion }),
  };
  const save = stepRecord(stepDir, meta);
  const before = servers.mark();
  const r = await runChild(argv, stopper);
  const cpu = cpuBetween(before, servers.mark());
  const back = readBack(stepDir, null);
  // exit 1 with a whole summary: an operation failed, and the summary says which (RESULTS.md shows it)
  const finished = Boolean(back.summary) && !back.summary.incomplete && (r.code === 0 || r.code === 1);
  const has = (x) => step.services.includes(x);
  Object.assign(meta, {
    endedAt: new Date().toISOString(),
    exitCodes: [r.code ?? r.signal],
    ok: finished && !stopper.stopped,
    // only the servers this step used: the others idle (the runner's own CPU stands for the SQS/SNS emulator)
    cpu: {
      wallS: cpu.wallS,
      rqbenchPct: cpu.rqbenchPct,
      ...(has('redis') && { redisPct: cpu.redisPct }),
      ...(AWS.some(has) && { sqsEmulatorPct: cpu.sqsEmulatorPct }),
      ...(MOTO.some(has) && { motoPct: cpu.motoPct }),
      ...(has('pubsub') && { pubsubEmulatorPct: cpu.pubsubEmulatorPct }),
    },
  });
  if (!finished) Object.assign(meta, { error: r.lastLine });
  save();
  return finished ? { ok: true } : { ok: false, error: `rqbench ops exited with ${r.code ?? r.signal}: ${r.lastLine}` };
}

/**
 * The step's run directory and its summary.json; complete when every service ran.
 * @param {string} stepDir
 * @param {any} meta step.json
 */
export function readBack(stepDir, meta) {
  const { dir: opsDir, doc: summary } = newestRun(stepDir, 'ops');
  return { opsDir, summary, complete: Boolean(summary) && !summary.interrupted && !summary.incomplete && meta?.ok === true };
}

/**
 * The host line's manifest: a step that timed Redis first (its version from step.json).
 * @param {import('./kind-contract.js').StepRun[]} steps
 */
export function manifest(steps) {
  const done = steps.filter((x) => x.r?.complete);
  const s = done.find((x) => x.step.services.includes('redis')) ?? done[0];
  const m = s ? readJson(path.join(s.r.opsDir, 'manifest.json')) : null;
  if (!m) return null;
  const redis = s.step.services.includes('redis') ? (s.r.meta?.redisVersion ?? '?') : 'not used';
  return { ...m, versions: { ...m.versions, redis } };
}

/** @param {any} step */
const opCount = (step) => step.services.reduce((t, x) => t + OPS_OF[x].length, 0);
/** @param {any} step */
export const nominalSeconds = (step) => opCount(step) * (step.warmup + step.duration) + step.services.length * SERVICE_OVERHEAD_S;
/** @param {any} step */
export const what = (step) =>
  `${step.services.map((x) => SERVICE_NAMES[x]).join(', ')}: ${opCount(step)} operations, ${step.warmup} s warm-up + ${step.duration} s each`;
/** @param {any} r */
export const figures = (r) => {
  const ops = (r?.summary?.services ?? []).flatMap((s) => s.ops.map((op) => ({ ...op, service: s.service })));
  if (!ops.length) return 'no summary';
  const failed = ops.filter((op) => op.error && !op.notEmulated).length;
  const missing = ops.filter((op) => op.notEmulated).length;
  const ms = (xs) => `${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)} ms`;
  const timed = ops.filter((op) => op.stats);
  const over = ops.filter((op) => op.overhead);
  return `${ops.length} operations, warm median ${timed.length ? ms(timed.map((op) => op.stats.p50)) : '-'}${over.length ? ` (client overhead ${ms(over.map((op) => op.overhead.p50))})` : ''}, first call ${timed.length ? ms(timed.map((op) => op.firstMs)) : '-'}${missing ? `, ${missing} not emulated` : ''}${failed ? `, ${failed} FAILED` : ''}`;
};
/** @param {import('../spec.js').Spec} spec */
export const commandsNote = (spec) => {
  if (spec.topology.local)
    return 'The `--url`, `--endpoint`, `--pubsub-endpoint` and `--api-endpoint` are the local Redis and emulators the runner started for the run (new ports each time).';
  return spec.topology.queue?.emulator
    ? `The \`--endpoint\`/\`--pubsub-endpoint\` is the ${spec.topology.queue.emulator === 'sqs' ? 'SQS/SNS' : 'Pub/Sub'} emulator the runner started (a new port each time).`
    : '';
};
/** @param {import('../spec.js').Spec} spec */
export const setupWhere = (spec) => {
  const used = new Set(spec.steps.flatMap((s) => /** @type {any} */ (s).services));
  if (spec.topology.local) {
    const emus = [
      AWS.some((x) => used.has(x)) && 'the SQS/SNS/S3 emulator (fauxqs)',
      used.has('pubsub') && 'the Pub/Sub emulator',
      MOTO.some((x) => used.has(x)) && "moto's server (STS, CloudWatch, EventBridge, DynamoDB, Pinpoint)",
    ].filter(Boolean);
    return [used.has('redis') && `${spec.topology.label}`, ...emus].filter(Boolean).join(', ') + ' on 127.0.0.1, started by the runner';
  }
  return spec.topology.queue?.emulator ? `${spec.topology.label} on 127.0.0.1, started by the runner` : spec.topology.label;
};
/** How RESULTS.md's setup line speaks of the steps. */
export const setupWords = { starter: 'started by the runner', each: ', each operation measured for' };
