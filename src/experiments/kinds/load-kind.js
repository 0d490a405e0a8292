/**
 * Steps of kind `load` (seed 001): `rqbench load <file> …`, each step a reader threads ×
 * connections grid over one delta file, into Redis or the noop or memory sink. The runner makes
 * the file once per spec (`deltaFile:`, with `rqbench load --generate`; kept in the OS temp dir by
 * its size, as `npm run bench:load` keeps its own, and reused while the size is right) and owns
 * the target and the output. A local topology's Redis is started once by the runner, so its CPU
 * can be read around each step, and each grid empties it first (`--flush`).
 *
 *   kind: load
 *   topology: { local: {} }
 *   deltaFile: { records: 1000000, recordSize: 512 }
 *   steps:
 *     - { name: noop, flags: { sink: noop, reader-threads: [1, 2], connections: 1 } }
 *     - { name: redis, flags: { reader-threads: [1, 2], connections: [4, 8] } }
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { grouped } from '../../record/format.js';
import { connectionOptions } from '../../plans/connection.js';
import { outputOptions } from '../../plans/output.js';
import { loadOptions, loadPlan } from '../../plans/load-plan.js';
import { keyOf } from '../../workloads/bulk-load/delta-file.js';
import { ownedFlags, stepArgv } from '../command-line.js';
import { newestRun, readJson, stepRecord } from '../layout.js';
import { commandLine, runChild } from '../children.js';
import { KindProblem } from './kind-contract.js';
import { commandProblem, fieldOf, joinLists } from './kind-flags.js';
import { cpuBetween, ownCpuSeconds, startServers } from './kind-servers.js';
import { cpuPctBetween, sampleCpu } from './cpu-series.js';
import { LOAD_METRICS, bestCell, loadMetricsOf, loadOutOfRegime, loadResults, sinkOf } from './load-results.js';
import { s3Client, uploadToS3 } from '../../workloads/bulk-load/s3-source.js';

export const name = 'load';
export const fields = ['from'];
export const specFields = ['deltaFile'];
export const metrics = LOAD_METRICS;
export const metricsOf = loadMetricsOf;
export const results = loadResults;
export const outOfRegime = loadOutOfRegime;

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The file's own flags and `--generate`'s: the runner's, from deltaFile:; and where S3 is (from: s3). */
const FILE_OWNED = ownedFlags(['source', 'endpoint']);
const DELTA = ['records', 'recordSize'];
/** The seed's file: 4,000,000 records of 512 bytes. */
const SEED_FILE = { records: 4_000_000, recordSize: 512 };
const KEY_PATTERN = 'delta:{n}';
/** Records per second a cell is guessed at, for the ETA before one has run. */
const GUESS_RATE = { redis: 250_000, noop: 2_000_000, memory: 1_000_000 };

/** @param {import('../spec.js').Topology} t */
export function topologyProblem(t) {
  return t.local || t.url ? null : 'a load step needs topology local: or url: (the Redis its redis sink writes to)';
}

/**
 * `deltaFile: { records, recordSize }` (the seed's 4,000,000 x 512 B when left out).
 * @param {unknown} f
 * @returns {{ records: number, recordSize: number }}
 */
function readDeltaFile(f) {
  if (f === undefined) return SEED_FILE;
  if (!f || typeof f !== 'object' || Array.isArray(f)) throw new KindProblem('deltaFile must be a map: { records, recordSize }');
  const extra = Object.keys(f).find((k) => !DELTA.includes(k));
  if (extra) throw new KindProblem(`deltaFile.${extra} is not a field here (known: ${DELTA.join(', ')})`);
  const o = /** @type {Record<string, unknown>} */ (f);
  const records = /** @type {number} */ (o.records ?? SEED_FILE.records);
  const recordSize = /** @type {number} */ (o.recordSize ?? SEED_FILE.recordSize);
  if (!Number.isInteger(records) || records < 1 || records > 2 ** 31)
    throw new KindProblem(`deltaFile.records must be an integer from 1 to ${2 ** 31} (got ${JSON.stringify(records)})`);
  const least = Buffer.byteLength(keyOf(KEY_PATTERN, Number(records) - 1)) + 3;
  if (!Number.isInteger(recordSize) || recordSize < least || recordSize > 1 << 20) {
    throw new KindProblem(
      `deltaFile.recordSize must be an integer from ${least} (keys like ${keyOf(KEY_PATTERN, Number(records) - 1)}, TAB, a value byte, LF) to ${1 << 20} (got ${JSON.stringify(recordSize)})`,
    );
  }
  return { records: Number(records), recordSize: Number(recordSize) };
}

