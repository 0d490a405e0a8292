/**
 * Queue flags (--target sns|sqs|pubsub): where the messages go and, for the publisher, what
 * they carry; for the consumer, how it reads and where it applies the updates. The seed
 * (000_*.txt) measured 45 messages/s x 1000 updates, keys of 30 and values of 10 characters.
 */
import { bad, intIn, UsageError } from './usage-error.js';
import { MODEL_FLAGS } from '../stores/registry.js';

export const QUEUE_TARGETS = ['sns', 'sqs', 'pubsub'];
const q = 'Queues (--target sns|sqs|pubsub):';

/** Queue defaults (the seed's test data and thread pool). */
export const queueDefaults = Object.freeze({
  rate: 45, batchSize: 1000, keySize: 30, valueSize: 10, concurrency: 64, threads: 4,
  waitSeconds: 20, topic: 'rqbench-updates', queue: 'rqbench-updates', subscription: 'rqbench-updates',
});

/**
 * Flags both sides share: the target and where it is.
 * @param {import('yargs').Argv} y
 * @param {string[]} targets accepted --target values besides redis
 */
export function queueTargetOptions(y, targets) {
  return y
    .option('target', { type: 'string', requiresArg: true, default: 'redis', group: q, describe: `redis, or a queue: ${targets.join(', ')}` })
    .option('endpoint', { type: 'string', requiresArg: true, group: q, describe: 'endpoint of a compatible service or emulator (http://127.0.0.1:PORT for SQS/SNS, 127.0.0.1:PORT for Pub/Sub); omitted: the real cloud' })
    .option('region', { type: 'string', requiresArg: true, group: q, describe: 'AWS region', defaultDescription: 'the AWS SDK chain (AWS_REGION, ~/.aws/config)' })
    .option('project', { type: 'string', requiresArg: true, group: q, describe: 'GCP project', defaultDescription: 'GOOGLE_CLOUD_PROJECT or the credential chain' })
    .option('topic', { type: 'string', requiresArg: true, group: q, describe: 'SNS topic (name with --create, or ARN) or Pub/Sub topic', defaultDescription: queueDefaults.topic })
    .option('queue', { type: 'string', requiresArg: true, group: q, describe: 'SQS queue name or URL (with --target sns --create: subscribed to the topic)', defaultDescription: queueDefaults.queue })
    .option('subscription', { type: 'string', requiresArg: true, group: q, describe: 'Pub/Sub subscription', defaultDescription: queueDefaults.subscription })
    .option('create', { type: 'boolean', group: q, describe: 'create the topic, queue, policy and subscription when missing' })
    .option('raw', { type: 'boolean', group: q, describe: 'SNS→SQS raw message delivery (with --create)' })
    .option('visibility-timeout', { type: 'number', requiresArg: true, group: q, describe: 'SQS visibility timeout of a queue --create makes, s', defaultDescription: '30 (the SQS default)' })
    .option('ack-deadline', { type: 'number', requiresArg: true, group: q, describe: 'Pub/Sub ack deadline of a subscription --create makes, s (10..600)', defaultDescription: '10' });
}

/**
 * Publisher flags (rqbench produce --target …).
 * @param {import('yargs').Argv} y
 */
export function publisherOptions(y) {
  return queueTargetOptions(y, QUEUE_TARGETS)
    .option('rate', { type: 'number', requiresArg: true, group: q, describe: 'messages per second, open loop', defaultDescription: String(queueDefaults.rate) })
    .option('batch-size', { type: 'number', requiresArg: true, group: q, describe: 'updates per message', defaultDescription: String(queueDefaults.batchSize) })
    .option('key-size', { type: 'number', requiresArg: true, group: q, describe: 'characters per key', defaultDescription: String(queueDefaults.keySize) })
    .option('concurrency', { type: 'number', requiresArg: true, group: q, describe: 'publishes in flight at most (more waiting shows as schedule lag)', defaultDescription: String(queueDefaults.concurrency) })
    .option('publisher-id', { type: 'string', requiresArg: true, group: q, describe: 'this publisher\'s id in every message', defaultDescription: 'random' })
    .option('from-folder', { type: 'string', requiresArg: true, group: q, describe: 'publish the files of this folder (rqbench generate-deltas) as message bodies, in name order, starting over when they run out' });
}

