/**
 * The producer's flags: the seed's (-q -p -c -t -a --ws --sk --sl --slh --ss --ns --same-slot
 * --actual-value) and rqbench's. The data model flags come from the model registry.
 */
import fs from 'node:fs';
import path from 'node:path';
import { settings } from '../settings.js';
import { MODELS, flagsWithout, modelOf, modelsFlagged } from '../workloads/items/stores/registry.js';
import { parseAtList } from '../cluster-actions/index.js';
import { MIN_VALUE_SIZE } from '../workloads/items/stores/payload.js';
import { bad, intIn } from '../usage-error.js';
import { checkConnection } from './connection.js';
import { checkOutput } from './output.js';
import { checkMetrics } from './metrics-plan.js';
import { planOf } from './freeze.js';
import { checkInstance, instanceOptions } from './instance.js';
import { checkCounting, countingOptions } from './counting-plan.js';

/** Who sends a writer's commands (--client). */
const CLIENTS = ['rqbench', 'ioredis'];

/**
 * The data model flags, shared by the producer and the consumer (which reads what they name).
 * @param {import('yargs').Argv} y
 */
export function modelOptions(y) {
  const m = 'Data model (default: ids in a sorted set, values in SETEX keys):';
  y.option('actual-value', { type: 'boolean', default: false, group: m, describe: 'the index holds the values themselves; no item keys' });
  for (const model of MODELS) {
    if (model.flag) y.option(model.flag.name, { type: 'boolean', default: false, group: m, describe: model.flag.describe });
  }
  return y
    .option('ns', {
      type: 'number',
      requiresArg: true,
      default: 1,
      group: m,
      describe: 'split the items across N index structures (latest-ids:<n>)',
    })
    .option('same-slot', {
      type: 'boolean',
      default: false,
      group: m,
      describe: 'force the --ns structures into one slot (latest-ids:<n>{forced-slot})',
    })
    .option('ttl', {
      type: 'number',
      requiresArg: true,
      default: settings.ttlSeconds,
      group: m,
      describe: 'item TTL and sorted-set window, s',
    });
}

/**
 * Run length flags shared by the producer and the consumer.
 * @param {import('yargs').Argv} y
 * @param {string} g group title
 */
export function runOptions(y, g) {
  return atOption(lengthOptions(countingOptions(y), g))
    .option('start-at', {
      type: 'number',
      requiresArg: true,
      group: g,
      describe:
        'epoch ms of the first operation, shared by processes on several hosts (a process ready a second or more after it runs nothing, exit 1)',
    })
    .option('run-id', { type: 'string', requiresArg: true, group: g, describe: 'names one run across hosts (recorded in the manifest)' });
}

/**
 * --duration and --warmup: how long a run of workers lasts, and what its summary leaves out.
 * @param {import('yargs').Argv} y
 * @param {string} g group title
 */
export function lengthOptions(y, g) {
  return y
    .option('duration', {
      alias: 'd',
      type: 'number',
      requiresArg: true,
      default: settings.durationSeconds,
      group: g,
      describe: 'seconds to run, at most 604800 (a week); 0 runs until Ctrl-C',
    })
    .option('warmup', {
      type: 'number',
      requiresArg: true,
      group: g,
      describe: 'seconds left out of the summary (kept in the timeline)',
      defaultDescription: `${settings.warmupSeconds} (0 for runs of 2 s or less)`,
    });
}

/**
 * --at: cluster actions during a run.
 * @param {import('yargs').Argv} y
 */
export function atOption(y) {
  return y.option('at', {
    type: 'string',
    array: true,
    requiresArg: true,
    group: 'Cluster changes during the run:',
    describe:
      'at <seconds> into the run, change the cluster (repeatable): reshard:<slots>, remove-shard[:<master>], add-shard[:<host:port>,…], kill-master[:<master>], failover[:<master>]',
  });
}

