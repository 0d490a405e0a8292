/**
 * Queue flags (--target sqs|sns|pubsub): where the messages go and, for the publisher, what
 * they carry; for the consumer, how it reads and where it applies the updates. The seed
 * (000_*.txt) measured 45 messages/s x 1000 updates, keys of 30 and values of 10 characters.
 * The targets and their own flags and checks come from the queue drivers
 * (transports/queue-drivers.js); what is here is the same for every target.
 */
import { bad, givenFlags, intIn, UsageError } from '../usage-error.js';
import { randomBytes } from 'node:crypto';
import { MODEL_FLAGS } from '../workloads/items/stores/registry.js';
import { BodyMaker, largestAttributes } from '../workloads/queue-updates/message.js';
import { FolderBodies } from '../workloads/queue-updates/delta-folder.js';
import { grouped } from '../record/format.js';
import { settings } from '../settings.js';
import { redactString } from '../secrets.js';
import { checkConnection } from './connection.js';
import { checkOutput } from './output.js';
import { checkMetrics } from './metrics-plan.js';
import { deepFreeze, planOf } from './freeze.js';
import { queueDrivers, queueFlags } from '../transports/queue-drivers.js';

/** @typedef {import('../transports/queue-driver.js').QueueDriver} QueueDriver */
/** @typedef {import('../transports/queue-driver.js').QueueSide} QueueSide */

/** The --help group of every queue flag, naming every target there is. */
const group = () =>
  `Queues (--target ${queueDrivers()
    .map((d) => d.name)
    .join('|')}):`;

/** Queue defaults (the seed's test data and thread pool); a target's own are in its driver. */
export const queueDefaults = Object.freeze({
  rate: 45,
  batchSize: 1000,
  keySize: 30,
  valueSize: 10,
  concurrency: 64,
  threads: 4,
});

/**
 * Flags both sides share: the target, and every queue driver's flags (transports/queue-drivers.js).
 * @param {import('yargs').Argv} y
 * @param {QueueSide} side
 */
export function queueTargetOptions(y, side) {
  const q = group();
  const names = queueDrivers(side).map((d) => d.name);
  let out = y.option('target', {
    type: 'string',
    requiresArg: true,
    default: 'redis',
    group: q,
    describe: `redis, or a queue: ${names.join(', ')}`,
  });
  for (const [key, flag] of queueFlags(side)) out = out.option(kebab(key), { ...flag.spec, group: q });
  return out;
}

/**
 * Publisher flags (rqbench produce --target …).
 * @param {import('yargs').Argv} y
 */
export function publisherOptions(y) {
  const q = group();
  return queueTargetOptions(y, 'publish')
    .option('rate', {
      type: 'number',
      requiresArg: true,
      group: q,
      describe: 'messages per second, open loop',
      defaultDescription: String(queueDefaults.rate),
    })
    .option('batch-size', {
      type: 'number',
      requiresArg: true,
      group: q,
      describe: 'updates per message',
      defaultDescription: String(queueDefaults.batchSize),
    })
    .option('key-size', {
      type: 'number',
      requiresArg: true,
      group: q,
      describe: 'characters per key',
      defaultDescription: String(queueDefaults.keySize),
    })
    .option('concurrency', {
      type: 'number',
      requiresArg: true,
      group: q,
      describe: 'publishes in flight at most (more waiting shows as schedule lag)',
      defaultDescription: String(queueDefaults.concurrency),
    })
    .option('publisher-id', {
      type: 'string',
      requiresArg: true,
      group: q,
      describe: "this publisher's id in every message",
      defaultDescription: 'random',
    })
    .option('from-folder', {
      type: 'string',
      requiresArg: true,
      group: q,
      describe:
        'publish the files of this folder (rqbench generate-deltas) as message bodies, in name order, starting over when they run out',
    });
}

/**
 * Consumer flags (rqbench consume --target …).
 * @param {import('yargs').Argv} y
 */
