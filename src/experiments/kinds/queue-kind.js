/**
 * Steps of kind `queue` (seed 000): realtime updates through a queue, the publisher and the
 * consumer run together with the real CLIs — the consumer first (it makes the queue and waits),
 * then the publisher — on a local emulator the runner starts once, or on a named endpoint or the
 * real cloud with the SDKs' credential chains. `flags` are the publisher's (`rqbench produce
 * --target sns|sqs|pubsub`), `consumer` the consumer's; the runner names the topic, queue and
 * subscription per step. RESULTS.md has the seed's table per step (Reading off SQS | Server side
 * processing | E2E, p50 and p999) with the seed's own figures beside, and who was busy: the
 * emulator's CPU and rqbench's, measured, never guessed.
 *
 *   topology: { queue: { emulator: sqs } }     # or { endpoint: https://sqs.us-east-1.amazonaws.com }, or {} (the cloud)
 *   steps:
 *     - name: b1000
 *       kind: queue
 *       flags: { target: sns, rate: 45, batch-size: 1000 }
 *       consumer: { target: sqs, threads: 4 }
 *       seedFigures: { read: [77ms, 505ms], processing: [3ms, 34ms], e2e: [316ms, 1.2s] }
 */
import fs from 'node:fs';
import path from 'node:path';
import { connectionOptions } from '../../plans/connection.js';
import { producerOptions } from '../../plans/producer-plan.js';
import { consumerOptions } from '../../plans/consumer-plan.js';
import { outputOptions } from '../../plans/output.js';
import { publisherOptions, publisherPlan, queueConsumerOptions, queueConsumerPlan } from '../../plans/queue-plan.js';
import { UsageError } from '../../usage-error.js';
import { parseQuietly } from '../flags.js';
import { COMMON_PARTS, ownedFlags, stepArgv } from '../command-line.js';
import { newestRun, readJson, stepRecord } from '../layout.js';
import { commandLine, relayArgs, runChild } from '../children.js';
import { performance } from 'node:perf_hooks';
import { KindProblem } from './kind-contract.js';
import { cpuBetween, procCpuSeconds, startServers } from './kind-servers.js';
import { queueOutOfRegime, queueResults, queueMetricsOf, QUEUE_METRICS } from './queue-results.js';
import { startLatencyProxy } from '../../local/latency-proxy.js';

export const name = 'queue';
export const fields = ['seedFigures', 'latencyModel'];
export const specFields = [];
export const metrics = QUEUE_METRICS;
export const metricsOf = queueMetricsOf;
export const results = queueResults;
/** A step the check does not name is shown by its median trial by E2E p50, the seed's figure. */
export const shownBy = 'e2e_sent_p50_ms';
export const outOfRegime = queueOutOfRegime;

/** Flags the runner sets: where, what names (the queue part), how long, where the run directories go. */
const OWNED = ownedFlags(['endpoint', 'names', ...COMMON_PARTS]);
/** The consumer loads its SDK and makes the queue before the publisher starts. */
const CONSUMER_HEAD_START_MS = 2500;
/** How long the consumer may keep reading after the publisher's last message. */
const DRAIN_S = 30;
const PUBLISHERS = ['sns', 'sqs', 'pubsub'];
const CONSUMES = { sns: 'sqs', sqs: 'sqs', pubsub: 'pubsub' };
const SEED_ROWS = ['read', 'processing', 'e2e'];

/** @param {import('../spec.js').Topology} t */
export function topologyProblem(t) {
  return t.queue ? null : 'a queue step needs a queue service: topology queue: { emulator: sqs|pubsub } or { endpoint } or {} (the cloud)';
}

/**
 * @param {Record<string, any>} s
 * @param {string} p
 */
export function read(s, p) {
  const latencyModel = readLatencyModel(s.latencyModel, `${p}.latencyModel`);
  const f = s.seedFigures;
  if (f === undefined) return { seedFigures: null, latencyModel };
  if (!f || typeof f !== 'object' || Array.isArray(f))
    throw new KindProblem(`${p}.seedFigures must be a map: { read: [p50, p999], processing: [p50, p999], e2e: [p50, p999] }`);
  for (const [k, v] of Object.entries(f)) {
    if (!SEED_ROWS.includes(k)) throw new KindProblem(`${p}.seedFigures.${k} is not a field here (known: ${SEED_ROWS.join(', ')})`);
    if (!Array.isArray(v) || v.length !== 2 || !v.every((x) => typeof x === 'string'))
      throw new KindProblem(`${p}.seedFigures.${k} must be [p50, p999] as the seed wrote them, e.g. [77ms, 505ms]`);
  }
  return { seedFigures: f, latencyModel };
}