/** @param {import('yargs').Argv} y */
export function producerOptions(y) {
  const g = 'Load (seed-compatible):';
  const m = 'Data model (default: ids in a sorted set, values in SETEX keys):';
  runOptions(
    y
      .option('quantity', {
        alias: 'q',
        type: 'number',
        requiresArg: true,
        default: settings.quantity,
        group: g,
        describe: 'items written per period across all writers',
      })
      .option('period', { alias: 'p', type: 'number', requiresArg: true, default: settings.periodMs, group: g, describe: 'period, ms' })
      .option('chunks', {
        alias: 'c',
        type: 'number',
        requiresArg: true,
        default: 1,
        group: g,
        describe: 'chunks per period: each writer sends its items in c evenly spaced chunks',
      })
      .option('writers', { alias: 't', type: 'number', requiresArg: true, default: 1, group: g, describe: 'total writers' })
      .option('writer', {
        alias: 'a',
        type: 'number',
        requiresArg: true,
        group: g,
        describe: 'run only writer a (1..t), e.g. one per host; omitted: run all t writers here, one process each',
      }),
    g,
  );
  return instanceOptions(modelOptions(y))
    .option('extra-sets', {
      type: 'number',
      requiresArg: true,
      default: 0,
      group: m,
      describe: 'also write every item into N more copies of its index structure',
    })
    .option('value-size', {
      type: 'number',
      requiresArg: true,
      group: m,
      describe: 'payload bytes per item (queues: characters per update value)',
      defaultDescription: `${settings.valueSize} (queues: 10)`,
    })
    .option('list-max', {
      type: 'number',
      requiresArg: true,
      group: m,
      describe: 'list length kept by LTRIM',
      defaultDescription: 'items live within the TTL: q x ttl / period',
    })
    .option('announce', {
      type: 'string',
      requiresArg: true,
      group: g,
      describe:
        "with --local: once the server is up (and, with --count-instructions, its idle counted), write its URL and the run's start (epoch ms, a few seconds ahead) to this JSON file, for a consumer to read the same nodes from the same start (--url, --start-at); the nodes then stay up to the planned end and 5 s after it",
    })
    .option('verify', {
      type: 'boolean',
      group: g,
      describe:
        'write fresh ids every period and, at the end, read back every acknowledged item: acked, present, lost (needs --ttl longer than the run)',
    })
    .option('client', {
      type: 'string',
      requiresArg: true,
      default: 'rqbench',
      group: g,
      describe:
        "who sends the commands: rqbench (its own client: follows MOVED and ASK, retries) or ioredis (as the seed's producer: a Cluster with auto-pipelining, one call per command; whatever it throws, MOVED included, is counted as failed)",
    });
}

/**
 * Checks the run-length flags; returns what they leave to work out: the warm-up and the --at actions.
 * @param {Readonly<Record<string, any>>} a
 * @returns {{ warmup: number, actions: ReturnType<typeof parseAtList> }}
 */
export function checkRun(a) {
  if (!(Number.isFinite(a.duration) && a.duration >= 0 && a.duration <= settings.maxDurationSeconds))
    throw bad('--duration', `a number of seconds from 0 to ${settings.maxDurationSeconds} (a week; 0: until Ctrl-C)`, a.duration);
  // a short run keeps every second unless told otherwise
  const warmup = a.warmup ?? (a.duration > 0 && a.duration <= 2 ? 0 : settings.warmupSeconds);
  if (!(Number.isFinite(warmup) && warmup >= 0)) throw bad('--warmup', 'a number of seconds >= 0', warmup);
  if (a.duration > 0 && warmup >= a.duration) throw bad('--warmup', `shorter than --duration (${a.duration} s)`, warmup);
  if (a.startAt !== undefined && !(Number.isFinite(a.startAt) && a.startAt > 1e12))
    throw bad('--start-at', 'epoch milliseconds', a.startAt);
  checkCounting(a);
  const actions = parseAtList(a.at);
  if (actions.length && !a.cluster) throw bad('--at', 'used with --cluster (it changes a Redis Cluster)');
  const late = actions.find((x) => a.duration > 0 && x.atSec >= a.duration);
  if (late) throw bad('--at', `due before the end of the run (--duration ${a.duration} s)`, late.text);
  return { warmup, actions };
}

/**
 * Checks the data model flags.
 * @param {Record<string, any>} a
 */
