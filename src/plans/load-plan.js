/** `rqbench load`'s flags checked into its plan: the delta file (a path, or s3://bucket/key), the sink, the grid. */
import { bad, fileReason, givenFlags, intIn, UsageError } from '../usage-error.js';
import { inspectDeltaFile } from '../workloads/bulk-load/delta-file.js';
import { LOAD_COMMANDS } from '../workloads/bulk-load/load-commands.js';
import { parseS3Url } from '../workloads/bulk-load/s3-source.js';
import { checkConnection } from './connection.js';
import { checkOutput } from './output.js';
import { checkMetrics } from './metrics-plan.js';
import { planOf } from './freeze.js';

/**
 * `rqbench load`'s own options (the delta file's, then the grid's), beside the connection and
 * output options: the command's builder and an experiment's load step parse with the same ones.
 * @param {import('yargs').Argv} y
 */
export function loadOptions(y) {
  const g = 'Loading:';
  const f = 'Delta file (--generate):';
  const s = 'S3 (an s3://bucket/key FILE, or --generate s3://bucket/key):';
  return y
    .option('generate', {
      type: 'string',
      requiresArg: true,
      group: f,
      describe: 'write a delta file (key<TAB>value<LF>, fixed-size records) and exit',
    })
    .option('records', { type: 'number', requiresArg: true, default: 4_000_000, group: f, describe: 'records to generate' })
    .option('record-size', {
      type: 'number',
      requiresArg: true,
      default: 512,
      group: f,
      describe: 'bytes per record, key + TAB + value + LF',
    })
    .option('key-pattern', {
      type: 'string',
      requiresArg: true,
      default: 'delta:{n}',
      group: f,
      describe:
        "key of each record; {n} is its index from 0, {n:W} the same zero-padded to W digits (W from 1 to 99: key:{n:12} is redis-benchmark's shape)",
    })
    .option('reader-threads', {
      type: 'string',
      requiresArg: true,
      default: '16',
      group: g,
      describe: 'reader threads, or a list (16,32,64) for the grid',
    })
    .option('connections', {
      type: 'string',
      requiresArg: true,
      default: '64',
      group: g,
      describe: 'connections in all, or a list (64,128); on a cluster each is one socket per master',
    })
    .option('sink', {
      type: 'string',
      requiresArg: true,
      default: 'redis',
      group: g,
      describe: 'where records go: redis (SET), noop (parse and count), memory (a Map per thread)',
    })
    .option('ttl', {
      type: 'number',
      requiresArg: true,
      default: 0,
      group: g,
      describe:
        'seconds each key lives (0: no TTL): with --command set (the default) SETEX instead of SET, with eval SET … EX; refused with mset',
    })
    .option('command', {
      type: 'string',
      requiresArg: true,
      default: 'set',
      group: g,
      describe:
        "how the redis sink writes: set (a SET per record, the seed's way), mset (an MSET per --batch records of one slot; no --ttl), eval (an EVALSHA per --batch records of one slot, SET with EX each)",
    })
    .option('batch', {
      type: 'number',
      requiresArg: true,
      default: 1000,
      group: g,
      describe: "records per command with --command mset or eval (at most: a command holds one slot's records)",
    })
    .option('sample', {
      type: 'number',
      requiresArg: true,
      default: 1000,
      group: g,
      describe: 'records read back from Redis and compared to the file, per cell',
    })
    .option('flush', {
      type: 'boolean',
      default: false,
      group: g,
      describe: 'empty a target that holds keys before the first cell (it is always emptied between cells)',
    })
    .option('s3-connections', {
      type: 'string',
      requiresArg: true,
      group: s,
      describe: "the S3 client's connections in all (the seed's s3client_max_connections), or a list (64,128) for the grid",
      defaultDescription: '64',
    })
    .option('endpoint', {
      type: 'string',
      requiresArg: true,
      group: s,
      describe: "S3 endpoint (an emulator: rqbench local sqs); omitted: AWS, with the SDK's credential chain",
    })
    .option('region', { type: 'string', requiresArg: true, group: s, describe: 'AWS region', defaultDescription: 'the AWS SDK chain' });
}

/** The S3 client's connections when --s3-connections is not given: the seed's default. */
const S3_CONNECTIONS = 64;

/** Where a load writes. */
export const SINKS = ['redis', 'noop', 'memory'];

/**
 * A comma-separated list of integers within [min, max].
 * @param {unknown} v
 * @param {string} flag
 */
export function intList(v, flag, min, max) {
  const parts = String(v)
    .split(',')
    .map((s) => s.trim());
  if (!parts.length || parts.some((p) => !/^\d+$/.test(p) || Number(p) < min || Number(p) > max)) {
    throw bad(flag, `an integer from ${min} to ${max}, or a comma-separated list of them`, String(v));
  }
  return [...new Set(parts.map(Number))];
}

/**
 * Every check of a load run, once, at the command's edge: the frozen plan it runs from (the
 * grid's thread and connection counts as lists, what the delta file holds).
 * @param {Readonly<Record<string, any>>} a parsed flags (left as they are)
 * @param {(file: string) => { size: number, recordSize: number, records: number }} [inspect] what
 *   the file holds (an experiment checks a step before the runner has generated its file)
 */
