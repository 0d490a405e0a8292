// The queue driver contract (src/transports/queue-driver.js) and its registry: every registered
// driver declares each member with the right type; a fake system written as one module
// (helpers/fake-driver.js) is picked up by --help, the checks, ops, local and a whole run;
// checks hand back new objects and leave the flags they were given as they were.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import yargs from 'yargs';
import { queueDriver, queueDrivers, queueEmulators, queueFlags, registerQueueDriver } from '../../src/transports/queue-drivers.js';
import { opsEmulators, opsFlags } from '../../src/transports/ops-drivers.js';
import {
  checkPublisher,
  checkQueueConsumer,
  checkQueueTarget,
  publisherOptions,
  publisherPlan,
  queueConsumerOptions,
  queueConsumerPlan,
  rejectQueueFlags,
} from '../../src/plans/queue-plan.js';
import { UsageError, bad } from '../../src/usage-error.js';
import { opsServices } from '../../src/workloads/single-ops/run-ops.js';
import * as ops from '../../src/commands/ops.js';
import * as local from '../../src/commands/local.js';
import { runPublisher } from '../../src/workloads/queue-updates/run-queue-publisher.js';
import { runQueueConsumer } from '../../src/workloads/queue-updates/run-queue-consumer.js';
import { fake, published } from '../helpers/fake-driver.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';

afterAll(removeTempDirs);

const fn = expect.any(Function);
const str = expect.any(String);

/** A flag declaration: a yargs spec --help can show, and checks of the right types. */
function expectFlag(key, f) {
  expect(f.spec, key).toMatchObject({ type: expect.stringMatching(/^(string|number|boolean)$/), describe: str });
  expect(f.spec.default, `${key}: no yargs default (a Redis run must tell a given queue flag)`).toBeUndefined();
  expect(f.spec.group, `${key}: the command sets the group`).toBeUndefined();
  if (f.side !== undefined) expect(['publish', 'consume']).toContain(f.side);
  if (f.int !== undefined) expect(f.int, key).toEqual([expect.any(Number), expect.any(Number)]);
  if (f.form !== undefined) expect(f.form, key).toEqual({ re: expect.any(RegExp), expected: str });
  if (f.onlyHere !== undefined) expect(f.onlyHere, key).toEqual(str);
}

/** Every member of the contract, with the right type. */
function expectDriver(d) {
  expect(d).toMatchObject({
    name: expect.stringMatching(/^[a-z][a-z0-9-]*$/),
    service: str,
    sides: expect.any(Array),
    options: expect.any(Object),
    check: fn,
    open: fn,
    describe: fn,
    where: fn,
    facts: fn,
  });
  expect(d.sides.length, d.name).toBeGreaterThan(0);
  for (const s of d.sides) expect(['publish', 'consume']).toContain(s);
  for (const [key, f] of Object.entries(d.options)) expectFlag(`${d.name} --${key}`, f);
  expect(d.limits).toEqual({ messageBytes: expect.any(Number), countedBytes: fn });
  expect(d.limits.messageBytes).toBeGreaterThan(0);
  expect(d.limits.countedBytes('abc', { k: 'v' })).toBeGreaterThanOrEqual(3);
  const opts = d.check({ target: d.name }, bad);
  for (const side of d.sides) expect(d.describe(side, opts, { threads: 2 }), `${d.name} ${side}`).toEqual(str);
  expect(d.where(opts)).toMatch(new RegExp(`^${d.service.replace(/[/]/g, '\\/')} `));
  expect(d.facts(opts)).toMatchObject({ kind: d.name });
  if (d.sides.includes('consume')) {
    expect(d.consumer, `${d.name} consumes: what its metrics say`).toMatchObject({ cloud: str, timestamp: str, timestampHelp: str });
    if (d.consumer.receive !== null) expect(d.consumer.receive).toEqual({ column: str, row: str, metric: str, help: str });
  }
  if (d.ops) {
    expect(d.ops).toMatchObject({ service: str, options: expect.any(Object), endpointKey: str, where: fn, shown: fn, open: fn });
    expect(Object.keys(d.ops.options), `${d.name}: the endpoint key is one of its ops flags`).toContain(d.ops.endpointKey);
    for (const [key, f] of Object.entries(d.ops.options)) expectFlag(`${d.name} ops --${key}`, f);
    expect(d.ops.shown(d.ops.where({}, null))).toEqual(str);
    expect(d.ops.where({}, { endpoint: 'http://127.0.0.1:1' })).toMatchObject({ endpoint: 'http://127.0.0.1:1' });
  }
  if (d.emulator) {
    expect(d.emulator).toMatchObject({
      name: expect.stringMatching(/^[a-z]+$/),
      label: str,
      inProcess: expect.any(Boolean),
      example: str,
      missing: fn,
      start: fn,
      ready: fn,
    });
    expect(d.emulator.tool === null || typeof d.emulator.tool === 'string').toBe(true);
    expect(d.emulator.ready({ endpoint: 'E:1', pid: 1 }, '0.5')).toContain('E:1');
  }
}