/**
 * `latencyModel: { ReceiveMessage: [77ms, 505ms] }`: per API action, the p50 and p999 of the
 * answer's time the latency proxy draws from (local/latency-proxy.js).
 * @param {unknown} v
 * @param {string} at
 * @returns {import('../../local/latency-proxy.js').LatencyModel|null}
 */
function readLatencyModel(v, at) {
  if (v === undefined) return null;
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.keys(v).length)
    throw new KindProblem(`${at} must map API actions to [p50, p999], e.g. { ReceiveMessage: [77ms, 505ms] }`);
  return Object.fromEntries(
    Object.entries(v).map(([action, pair]) => {
      const ms = Array.isArray(pair) && pair.length === 2 ? pair.map(durationMs) : [];
      if (!/^[A-Z][A-Za-z]+$/.test(action) || ms.length !== 2 || ms.some((x) => x === null) || !(ms[0] > 0 && ms[1] > ms[0])) {
        throw new KindProblem(
          `${at}.${action} must be [p50, p999] with p50 above 0 and below p999, e.g. [77ms, 505ms] (got ${JSON.stringify(pair)})`,
        );
      }
      return [action, { p50Ms: /** @type {number} */ (ms[0]), p999Ms: /** @type {number} */ (ms[1]) }];
    }),
  );
}

/** "77ms", "1.2s", "500us" → ms, else null. */
function durationMs(x) {
  const m = typeof x === 'string' ? /^(\d+(?:\.\d+)?)\s*(us|ms|s)$/.exec(x.trim()) : null;
  if (!m) return null;
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000 }[m[2]];
}

/**
 * @param {Record<string, any>} d
 * @param {import('./kind-contract.js').CommonFields} common
 */
export function complete(d, { flags, consumer, duration, warmup, at, topology }) {
  if (at.length || d.at?.length) throw new KindProblem(`${d.path}: at: is for Redis Cluster steps, not a queue step`);
  const wanted = d.consumer === undefined ? consumer : d.consumer && { ...consumer, ...d.consumer };
  const target = flags.target;
  if (!PUBLISHERS.includes(target))
    throw new KindProblem(
      `${d.flagPaths.target ?? 'flags.target'} must be one of ${PUBLISHERS.join(', ')} (the publisher's --target) (got ${JSON.stringify(target)})`,
    );
  if (!wanted)
    throw new KindProblem(
      `${d.path}.consumer is needed: a queue step runs its consumer beside the publisher (e.g. { target: ${CONSUMES[target]}, threads: 4 })`,
    );
  const cTarget = wanted.target ?? CONSUMES[target];
  if (cTarget !== CONSUMES[target])
    throw new KindProblem(
      `${d.path}.consumer.target must be ${CONSUMES[target]} for a ${target} publisher (got ${JSON.stringify(cTarget)})`,
    );
  const owned = [...Object.keys(flags), ...Object.keys(wanted)].find((k) => OWNED.has(k));
  if (owned)
    throw new KindProblem(
      `${d.flagPaths[owned] ?? `${d.path}.consumer.${owned}`} is set by the runner (endpoint and names from the topology and the step, length from duration and warmup)`,
    );
  if (d.latencyModel && topology.queue?.emulator !== 'sqs')
    throw new KindProblem(
      `${d.path}.latencyModel needs topology queue: { emulator: sqs } (the proxy stands in front of the SQS/SNS emulator the runner starts)`,
    );
  const step = {
    kind: name,
    name: d.name,
    label: d.label,
    duration,
    warmup,
    flags,
    consumer: { ...wanted, target: cTarget },
    at: [],
    varied: [],
    seedFigures: d.seedFigures,
    latencyModel: d.latencyModel,
  };
  // the CLIs' own checks, with the names and an endpoint of the kind the runner will give
  const where = topology.queue?.endpoint ?? (cTarget === 'pubsub' ? '127.0.0.1:8085' : 'http://127.0.0.1:4566');
  for (const [role, argv] of argvOf(step, { endpoint: where }, '.')) {
    const bad = queueArgvProblem(role, argv);
    if (bad) throw new KindProblem(`${role === 'publisher' ? `${d.path}.flags` : `${d.path}.consumer`}: ${bad}`);
  }
  return step;
}

/**
 * The step's two commands (relative paths, so they can be pasted from the repo root).
 * @param {any} step
 * @param {{ endpoint?: string }} shared where the service is (none: the cloud's own)
 * @param {string} out the step's directory
 * @returns {Array<['consumer'|'publisher', string[]]>}
 */