/**
 * @param {Record<string, any>} s the step as written
 * @param {string} p its path
 * @param {Record<string, any>} raw the spec as written
 */
export function read(s, p, raw) {
  for (const [field, where] of [
    [s.duration, `${p}.duration`],
    [s.warmup, `${p}.warmup`],
    [raw.duration, 'duration'],
    [raw.warmup, 'warmup'],
  ]) {
    if (field !== undefined)
      throw new KindProblem(`${where}: a load step runs until its grid has loaded the file (no duration or warm-up)`);
  }
  if (s.from !== undefined && s.from !== 's3' && s.from !== 'file')
    throw new KindProblem(`${p}.from must be file or s3 (got ${JSON.stringify(s.from)})`);
  return { deltaFile: readDeltaFile(raw.deltaFile), from: s.from === 's3' ? 's3' : 'file' };
}

/** @param {Record<string, any>} raw */
export function readSpec(raw) {
  return { deltaFile: readDeltaFile(raw.deltaFile) };
}

/**
 * @param {Record<string, any>} d the step as read
 * @param {import('./kind-contract.js').CommonFields} common
 */
export function complete(d, { flags: given, consumer, at, topology }) {
  if (consumer || d.consumer) throw new KindProblem(`${d.path}: a load step has no consumer`);
  if (at.length || d.at?.length) throw new KindProblem(`${d.path}: at: is for Redis Cluster steps, not a load step`);
  const flags = joinLists(given, ['reader-threads', 'connections', 's3-connections']);
  const fieldFor = fieldOf(d, flags, {});
  const owned = Object.keys(flags).find((k) => FILE_OWNED.has(k) || (ownedFlags(['reset']).has(k) && topology.local));
  if (owned) {
    throw new KindProblem(
      owned === 'flush'
        ? `${fieldFor(owned)} is set by the runner (it empties the local Redis it started before each grid)`
        : owned === 'endpoint'
          ? `${fieldFor(owned)} is set by the runner (from: s3 reads the file from the S3 emulator it starts)`
          : `${fieldFor(owned)} is set by the runner (the spec's deltaFile: { records, recordSize })`,
    );
  }
  if (d.from === 's3' && !topology.local)
    throw new KindProblem(`${d.path}.from: s3 needs topology local: (the runner starts the S3 emulator and puts the file there)`);
  const step = {
    kind: name,
    name: d.name,
    label: d.label,
    duration: 0,
    warmup: 0,
    flags,
    consumer: null,
    at: [],
    varied: [],
    deltaFile: d.deltaFile,
    from: d.from,
  };
  const { records, recordSize } = d.deltaFile;
  const fields = fieldOf(d, flags, {
    'node-cpus': 'topology.local.cpus',
    url: 'topology.url',
    out: d.path,
    name: d.path,
    endpoint: `${d.path}.from`,
  });
  const argv = argvOf(step, topology, { redisUrl: 'redis://127.0.0.1:6379', sqsEndpoint: 'http://127.0.0.1:4566' }, '.');
  const bad = commandProblem(
    argv.slice(3),
    (y) => loadOptions(outputOptions(connectionOptions(y))),
    (a) => loadPlan({ ...a, file: argv[2] }, () => ({ size: records * recordSize, recordSize, records })),
    fields,
    'load',
  );
  if (bad) throw new KindProblem(bad);
  return step;
}

/**
 * Where the spec's delta file lives: the OS temp dir, named by its size (bench/load-bench.js's name).
 * @param {{ records: number, recordSize: number }} f
 */
export function deltaPath(f) {
  return path.join(os.tmpdir(), `rqbench-delta-${f.records}x${f.recordSize}.tsv`);
}

/** The bucket the runner puts the delta file in, on the S3 emulator it starts. */
const BUCKET = 'rqbench-deltas';
/** @param {{ records: number, recordSize: number }} f */
const s3Url = (f) => `s3://${BUCKET}/${path.basename(deltaPath(f))}`;