export function queueConsumerOptions(y) {
  const q = group();
  return queueTargetOptions(y, 'consume')
    .option('threads', {
      type: 'number',
      requiresArg: true,
      group: q,
      describe: "SQS pollers sharing the queue; Pub/Sub streams (flow control: the client's 1,000 messages outstanding)",
      defaultDescription: String(queueDefaults.threads),
    })
    .option('cache', {
      type: 'string',
      requiresArg: true,
      group: q,
      describe: 'where updates are applied: memory (a Map) or redis (--cache-url, or --local)',
      defaultDescription: 'memory',
    })
    .option('cache-url', {
      type: 'string',
      requiresArg: true,
      group: q,
      describe: 'redis:// or rediss:// URL of the cache (with --cluster for a cluster)',
    })
    .option('until-complete', {
      type: 'boolean',
      group: q,
      describe: 'stop once every publisher seen has sent its last message and nothing is missing (--duration still caps the run)',
    });
}

/**
 * @typedef {object} CheckedQueueRun
 * @property {QueueDriver} driver the --target's
 * @property {Readonly<Record<string, any>>} target the driver's options, checked and filled
 * @property {Record<string, any>} a a new copy of the flags with the target's options filled
 *   in (what the manifest records), for the caller's own checks
 */

/**
 * Checks the target and its flags, leaving `flags` as they are. Every given queue flag is
 * checked by its declaration whatever the target (a bad value is bad input even where unread),
 * a flag only some targets read is refused with the others when its declaration says so, then
 * the target's driver checks its own.
 * @param {Readonly<Record<string, any>>} flags
 * @param {QueueSide} side
 * @returns {CheckedQueueRun}
 */
export function checkQueueTarget(flags, side) {
  const drivers = queueDrivers(side);
  const driver = drivers.find((d) => d.name === flags.target);
  if (!driver) throw bad('--target', `one of redis, ${drivers.map((d) => d.name).join(', ')}`, flags.target);
  const all = queueFlags(side);
  for (const [key, f] of all) {
    const v = flags[key];
    if (v === undefined) continue;
    const flag = `--${kebab(key)}`;
    if (f.int) intIn(v, flag, f.int[0], f.int[1]);
    if (f.form && !f.form.re.test(String(v))) throw bad(flag, f.form.expected, v);
    if (f.onlyHere && driver.options[key] !== f) {
      const readers = queueDrivers()
        .filter((d) => d.options[key] === f)
        .map((d) => d.name);
      throw bad(flag, `used with --target ${readers.join('|')} (${f.onlyHere})`);
    }
  }
  const target = driver.check(flags, bad);
  // only this side's flags go back into the copy: an SQS publisher records no --wait-seconds
  const a = { ...flags };
  for (const [key] of all) if (target[key] !== undefined) a[key] = target[key];
  return { driver, target, a };
}

/**
 * Checks the publisher's flags and fills their defaults, in a new object.
 * @param {Readonly<Record<string, any>>} flags
 * @returns {CheckedQueueRun}
 */
export function checkPublisher(flags) {
  const run = checkQueueTarget(flags, 'publish');
  const { a } = run;
  for (const k of ['rate', 'batchSize', 'keySize', 'valueSize', 'concurrency']) a[k] ??= queueDefaults[k];
  if (!(Number.isFinite(a.rate) && a.rate > 0 && a.rate <= 1_000_000)) throw bad('--rate', 'messages per second, > 0', a.rate);
  intIn(a.batchSize, '--batch-size', 1, 10_000_000);
  intIn(a.keySize, '--key-size', 8, 1024);
  intIn(a.valueSize, '--value-size', 1, 1_000_000);
  intIn(a.concurrency, '--concurrency', 1, 10_000);
  if (!(Number.isFinite(a.duration) && a.duration >= 0 && a.duration <= settings.maxDurationSeconds))
    throw bad('--duration', `a number of seconds from 0 to ${settings.maxDurationSeconds} (a week; 0: until Ctrl-C)`, a.duration);
  if (a.publisherId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(a.publisherId))
    throw bad('--publisher-id', 'letters, digits, _ or -, up to 64', a.publisherId);
  return run;
}

/**
 * Checks the consumer's queue flags and fills their defaults, in a new object.
 * @param {Readonly<Record<string, any>>} flags
 * @returns {CheckedQueueRun}
 */