function argvOf(step, shared, out) {
  // a queue of its own per trial: nothing a trial left behind is read by the next
  const trial = /trial-(\d+)\/?$/.exec(out)?.[1];
  const id = `rqbench-${step.name}${trial ? `-t${trial}` : ''}`.replace(/_/g, '-');
  const names = step.consumer.target === 'pubsub' ? ['--topic', id, '--subscription', id] : ['--topic', id, '--queue', id];
  const target = [...(shared.endpoint ? ['--endpoint', shared.endpoint] : []), ...names, '--create'];
  const output = (role) => ({ out, name: role, json: true });
  return [
    [
      'consumer',
      stepArgv({
        cli: ['src/consumer.js'],
        flags: step.consumer,
        target,
        length: { untilComplete: true, duration: step.duration + DRAIN_S, warmup: step.warmup },
        output: output('consumer'),
      }),
    ],
    [
      'publisher',
      stepArgv({
        cli: ['src/producer.js'],
        flags: step.flags,
        target,
        length: { duration: step.duration, warmup: step.warmup },
        output: output('publisher'),
      }),
    ],
  ];
}

/**
 * argv through the publisher's or the queue consumer's own options and checks.
 * @param {'publisher'|'consumer'} role
 * @param {string[]} argv
 * @returns {string|null}
 */
function queueArgvProblem(role, argv) {
  const build =
    role === 'publisher'
      ? (y) => outputOptions(publisherOptions(producerOptions(connectionOptions(y))))
      : (y) => outputOptions(queueConsumerOptions(consumerOptions(connectionOptions(y))));
  const { a, failure, unknown, notNumber } = parseQuietly(argv.slice(1), build);
  if (failure) return unknown ? `${unknown} is not a ${role} flag (see node ${argv[0]} --help)` : failure;
  if (notNumber) return notNumber;
  try {
    (role === 'publisher' ? publisherPlan : queueConsumerPlan)(a);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return e.message;
  }
  return null;
}

/**
 * The emulator the steps share, started once (kind-servers.js); its CPU is read around each step.
 * A named endpoint or the cloud: nothing to start, no emulator CPU.
 * @param {import('../spec.js').Spec} spec
 * @param {{ log: (line: string) => void, signal?: AbortSignal }} ctx
 * @returns {Promise<import('./kind-contract.js').Shared & { mark?: () => import('./kind-servers.js').CpuMark }>}
 */
export async function start(spec, ctx) {
  const q = spec.topology.queue;
  if (!q?.emulator) return { endpoint: q?.endpoint ?? null, stop: async () => {} };
  const servers = await startServers({ sqs: q.emulator === 'sqs', pubsub: q.emulator === 'pubsub' }, ctx);
  return { endpoint: servers.sqsEndpoint ?? servers.pubsubEndpoint, mark: servers.mark, stop: servers.stop };
}

/**
 * Runs the step: the consumer, then the publisher beside it; step.json before and after, with the
 * CPU the emulator and rqbench's two processes used meanwhile.
 * @param {any} step
 * @param {import('./kind-contract.js').RunContext} ctx
 */
export async function run(step, ctx) {
  fs.mkdirSync(ctx.stepDir, { recursive: true });
  // under the latency model, the step reaches the emulator through the proxy (in this process)
  const proxy = step.latencyModel ? await startLatencyProxy(/** @type {string} */ (ctx.shared?.endpoint), step.latencyModel) : null;
  try {
    return await runThrough(step, ctx, proxy);
  } finally {
    await proxy?.stop();
  }
}

/**
 * @param {any} step
 * @param {import('./kind-contract.js').RunContext} ctx
 * @param {import('../../local/latency-proxy.js').LatencyProxy|null} proxy
 */