/**
 * Consumer flags (rqbench consume --target …).
 * @param {import('yargs').Argv} y
 */
export function queueConsumerOptions(y) {
  return queueTargetOptions(y, ['sqs', 'pubsub'])
    .option('threads', { type: 'number', requiresArg: true, group: q, describe: 'SQS pollers sharing the queue; Pub/Sub streams (flow control: threads x 10 messages)', defaultDescription: String(queueDefaults.threads) })
    .option('wait-seconds', { type: 'number', requiresArg: true, group: q, describe: 'SQS long polling WaitTimeSeconds (0..20)', defaultDescription: String(queueDefaults.waitSeconds) })
    .option('cache', { type: 'string', requiresArg: true, group: q, describe: 'where updates are applied: memory (a Map) or redis (--cache-url, or --local)', defaultDescription: 'memory' })
    .option('cache-url', { type: 'string', requiresArg: true, group: q, describe: 'redis:// or rediss:// URL of the cache (with --cluster for a cluster)' })
    .option('metrics-port', { type: 'number', requiresArg: true, group: q, describe: 'serve Prometheus metrics on 127.0.0.1:PORT/metrics under the seed\'s names (0: any free port)' })
    .option('until-complete', { type: 'boolean', group: q, describe: 'stop once every publisher seen has sent its last message and nothing is missing (--duration still caps the run)' });
}

/**
 * Checks the shared queue flags and fills defaults.
 * @param {Record<string, any>} a
 * @param {string[]} targets
 */
export function checkQueueTarget(a, targets) {
  if (!targets.includes(a.target)) throw bad('--target', `one of redis, ${targets.join(', ')}`, a.target);
  for (const k of ['topic', 'queue', 'subscription']) a[k] ??= queueDefaults[k];
  if (a.endpoint !== undefined) {
    const ok = a.target === 'pubsub' ? /^[^\s/]+:\d+$/.test(a.endpoint) : /^https?:\/\/[^\s]+$/.test(a.endpoint);
    if (!ok) throw bad('--endpoint', a.target === 'pubsub' ? 'host:port (e.g. 127.0.0.1:8085)' : 'an http(s):// URL', a.endpoint);
  }
  if (a.visibilityTimeout !== undefined) intIn(a.visibilityTimeout, '--visibility-timeout', 0, 43_200);
  if (a.ackDeadline !== undefined) intIn(a.ackDeadline, '--ack-deadline', 10, 600);
  if (a.raw && a.target !== 'sns') throw bad('--raw', 'used with --target sns (it is an SNS→SQS subscription setting)');
}

/**
 * Checks the publisher's flags and fills their defaults.
 * @param {Record<string, any>} a
 */
export function checkPublisher(a) {
  checkQueueTarget(a, QUEUE_TARGETS);
  for (const k of ['rate', 'batchSize', 'keySize', 'valueSize', 'concurrency']) a[k] ??= queueDefaults[k];
  if (!(Number.isFinite(a.rate) && a.rate > 0 && a.rate <= 1_000_000)) throw bad('--rate', 'messages per second, > 0', a.rate);
  intIn(a.batchSize, '--batch-size', 1, 10_000_000);
  intIn(a.keySize, '--key-size', 8, 1024);
  intIn(a.valueSize, '--value-size', 1, 1_000_000);
  intIn(a.concurrency, '--concurrency', 1, 10_000);
  if (!(Number.isFinite(a.duration) && a.duration >= 0)) throw bad('--duration', 'a number of seconds >= 0 (0: until Ctrl-C)', a.duration);
  if (a.publisherId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(a.publisherId)) throw bad('--publisher-id', 'letters, digits, _ or -, up to 64', a.publisherId);
}

/**
 * Checks the consumer's queue flags and fills their defaults.
 * @param {Record<string, any>} a
 */