describe('every registered driver satisfies the contract', () => {
  it('the built-in ones: sqs, sns, pubsub', () => {
    expect(queueDrivers().map((d) => d.name)).toEqual(['sqs', 'sns', 'pubsub']);
    for (const d of queueDrivers()) expectDriver(d);
  });

  it('a flag several drivers read is one declaration, so --help describes it once for all', () => {
    const seen = new Map();
    for (const d of queueDrivers()) {
      for (const [key, f] of Object.entries(d.options)) {
        if (seen.has(key)) expect(f, `--${key} of ${d.name}`).toBe(seen.get(key));
        seen.set(key, f);
      }
    }
    expect(queueFlags('publish').map(([k]) => k)).toEqual([
      'endpoint',
      'region',
      'project',
      'topic',
      'queue',
      'subscription',
      'create',
      'raw',
      'visibilityTimeout',
      'ackDeadline',
    ]);
    expect(queueFlags('consume').map(([k]) => k)).toContain('waitSeconds');
    expect(opsFlags().map(([k]) => k)).toEqual(['endpoint', 'region', 'pubsubEndpoint', 'project', 'apiEndpoint', 'assumeRoleArn']);
  });

  it("the limits: AWS counts each attribute's type name, Pub/Sub does not", () => {
    const attrs = { seq: '1' };
    expect(queueDriver('sqs')?.limits.countedBytes('ab', attrs)).toBe(2 + 3 + 6 + 1);
    expect(queueDriver('sns')?.limits).toBe(queueDriver('sqs')?.limits);
    expect(queueDriver('pubsub')?.limits.countedBytes('ab', attrs)).toBe(2 + 3 + 1);
    expect(queueDriver('sqs')?.limits.messageBytes).toBe(256 * 1024);
    expect(queueDriver('pubsub')?.limits.messageBytes).toBe(10_000_000);
  });

  it('SQS and SNS share one emulator: rqbench local lists it once; S3 shares it too, and moto serves the other AWS services ops times', () => {
    expect(queueEmulators().map((e) => e.name)).toEqual(['sqs', 'pubsub']);
    expect(opsEmulators().map((e) => e.name)).toEqual(['sqs', 'pubsub', 'moto']);
  });
});

/** A deep copy, frozen all the way down: any write to it throws in a module (strict mode). */
function frozen(o) {
  return Object.freeze(structuredClone(o));
}