async function runThrough(step, { stepDir, out, stopper, shared, live, stepLabel }, proxy) {
  const cmds = argvOf(step, proxy ? { endpoint: proxy.endpoint } : (shared ?? {}), out);
  /** @type {Record<string, any>} */
  const meta = {
    name: step.name,
    label: step.label,
    kind: name,
    startedAt: new Date().toISOString(),
    commands: cmds.map(([, argv]) => commandLine('node', argv)),
    ok: false,
    ...(proxy && {
      latencyModel: {
        model: step.latencyModel,
        how: "a proxy in the runner's process in front of the emulator: each answer of a modelled action is held until a log-normal draw through its p50 and p999 (the emulator's own time taken off); other actions pass at once",
      },
    }),
  };
  const save = stepRecord(stepDir, meta);
  const mark =
    shared?.mark ??
    (() => ({ at: performance.now(), redis: null, sqs: null, pubsub: null, moto: null, rqbench: procCpuSeconds('self', true) }));
  const before = mark();
  const relayed = (argv) => runChild([...argv, ...relayArgs(live, stepLabel)], stopper, { hub: live?.hub });
  const consumer = relayed(cmds[0][1]);
  await new Promise((r) => setTimeout(r, CONSUMER_HEAD_START_MS));
  const publisher = stopper.stopped ? null : relayed(cmds[1][1]);
  const done = await Promise.all([consumer, publisher]);
  // CPU over the step, % of one core: the emulator's, and the publisher's and consumer's together
  const cpu = cpuBetween(before, mark());
  meta.cpu = { emulatorPct: cpu.sqsEmulatorPct ?? cpu.pubsubEmulatorPct, rqbenchPct: cpu.rqbenchPct, wallS: cpu.wallS };
  const back = readBack(stepDir, null);
  // exit 1 with a summary: a run that ended and says what went wrong (the check judges it)
  const finished = (r, s) => r && s && (r.code === 0 || r.code === 1);
  const ok = finished(done[0], back.consumer) && finished(done[1], back.publisher) && !stopper.stopped;
  Object.assign(meta, { endedAt: new Date().toISOString(), exitCodes: done.map((r) => r?.code ?? r?.signal ?? null), ok });
  // what the model drew, per action: the delays the answers were held for
  if (proxy && meta.latencyModel) Object.assign(meta.latencyModel, { drawn: proxy.report() });
  const bad = done.find((r, i) => !finished(r, i ? back.publisher : back.consumer));
  if (bad) meta.error = bad.lastLine;
  save();
  return ok
    ? { ok: true }
    : { ok: false, error: `${bad?.argv?.[0] ?? 'a step process'} exited with ${bad?.code ?? bad?.signal}: ${bad?.lastLine ?? ''}` };
}

/**
 * The step's run directories and summaries; complete when both ran to their end.
 * @param {string} stepDir
 * @param {any} meta step.json
 */
export function readBack(stepDir, meta) {
  const { dir: publisherDir, doc: publisher } = newestRun(stepDir, 'publisher');
  const { dir: consumerDir, doc: consumer } = newestRun(stepDir, 'consumer');
  const done = (x) => Boolean(x) && !x.interrupted;
  return { publisherDir, consumerDir, publisher, consumer, complete: done(publisher) && done(consumer) && meta?.ok === true };
}

/** @param {import('./kind-contract.js').StepRun[]} steps */
export function manifest(steps) {
  const s = steps.find((x) => x.r?.complete);
  return s ? readJson(path.join(s.r.consumerDir, 'manifest.json')) : null;
}

/**
 * The charts: the consumers' runs, laid end to end (messages applied per second, E2E p50/p99 per
 * second, and reading off the queue, processing and E2E on the percentile axis).
 * @param {import('./kind-contract.js').StepRun[]} done
 */
export const chartDirs = (done) => done.map((s) => s.r.consumerDir);

/** @param {any} step */
export const nominalSeconds = (step) => step.duration + CONSUMER_HEAD_START_MS / 1000 + 5;
/** @param {any} step */
export const what = (step) =>
  `${step.flags.target} → ${step.consumer.target}, ${step.duration} s${step.latencyModel ? ', under the latency model' : ''}`;
/** @param {any} r */
export const figures = (r) => {
  const c = r?.consumer;
  if (!c) return 'no consumer summary';
  const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)} ms` : '-');
  const n = c.nothingLost ?? {};
  const lost = n.ok
    ? 'nothing lost'
    : n.missing
      ? `${n.missing} MISSING`
      : n.malformed
        ? `${n.malformed} MALFORMED`
        : 'unfinished: the consumer ended before the last message';
  // E2E as the seed defines it: from right before the send
  return `${Math.round(c.messagesPerSec ?? 0)} messages/s, E2E p50 ${ms(c.latency?.e2eSent?.p50)}, p999 ${ms(c.latency?.e2eSent?.p999)}, ${lost}`;
};
/** @param {import('../spec.js').Spec} spec */
export const commandsNote = (spec) =>
  spec.topology.queue?.emulator
    ? `The \`--endpoint\` is the ${spec.topology.queue.emulator === 'sqs' ? 'SQS/SNS' : 'Pub/Sub'} emulator the runner started (a new port each time).`
    : '';
export const setupWords = { starter: 'started by the runner', each: ', each' };
/** @param {import('../spec.js').Spec} spec */
export const setupWhere = (spec) =>
  spec.topology.queue?.emulator ? `${spec.topology.label} on 127.0.0.1, started by the runner` : spec.topology.label;