export function checkQueueConsumer(a) {
  checkQueueTarget(a, ['sqs', 'pubsub']);
  a.threads ??= queueDefaults.threads;
  a.waitSeconds ??= queueDefaults.waitSeconds;
  intIn(a.threads, '--threads', 1, 256);
  intIn(a.waitSeconds, '--wait-seconds', 0, 20);
  a.cache ??= 'memory';
  if (!['memory', 'redis'].includes(a.cache)) throw bad('--cache', 'memory or redis', a.cache);
  if (a.cache === 'redis' && !a.cacheUrl && !a.local) throw new UsageError('--cache redis needs --cache-url redis://host:port or --local');
  if (a.cache !== 'redis' && (a.cacheUrl || a.local)) throw bad(a.cacheUrl ? '--cache-url' : '--local', 'used with --cache redis');
  if (a.cacheUrl !== undefined && !/^rediss?:\/\/[^\s]+$/.test(a.cacheUrl)) throw bad('--cache-url', 'a redis:// or rediss:// URL', a.cacheUrl.replace(/\/\/[^@/]*@/, '//***@'));
  if (a.metricsPort !== undefined) intIn(a.metricsPort, '--metrics-port', 0, 65535);
  if (!(Number.isFinite(a.duration) && a.duration >= 0)) throw bad('--duration', 'a number of seconds >= 0 (0: until Ctrl-C)', a.duration);
}

/** A parsed flag's camelCase key as typed: sameSlot → same-slot. */
const kebab = (k) => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** Flags only a queue run reads (camelCase keys, as yargs gives them), per command. */
const QUEUE_ONLY_SHARED = ['endpoint', 'region', 'project', 'topic', 'queue', 'subscription', 'create', 'raw', 'visibilityTimeout', 'ackDeadline'];
export const PUBLISHER_ONLY = [...QUEUE_ONLY_SHARED, 'rate', 'batchSize', 'keySize', 'concurrency', 'publisherId', 'fromFolder'];
export const QUEUE_CONSUMER_ONLY = [...QUEUE_ONLY_SHARED, 'threads', 'waitSeconds', 'cache', 'cacheUrl', 'metricsPort', 'untilComplete'];

/**
 * A Redis run (--target redis, the default) refuses queue flags rather than ignore them: a
 * `--rate 45` that did nothing would be read as a result.
 * @param {Record<string, any>} a
 * @param {string[]} keys PUBLISHER_ONLY or QUEUE_CONSUMER_ONLY
 * @param {string[]} targets the queue targets that read them
 */
export function rejectQueueFlags(a, keys, targets) {
  const given = keys.find((k) => a[k] !== undefined);
  if (given === undefined) return;
  const flag = `--${kebab(given)}`;
  throw new UsageError(`${flag} is a queue flag: it needs --target ${targets.join('|')} (this run is on Redis)`);
}

/** `[camelCase key, flag as shown]` for each name; single-letter aliases shown as such. */
const shown = (names) => names.map((k) => (Array.isArray(k) ? k : [k, `--${kebab(k)}`]));
const REDIS_MODEL = ['actualValue', ...MODEL_FLAGS, 'ns', 'sameSlot', 'ttl', 'verify', 'at', 'startAt'];

/** Redis producer flags a queue publisher never reads. */
export const REDIS_PRODUCER_ONLY = shown([
  ['quantity', '-q'], ['period', '-p'], ['chunks', '-c'], ['writers', '-t'], ['writer', '-a'], ...REDIS_MODEL, 'extraSets', 'listMax',
  'cluster', 'url', 'host', 'port', 'user', 'password', 'tls', 'tlsCa', 'tlsInsecure', 'local', 'masters', 'replicas',
]);

/** Redis consumer flags a queue consumer never reads (the connection flags serve its --cache redis). */
export const REDIS_CONSUMER_ONLY = shown([
  ['period', '-p'], ['scriptMode', '-s'], ['readers', '-r'], 'limit', 'fetch', 'readFrom', ...REDIS_MODEL, 'url', 'host', 'port',
]);

/**
 * A queue run refuses Redis flags rather than ignore them (`produce --target sqs -q 45` would
 * otherwise publish at the default --rate). A flag counts as given when it differs from its default.
 * @param {Record<string, any>} a
 * @param {Record<string, unknown>} defaults the defaults yargs was given, by camelCase key
 * @param {Array<[string, string]>} flags REDIS_PRODUCER_ONLY or REDIS_CONSUMER_ONLY
 */
export function rejectRedisFlags(a, defaults, flags) {
  const given = flags.find(([k]) => a[k] !== undefined && a[k] !== defaults[k]);
  if (!given) return;
  const doing = flags === REDIS_CONSUMER_ONLY ? 'reads messages (its flags: --threads, --cache, --queue or --subscription, …' : 'publishes messages (its flags: --rate, --batch-size, --topic, …';
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