describe('a check returns a new object and leaves its input as it was', () => {
  it.each([
    ['sqs', 'publish', { queue: 'q' }, { queue: 'q', create: undefined }],
    ['sns', 'publish', { raw: true }, { topic: 'rqbench-updates', queue: 'rqbench-updates', raw: true }],
    ['pubsub', 'consume', { project: 'p' }, { project: 'p', topic: 'rqbench-updates', subscription: 'rqbench-updates' }],
    ['sqs', 'consume', {}, { queue: 'rqbench-updates', waitSeconds: 20 }],
  ])('%s (%s)', (target, side, given, want) => {
    const flags = frozen({ target, duration: 5, ...given });
    const before = structuredClone(flags);
    const driver = /** @type {NonNullable<ReturnType<typeof queueDriver>>} */ (queueDriver(target));
    const own = driver.check(flags, bad);
    expect(own).not.toBe(flags);
    expect(own).toMatchObject(want);
    expect(Object.isFrozen(own)).toBe(true);
    const run = checkQueueTarget(flags, side);
    expect(run.driver).toBe(driver);
    expect(run.a).not.toBe(flags);
    expect(run.a).toMatchObject({ ...given, ...Object.fromEntries(Object.entries(want).filter(([, v]) => v !== undefined)) });
    expect(flags).toEqual(before);
  });

  it("the publisher's and consumer's checks too: defaults in the copy, none in the flags", () => {
    const pub = frozen({ target: 'sqs', duration: 5 });
    const p = checkPublisher(pub);
    expect(p.a).toMatchObject({ rate: 45, batchSize: 1000, keySize: 30, valueSize: 10, concurrency: 64, queue: 'rqbench-updates' });
    // a publisher does not record the consumer's --wait-seconds
    expect(p.a.waitSeconds).toBeUndefined();
    expect(pub).toEqual({ target: 'sqs', duration: 5 });
    const con = frozen({ target: 'pubsub', duration: 5 });
    const c = checkQueueConsumer(con);
    expect(c.a).toMatchObject({ threads: 4, cache: 'memory', subscription: 'rqbench-updates' });
    expect(con).toEqual({ target: 'pubsub', duration: 5 });
  });

  it.each([
    [{ target: 'kafka' }, 'publish', '--target must be one of redis, sqs, sns, pubsub (got "kafka")'],
    [{ target: 'sns' }, 'consume', '--target must be one of redis, sqs, pubsub (got "sns")'],
    [{ target: 'sqs', raw: true }, 'publish', '--raw must be used with --target sns (it is an SNS→SQS subscription setting)'],
    [{ target: 'sqs', raw: true }, 'consume', '--raw must be used with --target sns (it is an SNS→SQS subscription setting)'],
    [{ target: 'sqs', endpoint: '127.0.0.1:4566' }, 'publish', '--endpoint must be an http(s):// URL (got "127.0.0.1:4566")'],
    [
      { target: 'pubsub', endpoint: 'http://127.0.0.1:8085' },
      'publish',
      '--endpoint must be host:port (e.g. 127.0.0.1:8085) (got "http://127.0.0.1:8085")',
    ],
    // a bad value is bad input even where the target does not read it (as before the drivers)
    [{ target: 'sqs', ackDeadline: 5 }, 'publish', '--ack-deadline must be an integer from 10 to 600 (got 5)'],
    [{ target: 'pubsub', waitSeconds: 30 }, 'consume', '--wait-seconds must be an integer from 0 to 20 (got 30)'],
  ])('bad input is one UsageError: %j (%s)', (flags, side, msg) => {
    const f = frozen({ duration: 5, ...flags });
    expect(() => checkQueueTarget(f, /** @type {'publish'|'consume'} */ (side))).toThrow(UsageError);
    expect(() => checkQueueTarget(f, /** @type {'publish'|'consume'} */ (side))).toThrow(msg);
  });
});