export function checkQueueConsumer(flags) {
  const run = checkQueueTarget(flags, 'consume');
  const { a } = run;
  a.threads ??= queueDefaults.threads;
  intIn(a.threads, '--threads', 1, 256);
  a.cache ??= 'memory';
  if (!['memory', 'redis'].includes(a.cache)) throw bad('--cache', 'memory or redis', a.cache);
  if (a.cache === 'redis' && !a.cacheUrl && !a.local) throw new UsageError('--cache redis needs --cache-url redis://host:port or --local');
  if (a.cache !== 'redis' && (a.cacheUrl || a.local)) throw bad(a.cacheUrl ? '--cache-url' : '--local', 'used with --cache redis');
  if (a.cacheUrl !== undefined && !/^rediss?:\/\/[^\s]+$/.test(a.cacheUrl))
    throw bad('--cache-url', 'a redis:// or rediss:// URL', redactString(a.cacheUrl));
  if (!(Number.isFinite(a.duration) && a.duration >= 0 && a.duration <= settings.maxDurationSeconds))
    throw bad('--duration', `a number of seconds from 0 to ${settings.maxDurationSeconds} (a week; 0: until Ctrl-C)`, a.duration);
  return run;
}

/** @typedef {import('../workloads/queue-updates/queue-run.js').QueueRunPlan} QueueRunPlan */

/**
 * Every check of a queue publisher run, once, at the command's edge: flags, --out, the message
 * bodies (a --from-folder line that is not an update, a batch the service's limit refuses), and
 * the publisher's id (made up here when not given, so the plan names it).
 * @param {Readonly<Record<string, any>>} flags parsed (left as they are)
 * @returns {Readonly<QueueRunPlan>}
 */
export function publisherPlan(flags) {
  const { a, driver, target } = checkPublisher(flags);
  Object.assign(a, checkMetrics(a));
  checkOutput(a);
  a.publisherId ??= randomBytes(4).toString('hex');
  // the bodies are made here to be checked, and again by the run (a plan is data, not files)
  const maker = a.fromFolder
    ? new FolderBodies(a.fromFolder)
    : new BodyMaker(/** @type {ConstructorParameters<typeof BodyMaker>[0]} */ (a));
  // from a folder, the files say how many updates a message carries
  if (a.fromFolder) a.batchSize = maker.batchSize;
  checkFits(a, driver.limits, maker);
  return Object.freeze({ driver, target: deepFreeze({ ...target }), a: planOf(a) });
}

/**
 * Every check of a queue consumer run, once, at the command's edge (the cache's Redis too).
 * @param {Readonly<Record<string, any>>} flags parsed (left as they are)
 * @returns {Readonly<QueueRunPlan>}
 */
export function queueConsumerPlan(flags) {
  const { a, driver, target } = checkQueueConsumer(flags);
  Object.assign(a, checkMetrics(a));
  checkOutput(a);
  if (a.cache === 'redis') checkConnection({ ...a, url: a.cacheUrl });
  return Object.freeze({ driver, target: deepFreeze({ ...target }), a: planOf(a) });
}

/**
 * A message the service would refuse is bad input, found before anything is sent.
 * @param {Record<string, any>} a
 * @param {import('../transports/queue-driver.js').QueueLimits} limits the target's
 * @param {{ largest?: () => string, body: (seq: number) => string }} maker
 */
function checkFits(a, limits, maker) {
  const limit = limits.messageBytes;
  const attrs = largestAttributes(a.publisherId);
  const bytes = limits.countedBytes(maker.largest ? maker.largest() : maker.body(1), attrs);
  if (bytes <= limit) return;
  if (a.fromFolder)
    throw new UsageError(`--from-folder holds a ${grouped(bytes)}-byte message; ${a.target} allows ${grouped(limit)} bytes`);
  const perUpdate = a.keySize + a.valueSize + 2;
  const most = Math.floor((limit - limits.countedBytes('', attrs)) / perUpdate);
  throw new UsageError(
    `--batch-size ${a.batchSize} makes ${grouped(bytes)}-byte messages; ${a.target} allows ${grouped(limit)} bytes (at most ${grouped(most)} updates of ${a.keySize}+${a.valueSize} characters per message)`,
  );
}