/** The command that makes the file. @param {{ records: number, recordSize: number }} f @param {string} file */
const generateArgv = (f, file) => [
  'src/cli.js',
  'load',
  '--generate',
  file,
  '--records',
  String(f.records),
  '--record-size',
  String(f.recordSize),
  '--quiet',
];

/**
 * The step's command (relative paths, so it can be pasted from the repo root).
 * @param {any} step
 * @param {import('../spec.js').Topology} topology
 * @param {{ redisUrl?: string|null, sqsEndpoint?: string|null }} servers what the runner started
 * @param {string} out the step's directory
 * @returns {string[]} argv after `node`: src/cli.js load <file> …
 */
function argvOf(step, topology, servers, out) {
  const redis = sinkOf(step.flags) === 'redis';
  const target = !redis
    ? []
    : topology.local
      ? ['--url', String(servers.redisUrl), ...(topology.local.cluster ? ['--cluster'] : []), '--flush']
      : ['--url', String(topology.url), ...(topology.cluster ? ['--cluster'] : [])];
  // from S3: the object the runner put on the emulator it started
  if (step.from === 's3')
    return stepArgv({
      cli: ['src/cli.js', 'load', s3Url(step.deltaFile)],
      flags: step.flags,
      target: ['--endpoint', String(servers.sqsEndpoint)],
      output: { out, name: 'load' },
    });
  return stepArgv({ cli: ['src/cli.js', 'load', deltaPath(step.deltaFile)], flags: step.flags, target, output: { out, name: 'load' } });
}

/**
 * The delta file, made once (a file of the right size is reused), and a local Redis when a
 * step writes to one.
 * @param {import('../spec.js').Spec} spec
 * @param {{ log: (line: string) => void, signal: AbortSignal }} ctx
 */
export async function start(spec, { log, signal }) {
  const f = spec.kindSpec.deltaFile;
  const file = deltaPath(f);
  if (sizeOf(file) === f.records * f.recordSize)
    log(`rqbench experiment: the delta file ${file} is there (${grouped(f.records)} records of ${f.recordSize} B), reused`);
  else {
    const t0 = Date.now();
    // written beside under a name of its own, then renamed: a file cut short is never taken for one
    const part = `${file}.${process.pid}.part`;
    const r = await spawnQuiet(generateArgv(f, part), signal);
    if (r.code !== 0) {
      fs.rmSync(part, { force: true });
      // stopped while writing it (Ctrl-C): nothing to share, and the runner runs no step
      if (signal.aborted) return startServers({}, { log, signal });
      throw new Error(`rqbench load --generate ${file} failed (${r.code ?? r.signal}): ${r.lastLine}`);
    }
    fs.renameSync(part, file);
    log(
      `rqbench experiment: wrote the delta file ${file} (${grouped(f.records)} records of ${f.recordSize} B) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  const redis = spec.topology.local && spec.steps.some((s) => sinkOf(s.flags) === 'redis') ? spec.topology.local : null;
  const s3 = spec.steps.some((s) => /** @type {any} */ (s).from === 's3');
  const servers = await startServers({ redis, sqs: s3 }, { log, signal });
  if (s3 && servers.sqsEndpoint && !signal.aborted) {
    try {
      const t0 = Date.now();
      const { CreateBucketCommand } = await import('@aws-sdk/client-s3');
      const client = await s3Client({ endpoint: servers.sqsEndpoint }, 1);
      await client.send(new CreateBucketCommand({ Bucket: BUCKET })).finally(() => client.destroy());
      const up = await uploadToS3(file, s3Url(f), { endpoint: servers.sqsEndpoint });
      log(
        `rqbench experiment: put the delta file on the S3 emulator as ${s3Url(f)} (${up.parts} parts) in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    } catch (e) {
      await servers.stop();
      throw e;
    }
  }
  return servers;
}

/** @param {string} file */
function sizeOf(file) {
  try {
    return fs.statSync(file).size;
  } catch {
    return -1;
  }
}

/**
 * `node <argv>` from the repo root, its stderr's last line kept; killed when the run is stopped.
 * @param {string[]} argv
 * @param {AbortSignal} signal
 * @returns {Promise<{ code: number|null, signal: string|null, lastLine: string }>}
 */