describe('a new system is one module: a fake driver, registered, is picked up everywhere', () => {
  let unregister = () => {};
  beforeEach(() => {
    unregister = registerQueueDriver(fake);
  });
  afterEach(() => unregister());

  it('satisfies the contract', () => expectDriver(fake));

  it('a second driver of the same name is refused', () => {
    expect(() => registerQueueDriver(fake)).toThrow(/registered already/);
  });

  it('--help of produce and consume: the target in the list, its flags in the queue group', async () => {
    const help = await publisherOptions(yargs([]).wrap(null).scriptName('rqbench produce')).getHelp();
    expect(help).toContain('Queues (--target sqs|sns|pubsub|fake):');
    expect(help).toMatch(/--target +redis, or a queue: sqs, sns, pubsub, fake/);
    expect(help).toMatch(/--fake-depth +how deep the fake queue is/);
    expect(help).toMatch(/--fake-region +where the fake queue lives/);
    const cHelp = await queueConsumerOptions(yargs([]).wrap(null).scriptName('rqbench consume')).getHelp();
    expect(cHelp).toMatch(/--target +redis, or a queue: sqs, pubsub, fake/);
  });

  it('the checks: its defaults filled, its declared ranges, forms and own check applied, its flag refused elsewhere', () => {
    const flags = frozen({ target: 'fake', duration: 5 });
    const run = checkPublisher(flags);
    expect(run.driver).toBe(fake);
    expect(run.target).toEqual({ fakeDepth: 3, fakeRegion: undefined });
    expect(run.a.fakeDepth).toBe(3);
    expect(flags).toEqual({ target: 'fake', duration: 5 });
    expect(() => checkPublisher({ target: 'fake', duration: 5, fakeDepth: 11 })).toThrow(
      '--fake-depth must be an integer from 1 to 10 (got 11)',
    );
    expect(() => checkPublisher({ target: 'fake', duration: 5, fakeRegion: 'Mars' })).toThrow(
      '--fake-region must be lower-case letters (got "Mars")',
    );
    expect(() => checkPublisher({ target: 'fake', duration: 5, fakeRegion: 'nowhere' })).toThrow(
      '--fake-region must be somewhere (got "nowhere")',
    );
    expect(() => checkPublisher({ target: 'sqs', duration: 5, fakeDepth: 2 })).toThrow(
      '--fake-depth must be used with --target fake (only the fake queue has a depth)',
    );
    // a Redis run refuses it as a queue flag, naming the fake among the targets
    expect(() => rejectQueueFlags({ target: 'redis', fakeDepth: 2 }, 'publish')).toThrow(
      '--fake-depth is a queue flag: it needs --target sqs|sns|pubsub|fake (this run is on Redis)',
    );
  });

  it('rqbench ops: a service for --only, its flags and checks, its emulator for --local', async () => {
    expect(opsServices()).toEqual([
      'redis',
      'sqs',
      'sns',
      'pubsub',
      'fake',
      's3',
      'sts',
      'cloudwatch',
      'events',
      'dynamodb',
      'pinpoint',
      's3express',
    ]);
    const help = await ops.builder(yargs([]).wrap(null).scriptName('rqbench ops')).getHelp();
    expect(help).toMatch(/services, comma-separated: redis, sqs, sns, pubsub, fake, s3,/);
    expect(help).toMatch(/--fake-endpoint +the fake ops endpoint/);
    expect(help).toMatch(/the Pub\/Sub emulator, the Fake emulator/);
  });

  it('rqbench local: its emulator is a choice and an example', async () => {
    const help = await local.builder(yargs([]).wrap(null).scriptName('rqbench')).getHelp();
    expect(help).toContain('"fakeq"');
    expect(help).toMatch(/rqbench local fakeq +a fake queue in memory/);
  });

  it('a whole publisher run and consumer run on it, the run directories naming it', async () => {
    published.length = 0;
    const out = tempDir('rqbench-fake-');
    const flags = frozen({ target: 'fake', rate: 20, batchSize: 3, duration: 1, warmup: 0, out, quiet: true, fakeDepth: 4 });
    const p = await runPublisher(publisherPlan(flags));
    expect(p.exitCode).toBe(0);
    expect(published.length).toBeGreaterThanOrEqual(15);
    const manifest = JSON.parse(fs.readFileSync(path.join(p.dir, 'manifest.json'), 'utf8'));
    expect(manifest.target).toMatchObject({ kind: 'fake', depth: 4 });
    expect(manifest.description).toContain('to the fake queue (depth 4)');
    expect(path.basename(p.dir)).toMatch(/produce-fake-b3-r20/);
    const c = await runQueueConsumer(queueConsumerPlan(frozen({ target: 'fake', duration: 1, warmup: 0, out, quiet: true })));
    expect(JSON.parse(fs.readFileSync(path.join(c.dir, 'manifest.json'), 'utf8')).description).toContain('Consumer: 4 fake reader(s)');
    // no receive call to time: the seed's table has no reading column
    expect(c.md).toMatch(/\| Percentile +\| Server side processing +\| E2E +\|/);
  });
});
