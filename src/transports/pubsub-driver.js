/**
 * The Google Cloud Pub/Sub driver (queue-driver.js): publishes to a topic, consumes a
 * subscription by streaming pull (acked after apply); its ops are Publish and Pull; its local
 * stand-in is Google's emulator (a system package, found, never fetched). The client library
 * takes a second to load: only open() and the ops load it (pubsub.js, pubsub-ops.js).
 */
import { importThen } from './queue-driver.js';
import { PUBSUB_LIMITS, PUBSUB_OUTSTANDING } from './queue-limits.js';
import { CREATE, DEFAULT_NAME, ENDPOINT, TOPIC, ownOptions } from './queue-flags.js';

/** @typedef {import('./queue-driver.js').QueueFlag} QueueFlag */

/** An emulator or compatible endpoint is host:port (what PUBSUB_EMULATOR_HOST takes). */
const HOST_PORT = { re: /^[^\s/]+:\d+$/, expected: 'host:port (e.g. 127.0.0.1:8085)' };

/** @type {QueueFlag} */
const PROJECT = {
  spec: { type: 'string', requiresArg: true, describe: 'GCP project', defaultDescription: 'GOOGLE_CLOUD_PROJECT or the credential chain' },
};

/** @type {QueueFlag} */
const SUBSCRIPTION = {
  spec: { type: 'string', requiresArg: true, describe: 'Pub/Sub subscription', defaultDescription: DEFAULT_NAME },
  fill: DEFAULT_NAME,
};

/** @type {QueueFlag} */
const ACK_DEADLINE = {
  spec: {
    type: 'number',
    requiresArg: true,
    describe: 'Pub/Sub ack deadline of a subscription --create makes, s (10..600)',
    defaultDescription: '10',
  },
  int: [10, 600],
};

/** @type {QueueFlag} `rqbench ops` has its own, beside the SQS/SNS --endpoint */
const OPS_ENDPOINT = {
  spec: {
    type: 'string',
    requiresArg: true,
    describe: 'Pub/Sub endpoint, host:port (an emulator: rqbench local pubsub); omitted: Google Cloud, with ADC',
  },
  form: HOST_PORT,
};

/** @type {import('./queue-driver.js').QueueDriver} */
export const pubsub = {
  name: 'pubsub',
  service: 'Pub/Sub',
  sides: ['publish', 'consume'],
  options: { endpoint: ENDPOINT, project: PROJECT, topic: TOPIC, subscription: SUBSCRIPTION, create: CREATE, ackDeadline: ACK_DEADLINE },
  check: (flags, bad) => {
    if (flags.endpoint !== undefined && !HOST_PORT.re.test(flags.endpoint)) throw bad('--endpoint', HOST_PORT.expected, flags.endpoint);
    return ownOptions(flags, pubsub.options);
  },
  limits: PUBSUB_LIMITS,
  open: async (side, o, loaded) =>
    (await importThen(import('./pubsub.js'), loaded)).openPubsub({
      endpoint: o.endpoint,
      project: o.project,
      create: o.create,
      ackDeadline: o.ackDeadline,
      topic: o.topic,
      // a publisher with --create makes the subscription too, so nothing published before the consumer starts is lost
      subscription: side === 'consume' || o.create ? o.subscription : undefined,
    }),
  describe: (side, o, { threads } = {}) =>
    side === 'publish'
      ? 'Pub/Sub'
      : `Pub/Sub streaming pull (${threads} stream(s), flow control ${PUBSUB_OUTSTANDING.toLocaleString('en-US')} messages outstanding, ack after apply) on subscription ${o.subscription}`,
  where: (o) => (o.endpoint ? `Pub/Sub at ${o.endpoint}` : `Pub/Sub in the GCP cloud${o.project ? ` (project ${o.project})` : ''}`),
  facts: (o) => ({
    kind: 'pubsub',
    ...(o.endpoint ? { endpoint: o.endpoint } : { cloud: 'gcp' }),
    project: o.project ?? null,
    topic: o.topic,
    subscription: o.subscription,
  }),
  consumer: { cloud: 'Gcp', timestamp: 'Pub/Sub publishTime', timestampHelp: 'Pub/Sub publishTime', receive: null },
  ops: {
    service: 'Pub/Sub',
    options: { pubsubEndpoint: OPS_ENDPOINT, project: PROJECT },
    endpointKey: 'pubsubEndpoint',
    where: (flags, emu) => ({ endpoint: emu?.endpoint ?? flags.pubsubEndpoint, project: flags.project }),
    shown: (w) => w.endpoint ?? `Google Cloud${w.project ? ` project ${w.project}` : ''}`,
    open: async (where, name) => (await import('./pubsub-ops.js')).pubsubService(where, name),
  },
  emulator: {
    name: 'pubsub',
    label: 'Pub/Sub',
    tool: null,
    inProcess: false,
    example: 'the Google Cloud Pub/Sub emulator',
    missing: async () => {
      const { findPubsubEmulator, PUBSUB_INSTALL_HINT } = await import('../local/pubsub-emulator.js');
      return findPubsubEmulator() ? null : PUBSUB_INSTALL_HINT;
    },
    start: async () => (await import('../local/pubsub-emulator.js')).startPubsub(),
    ready: (emu, secs) =>
      [
        `Local Pub/Sub emulator ready in ${secs} s (pid ${emu.pid})`,
        `endpoint: ${emu.endpoint}`,
        '',
        'Use:',
        `  rqbench produce --target pubsub --endpoint ${emu.endpoint} --topic updates --subscription updates --create --rate 10 --batch-size 100`,
        `  rqbench consume --target pubsub --endpoint ${emu.endpoint} --topic updates --subscription updates --threads 1`,
        `  PUBSUB_EMULATOR_HOST=${emu.endpoint} <any Pub/Sub client>`,
        '',
        'Ctrl-C stops it.',
        '',
      ].join('\n'),
  },
};