export function checkModel(a) {
  // --slh implies the list of --sl, so the two may come together
  const picked = modelsFlagged(a);
  if (picked.length > 1) throw bad(`--${picked.map((x) => x.flag.name).join(' with --')}`, 'used one at a time: pick one data model');
  const model = modelOf(a);
  if (a.actualValue && !model.can.actualValue)
    throw bad('--actual-value', `used without --${model.flag.name} (${model.why?.actualValue ?? 'this data model keeps item keys'})`);
  intIn(a.ns, '--ns', 1, 100_000);
  if (a.sameSlot && a.ns < 2) throw bad('--same-slot', 'used with --ns 2 or more (it forces several structures into one slot)');
  intIn(a.ttl, '--ttl', 1, 86_400 * 365);
}

/**
 * Checks the producer's flags; throws a UsageError naming the first bad one. Returns the values
 * the checks worked out (warm-up, --at actions, value size), leaving `a` as it was.
 * @param {Readonly<Record<string, any>>} flags
 * @returns {Record<string, any>}
 */
export function checkProducer(flags) {
  // no yargs default for the value size: the queue publisher's is 10
  /** @type {Record<string, any>} */
  const fills = { valueSize: flags.valueSize ?? settings.valueSize };
  /** @type {Record<string, any>} */
  const a = { ...flags, ...fills };
  if (!CLIENTS.includes(a.client ?? 'rqbench')) throw bad('--client', CLIENTS.join(' or '), a.client);
  intIn(a.quantity, '-q', 1, 100_000_000);
  intIn(a.period, '-p', 1, 3_600_000);
  intIn(a.chunks, '-c', 1, 1_000_000);
  intIn(a.writers, '-t', 1, 1024);
  if (a.writer !== undefined) intIn(a.writer, '-a', 1, a.writers);
  if (a.quantity < a.writers) throw bad('-q', `at least -t (${a.writers}) so every writer has an item`, a.quantity);
  Object.assign(fills, checkRun(a));
  checkInstance(a);
  checkModel(a);
  intIn(a.extraSets, '--extra-sets', 0, 100);
  const model = modelOf(a);
  if (a.extraSets > 0 && !model.can.extraSets)
    throw bad(
      '--extra-sets',
      `used without ${flagsWithout('extraSets')} (${model.why?.extraSets ?? 'this data model writes one index structure'})`,
    );
  intIn(a.valueSize, '--value-size', MIN_VALUE_SIZE, 64 * 1024 * 1024);
  if (a.listMax !== undefined) intIn(a.listMax, '--list-max', 1);
  if (a.verify) checkVerify(a);
  if (a.announce !== undefined) checkAnnounce(a);
  return fills;
}

/**
 * Every check of a producer run, once, at the command's edge: the frozen plan it runs from.
 * @param {Readonly<Record<string, any>>} flags parsed (left as they are)
 */
export function producerPlan(flags) {
  checkConnection(flags);
  const fills = { ...checkProducer(flags), ...checkMetrics(flags) };
  checkOutput(flags);
  return planOf(flags, fills);
}

/** --announce names the servers --local starts, in a file another process reads: a directory that is there. */
function checkAnnounce(a) {
  if (!a.local) throw bad('--announce', 'used with --local (it names the servers rqbench starts for the run)');
  if (typeof a.announce !== 'string' || a.announce.trim() === '') throw bad('--announce', 'a file name', a.announce);
  const dir = path.dirname(path.resolve(a.announce));
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw bad('--announce', 'a file in a directory that exists', a.announce);
}

/** --verify reads item keys back after the run: they must exist and outlive it. */
function checkVerify(a) {
  if (a.actualValue) throw bad('--verify', 'used without --actual-value (it reads back the item keys, which value mode does not write)');
  if (!a.duration) throw bad('--verify', 'used with a --duration (it reads back what a finished run acknowledged)');
  const need = a.duration + settings.verifyTtlMarginSeconds;
  if (a.ttl < need)
    throw bad(
      '--verify',
      `used with --ttl of at least --duration + ${settings.verifyTtlMarginSeconds} (${need} s) so every item outlives the run`,
      `--ttl ${a.ttl}`,
    );
}