function spawnQuiet(argv, signal) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], signal });
    let err = '';
    child.stderr.on('data', (d) => {
      err = (err + d).slice(-2000);
    });
    child.once('error', (e) => {
      err += `\n${e.message}`;
    });
    child.once('close', (code, sig) => resolve({ code, signal: sig, lastLine: err.trim().split('\n').pop() ?? '' }));
  });
}

/**
 * Runs the step; step.json before and after, with the CPU Redis and the load process used meanwhile.
 * @param {any} step
 * @param {import('./kind-contract.js').RunContext} ctx
 */
export async function run(step, { stepDir, out, topology, stopper, shared }) {
  fs.mkdirSync(stepDir, { recursive: true });
  const servers = /** @type {import('./kind-servers.js').Servers} */ (/** @type {unknown} */ (shared));
  const argv = argvOf(step, topology, servers, out);
  const redis = sinkOf(step.flags) === 'redis';
  const meta = {
    name: step.name,
    label: step.label,
    kind: name,
    startedAt: new Date().toISOString(),
    commands: [commandLine('node', argv)],
    ok: false,
    hostCpus: os.cpus().length,
    ...(redis && { redisVersion: servers.redisVersion }),
  };
  const save = stepRecord(stepDir, meta);
  const before = servers.mark();
  // the emulator runs in this process: its CPU per cell, from this process's own CPU time around each cell
  const series = step.from === 's3' ? sampleCpu(ownCpuSeconds) : null;
  const r = await runChild(argv, stopper);
  const samples = series?.stop() ?? null;
  const cpu = cpuBetween(before, servers.mark());
  const back = readBack(stepDir, null);
  // exit 1 with a whole summary: a grid that ran and whose check failed (RESULTS.md says so)
  const finished = Boolean(back.summary) && !back.summary.incomplete && (r.code === 0 || r.code === 1);
  Object.assign(meta, {
    endedAt: new Date().toISOString(),
    exitCodes: [r.code ?? r.signal],
    ok: finished && !stopper.stopped,
    // Redis's only when this grid wrote to it (it idles through a noop grid)
    cpu: {
      wallS: cpu.wallS,
      rqbenchPct: cpu.rqbenchPct,
      ...(redis && { redisPct: cpu.redisPct }),
      ...(step.from === 's3' && { s3EmulatorPct: cpu.sqsEmulatorPct }),
      ...(samples && { s3EmulatorPctByCell: emulatorByCell(samples, back.summary?.cells ?? []) }),
    },
  });
  if (!finished) Object.assign(meta, { error: r.lastLine });
  save();
  return finished ? { ok: true } : { ok: false, error: `rqbench load exited with ${r.code ?? r.signal}: ${r.lastLine}` };
}

/**
 * The emulator's CPU in each cell's load window, % of one core (null where a cell has no window:
 * recorded before cells had one).
 * @param {import('./cpu-series.js').CpuSamples} samples
 * @param {Array<{ threads: number, s3Connections?: number, window?: { startedAt: number, endedAt: number } }>} cells
 */
function emulatorByCell(samples, cells) {
  return cells.map((c) => ({
    threads: c.threads,
    s3Connections: c.s3Connections ?? null,
    pct: c.window ? cpuPctBetween(samples, c.window.startedAt, c.window.endedAt) : null,
  }));
}

/**
 * The step's run directory and its summary.json; complete when the whole grid ran.
 * @param {string} stepDir
 * @param {any} meta step.json
 */
export function readBack(stepDir, meta) {
  const { dir: loadDir, doc: summary } = newestRun(stepDir, 'load');
  return { loadDir, summary, complete: Boolean(summary) && !summary.interrupted && !summary.incomplete && meta?.ok === true };
}

/**
 * The host line's manifest: a step that wrote to Redis first (its version from step.json).
 * @param {import('./kind-contract.js').StepRun[]} steps
 */