/**
 * A parsed flag's camelCase key as typed: sameSlot → same-slot.
 * @param {string} k
 */
export const kebab = (k) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Flags only a queue run reads besides the targets' own (camelCase keys, as yargs gives them), per side. */
const WORKLOAD_ONLY = {
  publish: ['rate', 'batchSize', 'keySize', 'concurrency', 'publisherId', 'fromFolder'],
  consume: ['threads', 'cache', 'cacheUrl', 'untilComplete'],
};

/**
 * A Redis run (--target redis, the default) refuses queue flags rather than ignore them: a
 * `--rate 45` that did nothing would be read as a result.
 * @param {Record<string, any>} a
 * @param {QueueSide} side which queue command's flags (produce: publish, consume: consume)
 */
export function rejectQueueFlags(a, side) {
  const keys = [...queueFlags(side).map(([k]) => k), ...WORKLOAD_ONLY[side]];
  const given = keys.find((k) => a[k] !== undefined);
  if (given === undefined) return;
  const targets = queueDrivers(side).map((d) => d.name);
  throw new UsageError(`--${kebab(given)} is a queue flag: it needs --target ${targets.join('|')} (this run is on Redis)`);
}

/** `[camelCase key, flag as shown]` for each name; single-letter aliases shown as such. */
const shown = (names) => names.map((k) => (Array.isArray(k) ? k : [k, `--${kebab(k)}`]));
const REDIS_MODEL = ['actualValue', ...MODEL_FLAGS, 'ns', 'sameSlot', 'ttl', 'verify', 'at', 'startAt'];

/** Redis producer flags a queue publisher never reads. */
export const REDIS_PRODUCER_ONLY = shown([
  'countInstructions',
  'timeScale',
  ['quantity', '-q'],
  ['period', '-p'],
  ['chunks', '-c'],
  ['writers', '-t'],
  ['writer', '-a'],
  ...REDIS_MODEL,
  'extraSets',
  'listMax',
  'client',
  'cluster',
  'url',
  'host',
  'port',
  'user',
  'password',
  'tls',
  'tlsCa',
  'tlsInsecure',
  'local',
  'masters',
  'replicas',
]);

/** Redis consumer flags a queue consumer never reads (the connection flags serve its --cache redis). */
export const REDIS_CONSUMER_ONLY = shown([
  'countInstructions',
  'timeScale',
  ['period', '-p'],
  ['scriptMode', '-s'],
  ['readers', '-r'],
  'limit',
  'fetch',
  'readFrom',
  'replyTimeout',
  ...REDIS_MODEL,
  'url',
  'host',
  'port',
]);

/**
 * A queue run refuses Redis flags rather than ignore them (`produce --target sqs -q 45` would
 * otherwise publish at the default --rate). A flag counts as given when it was typed (givenFlags: the
 * markGiven middleware's record), even at its default value; without that record, when it differs from its default.
 * @param {Record<string, any>} a
 * @param {Record<string, unknown>} defaults the defaults yargs was given, by camelCase key
 * @param {Array<[string, string]>} flags REDIS_PRODUCER_ONLY or REDIS_CONSUMER_ONLY
 */
export function rejectRedisFlags(a, defaults, flags) {
  // typed counts, even at its default value (`--target sqs -q 100`); without the record, a value off its default
  const typed = givenFlags(a);
  const given = flags.find(([k]) => (typed ? typed.has(k) : a[k] !== undefined && a[k] !== defaults[k]));
  if (!given) return;
  const doing =
    flags === REDIS_CONSUMER_ONLY
      ? 'reads messages (its flags: --threads, --cache, --queue or --subscription, …'
      : 'publishes messages (its flags: --rate, --batch-size, --topic, …';
  throw new UsageError(`${given[1]} is a Redis flag: --target ${a.target} ${doing}; see --help)`);
}

/**
 * The defaults a command's flags were given, by camelCase key (as the parsed flags are).
 * @param {import('yargs').Argv} y
 * @returns {Record<string, unknown>}
 */
export function flagDefaults(y) {
  return Object.fromEntries(Object.entries(y.getOptions().default).map(([k, v]) => [k.replace(/-([a-z])/g, (_, c) => c.toUpperCase()), v]));
}