export function loadPlan(a, inspect = inspectDeltaFile) {
  checkConnection(a);
  if (a.file === undefined) throw new UsageError('a FILE to load is needed (or --generate FILE to write one)');
  if (!SINKS.includes(a.sink)) throw bad('--sink', SINKS.join(', '), a.sink);
  const threads = intList(a.readerThreads, '--reader-threads', 1, 256);
  const s3 = s3Of(a, threads);
  const connections = intList(a.connections, '--connections', 1, 4096);
  intIn(a.ttl, '--ttl', 0);
  checkCommand(a);
  unusedWhenLoading(a);
  intIn(a.sample, '--sample', 0, 1_000_000);
  const metrics = checkMetrics(a);
  let info = null;
  try {
    // an object in S3 is inspected over the network once the flags are known to be right (commands/load.js)
    if (!s3.s3 || inspect !== inspectDeltaFile) info = inspect(a.file);
  } catch (e) {
    throw new UsageError(e.code ? `${a.file}: ${fileReason(e)} (FILE is a delta file to load)` : e.message);
  }
  // every cell of the grid needs a connection per thread: sockets cannot be shared across threads
  if (a.sink === 'redis' && Math.min(...connections) < Math.max(...threads)) {
    throw bad(
      '--connections',
      `at least --reader-threads with the redis sink (each thread needs a connection of its own; grid ${threads.join(',')} x ${connections.join(',')})`,
      Math.min(...connections),
    );
  }
  checkOutput(a);
  return planOf(a, { threads, connections, info, ...s3, ...metrics });
}

/**
 * --command and --batch: a batched command is for the redis sink, and MSET cannot keep a TTL.
 * @param {Readonly<Record<string, any>>} a
 */
function checkCommand(a) {
  if (!LOAD_COMMANDS.includes(a.command)) throw bad('--command', LOAD_COMMANDS.join(', '), a.command);
  intIn(a.batch, '--batch', 1, 100_000);
  if (a.sink !== 'redis' && a.command !== 'set')
    throw bad('--command', 'set (the default) with --sink ' + a.sink + ': the others are how the redis sink writes', a.command);
  if (a.command === 'mset' && a.ttl) throw bad('--command', 'set or eval with --ttl (MSET sets no TTL)', a.command);
}

/** Flags only --generate uses, as typed. */
const GENERATE_ONLY = { keyPattern: '--key-pattern', records: '--records', recordSize: '--record-size' };
/** Flags only loading a FILE uses, as typed: refused with --generate (commands/load.js). */
export const LOAD_ONLY = {
  sink: '--sink',
  command: '--command',
  batch: '--batch',
  ttl: '--ttl',
  readerThreads: '--reader-threads',
  connections: '--connections',
  sample: '--sample',
  s3Connections: '--s3-connections',
};

/**
 * A flag typed that this load would not use is a mistake, not a no-op: the --generate flags, and
 * --batch with a command that writes one record at a time. Only what was typed is judged (a plan
 * built in code, an experiment step's, has no record of it).
 * @param {Readonly<Record<string, any>>} a
 */
function unusedWhenLoading(a) {
  const given = givenFlags(a);
  if (!given) return;
  const gen = Object.keys(GENERATE_ONLY).find((k) => given.has(k));
  if (gen) throw new UsageError(`${GENERATE_ONLY[gen]} is for --generate (a FILE's keys and records are as it was written)`);
  if (given.has('batch') && a.command === 'set')
    throw new UsageError('--batch is for --command mset or eval (--command set writes a SET per record)');
}

/**
 * An s3:// FILE's part of the plan: where S3 is and the S3 connections of the grid; the S3 flags
 * with a local file are a mistake.
 * @param {Readonly<Record<string, any>>} a
 * @param {number[]} threads
 * @returns {{ s3: { endpoint?: string, region?: string }|null, s3Connections: number[] }}
 */
function s3Of(a, threads) {
  const at = parseS3Url(a.file);
  if (!at) {
    if (/^s3:/i.test(String(a.file)))
      throw bad('FILE', 's3://bucket/key (a bucket name of 3 to 63 lower-case letters, digits, dots and hyphens, then the key)', a.file);
    const stray = ['s3Connections', 'endpoint', 'region'].find((k) => a[k] !== undefined);
    if (stray)
      throw new UsageError(
        `--${stray === 's3Connections' ? 's3-connections' : stray} is for an s3://bucket/key FILE (this one is a local file)`,
      );
    return { s3: null, s3Connections: [] };
  }
  if (a.sink === 'redis')
    throw bad('--sink', 'memory or noop with an s3:// FILE (the redis sink reads its sample back from a local file)', a.sink);
  if (a.endpoint !== undefined && !/^https?:\/\/[^\s]+$/.test(String(a.endpoint))) throw bad('--endpoint', 'an http(s):// URL', a.endpoint);
  const s3Connections = intList(a.s3Connections ?? S3_CONNECTIONS, '--s3-connections', 1, 4096);
  // each thread's client needs a connection of its own: clients are not shared across threads
  if (Math.min(...s3Connections) < Math.max(...threads)) {
    throw bad(
      '--s3-connections',
      `at least --reader-threads (each thread reads through a client of its own; grid ${threads.join(',')} x ${s3Connections.join(',')})`,
      Math.min(...s3Connections),
    );
  }
  return { s3: { ...(a.endpoint && { endpoint: String(a.endpoint) }), ...(a.region && { region: String(a.region) }) }, s3Connections };
}