export function manifest(steps) {
  const done = steps.filter((x) => x.r?.complete);
  const s = done.find((x) => sinkOf(x.step.flags) === 'redis') ?? done[0];
  const m = s ? readJson(path.join(s.r.loadDir, 'manifest.json')) : null;
  if (!m) return null;
  const redis = sinkOf(s.step.flags) === 'redis' ? (s.r.meta?.redisVersion ?? '?') : 'not used (no redis sink)';
  return { ...m, versions: { ...m.versions, redis } };
}

/** @param {any} step */
const cellsOf = (step) =>
  String(step.flags['reader-threads'] ?? 16).split(',').length *
  String(step.from === 's3' ? (step.flags['s3-connections'] ?? 64) : (step.flags.connections ?? 64)).split(',').length;

/** @param {any} step */
export const nominalSeconds = (step) =>
  1 + cellsOf(step) * (1 + step.deltaFile.records / GUESS_RATE[/** @type {'redis'|'noop'|'memory'} */ (sinkOf(step.flags))]);
/** @param {any} step */
export const what = (step) =>
  step.from === 's3'
    ? `from S3 into the ${sinkOf(step.flags)} sink, ${step.flags['reader-threads'] ?? 16} reader threads x ${step.flags['s3-connections'] ?? 64} S3 connections`
    : `${sinkOf(step.flags)} sink, ${step.flags['reader-threads'] ?? 16} reader threads x ${step.flags.connections ?? 64} connections`;
/** @param {any} r */
export const figures = (r) => {
  /** @type {Array<{ recordsPerSec: number, threads: number, connections: number, s3Connections?: number }>} */
  const cells = r?.summary?.cells ?? [];
  if (!cells.length) return 'no summary';
  const best = bestCell(cells);
  return `best ${grouped(best.recordsPerSec)} records/s (${best.threads} threads x ${best.s3Connections ? `${best.s3Connections} S3 connections` : `${best.connections} connections`}), ${cells.length} cells, ${r.summary.ok ? 'each exactly once' : 'CHECK FAILED'}`;
};
/** @param {import('../spec.js').Spec} spec */
export const commandsNote = (spec) => {
  const f = spec.kindSpec.deltaFile;
  const made = `The delta file is made once for the spec, by \`${commandLine('node', generateArgv(f, deltaPath(f)))}\` (kept in the OS temp dir, reused while its size is right).`;
  const s3 = spec.steps.some((s) => /** @type {any} */ (s).from === 's3')
    ? ` For the steps from S3 the runner starts the SQS/SNS/S3 emulator (fauxqs, in the runner's own process), makes the bucket ${BUCKET} and uploads the file there in parts (as \`rqbench load --generate s3://…\` does); the \`--endpoint\` is that emulator (a new port each time).`
    : '';
  // only a step into Redis on a local topology is given --url and --flush (argvOf)
  const localRedis = spec.topology.local && spec.steps.some((s) => sinkOf(s.flags) === 'redis');
  const redis = localRedis
    ? ' The `--url` is the local Redis the runner started for the run (a new port each time); `--flush` empties it before each grid.'
    : '';
  return `${made}${redis}${s3}`;
};
/** @param {import('../spec.js').Spec} spec */
export const setupSteps = (spec) =>
  `${spec.steps.length} load grid${spec.steps.length > 1 ? 's' : ''} over one delta file of ${grouped(spec.kindSpec.deltaFile.records)} records x ${spec.kindSpec.deltaFile.recordSize} B`;
/** @param {import('../spec.js').Spec} spec */
export const setupWhere = (spec) => {
  const s3 = spec.steps.some((s) => /** @type {any} */ (s).from === 's3')
    ? "; the S3 emulator (fauxqs, in the runner's process) on 127.0.0.1, started by the runner, for the steps from S3"
    : '';
  const sinks = [...new Set(spec.steps.map((s) => sinkOf(s.flags)))];
  if (!sinks.includes('redis')) return `no Redis (${sinks.map((x) => `the ${x} sink`).join(' and ')} only)${s3}`;
  if (s3) return `${spec.topology.local ? `${spec.topology.label} on 127.0.0.1, started by the runner` : spec.topology.label}${s3}`;
  return spec.topology.local
    ? `${spec.topology.label} on 127.0.0.1, started by the runner`
    : `${spec.topology.label} (${spec.topology.cluster ? 'cluster' : 'standalone'})`;
};
export const setupWords = { starter: 'started by the runner', each: ', each' };
