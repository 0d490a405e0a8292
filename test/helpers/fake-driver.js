/**
 * A queue system that exists only in memory, written as a driver module the way a new system
 * would be (src/transports/queue-driver.js): registered by a test, it must show up in --help, the
 * checks, `rqbench ops`, `rqbench local` and a whole publisher and consumer run, with no other
 * source file knowing its name.
 */
import { ownOptions } from '../../src/transports/queue-flags.js';

/** @typedef {import('../../src/transports/queue-driver.js').QueueDriver} QueueDriver */

/** What the fake service received, for the test to look at. */
export const published = [];

/** @type {QueueDriver} */
export const fake = {
  name: 'fake',
  service: 'Fake',
  sides: ['publish', 'consume'],
  options: {
    fakeDepth: {
      spec: { type: 'number', requiresArg: true, describe: 'how deep the fake queue is', defaultDescription: '3' },
      fill: 3,
      int: [1, 10],
      onlyHere: 'only the fake queue has a depth',
    },
    fakeRegion: {
      spec: { type: 'string', requiresArg: true, describe: 'where the fake queue lives' },
      form: { re: /^[a-z]+$/, expected: 'lower-case letters' },
    },
  },
  check: (flags, bad) => {
    if (flags.fakeRegion === 'nowhere') throw bad('--fake-region', 'somewhere', flags.fakeRegion);
    return ownOptions(flags, fake.options);
  },
  limits: { messageBytes: 1_000_000, countedBytes: (body) => Buffer.byteLength(body) },
  open: async (side) => ({
    publish: async (body, attrs) => {
      published.push({ body, attrs });
    },
    // nothing to read: wait for the stop, as a real consumer does
    consume: async ({ signal }) => new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })),
    probe: async () => {},
    close: () => {},
    side,
  }),
  describe: (side, o, { threads } = {}) => (side === 'publish' ? `the fake queue (depth ${o.fakeDepth})` : `${threads} fake reader(s)`),
  where: (o) => `Fake in ${o.fakeRegion ?? 'memory'}`,
  facts: (o) => ({ kind: 'fake', depth: o.fakeDepth }),
  consumer: { cloud: 'Fake', timestamp: 'fake time', timestampHelp: 'fake time', receive: null },
  ops: {
    service: 'Fake',
    options: {
      fakeEndpoint: {
        spec: { type: 'string', requiresArg: true, describe: 'the fake ops endpoint' },
        form: { re: /^fake:\/\//, expected: 'a fake:// address' },
      },
    },
    endpointKey: 'fakeEndpoint',
    where: (flags, emu) => ({ endpoint: emu?.endpoint ?? flags.fakeEndpoint }),
    shown: (w) => w.endpoint ?? 'the fake cloud',
    open: async () => ({ service: 'Fake', setup: async () => {}, teardown: async () => {}, ops: [] }),
  },
  emulator: {
    name: 'fakeq',
    label: 'Fake',
    tool: null,
    inProcess: true,
    example: 'a fake queue in memory',
    missing: async () => null,
    start: async () => ({ endpoint: 'fake://local', stop: async () => {} }),
    ready: (emu, secs) => `fake ready in ${secs} s at ${emu.endpoint}\n`,
  },
};
