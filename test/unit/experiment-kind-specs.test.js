// Bad steps of each kind but the default (queue, capacity, load, ops, a load from S3): one line
// naming the field, exit 2, nothing written. Each spec is the one its e2e or integration test runs,
// with one mistake; the command runs in this process.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { removeTempDirs } from '../helpers/producer-run.js';
import { experimentDir, experimentWithTmp, expectRefused } from '../helpers/experiment-spec.js';
import { CAPACITY_SPEC, KV_SPEC, LOAD_SPEC, OPS_SPEC, QUEUE_SPEC, S3_SPEC } from '../helpers/specs.js';
import { rqbench } from '../helpers/in-process.js';

afterAll(() => removeTempDirs());

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-800)}`;

describe('queue steps', () => {
  // [what is wrong, the edit, the one line expected]
  const BAD = [
    ['the publisher target', ['flags: { target: sqs, key', 'flags: { target: kafka, key'], 'flags.target must be one of sns, sqs, pubsub'],
    [
      'the consumer target',
      ['consumer: { target: sqs, threads: 2 }', 'consumer: { target: pubsub, threads: 2 }'],
      'steps[0].consumer.target must be sqs for a sqs publisher (got "pubsub")',
    ],
    [
      'a runner-owned flag',
      ['flags: { batch-size: 100, rate: 20 }', 'flags: { batch-size: 100, rate: 20, endpoint: "http://x" }'],
      'steps[1].flags.endpoint is set by the runner',
    ],
    [
      'a publisher flag',
      ['flags: { batch-size: 100, rate: 20 }', 'flags: { batch-size: 100, rate: -1 }'],
      'steps[1].flags: --rate must be',
    ],
    ['a consumer flag', ['threads: 2 }', 'threads: 0 }'], 'steps[0].consumer: --threads must be'],
    ['the seed figures', ['e2e: [316ms, 1.2s] }', 'e2e: [316ms] }'], 'steps[0].seedFigures.e2e must be [p50, p999] as the seed wrote them'],
    ['the emulator', ['emulator: sqs', 'emulator: kafka'], 'topology.queue.emulator must be one of sqs, pubsub (got "kafka")'],
    ['the topology', ['{ queue: { emulator: sqs } }', '{ local: { replicas: 0 } }'], 'topology: a queue step needs a queue service'],
    [
      'a regime on queue steps',
      ['emulator: sqs } }', 'emulator: sqs } }\nregime: { engine: 0.75 }'],
      'regime is for produce steps: it scales their rate',
    ],
    [
      'the latency model',
      ['[30ms, 60ms]', '[60ms, 30ms]'],
      'steps[1].latencyModel.ReceiveMessage must be [p50, p999] with p50 above 0 and below p999',
    ],
    [
      'a latency model without the emulator',
      ['{ queue: { emulator: sqs } }', '{ queue: { endpoint: "http://127.0.0.1:1" } }'],
      'steps[1].latencyModel needs topology queue: { emulator: sqs }',
    ],
  ];
  it.each(BAD)('refuses a queue step with a mistake in %s: one line naming the field, exit 2, nothing written', (_what, edit, line) =>
    expectRefused(QUEUE_SPEC, edit, line),
  );

  it('refuses an endpoint that holds credentials, without echoing them', async () => {
    // the one-step spec test/e2e/experiment-queue.test.js points at a named endpoint
    const one = QUEUE_SPEC.replace(
      '{ queue: { emulator: sqs } }',
      '{ queue: { endpoint: "http://user:secret@127.0.0.1:1" }, instanceType: "an SQS endpoint" }',
    )
      .replace(/ {2}- name: small[\s\S]*?latencyModel: [^\n]*\n/, '')
      .replace(
        'check: "big.messages_per_sec < small.messages_per_sec and big.missing == 0 and small.missing == 0"',
        'check: "big.missing == 0"',
      );
    const refused = await rqbench(['experiment', 'run', '--allow-dirty', experimentDir(one)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('topology.queue.endpoint must not hold credentials');
    expect(refused.stderr).not.toContain('secret');
  });
});

describe('capacity steps', () => {
  // [what is wrong, the edit, the one line expected]
  const BAD = [
    ['a cap', ['cpus: 0.25,', 'cpus: 0,'], 'steps[1].cpus must be a number of cores > 0 (got 0)'],
    ['a search flag', ['slo-p99: 1000', 'slo-p99: 0'], 'steps[0].capacity.slo-p99 must be a latency in ms > 0 (got 0)'],
    [
      'the search range',
      ['max-rate: 10000', 'max-rate: 100'],
      'steps[0].capacity.max-rate must be a rate in items/s at least --start-rate (5000) (got 100)',
    ],
    [
      'an instance field',
      ['hourlyPrice: 0.02 }', 'hourlyPrice: 0.02, price: 1 }'],
      'steps[1].instance.price is not a field here (known: type, vcpu, memoryGb, hourlyPrice)',
    ],
    ['an instance fact', ['vcpu: 0.25,', 'vcpu: -1,'], 'steps[1].instance.vcpu must be a number > 0 (got -1)'],
    [
      'the kind',
      ['kind: capacity, label: a quarter', 'kind: search, label: a quarter'],
      'steps[1].kind must be one of produce, capacity, queue, load, ops, kv (got "search")',
    ],
    ['a rate', ['c: 20 }', 'c: 20, q: 500 }'], 'flags.q is set by the capacity search'],
    [
      'mixed kinds',
      [
        'kind: capacity, label: a quarter, cpus: 0.25, instance: { type: local-small, vcpu: 0.25, memoryGb: 1, hourlyPrice: 0.02 }',
        'label: a quarter',
      ],
      'steps must all be of one kind',
    ],
    ['forRate', ['forRate: 50000', 'forRate: -5'], 'forRate must be a number > 0 (got -5)'],
  ];
  it.each(BAD)('refuses a capacity step with a mistake in %s: one line naming the field, exit 2, nothing written', (_what, edit, line) =>
    expectRefused(CAPACITY_SPEC, edit, line),
  );
});

describe('kv steps', () => {
  // [what is wrong, the edit, the one line expected]
  const BAD = [
    ['a kv flag', ['key-dist: uniform }', 'key-dist: gauss }'], 'steps[0].flags.key-dist must be'],
    ['a number', ['rate: 3000', 'rate: lots'], 'flags.rate needs a number (got "lots")'],
    ['a flag kv does not have', ['seed: 5 }', 'seed: 5, ns: 3 }'], 'flags.ns is not a flag of rqbench kv'],
    ['a runner-owned flag', ['seed: 5 }', 'seed: 5, url: "redis://x" }'], 'flags.url is set by the runner'],
    ['a consumer', ['key-dist: uniform }', 'key-dist: uniform }, consumer: { readers: 1 }'], 'steps[0]: a kv step has no consumer'],
    [
      'a metric',
      ['zipf.top_shard_ops_share >', 'zipf.hot_share >'],
      'check: "zipf.hot_share": hot_share is not a metric (known: target, achieved, achieved_ratio, op_p50_ms, op_p99_ms',
    ],
    [
      'the topology',
      ['{ local: { cluster: true, masters: 3, replicas: 1 } }', '{ queue: { emulator: sqs } }'],
      'topology: a kv step needs Redis: topology local: or url:',
    ],
  ];
  it.each(BAD)('refuses a kv step with a mistake in %s: one line naming the field, exit 2, nothing written', (_what, edit, line) =>
    expectRefused(KV_SPEC, edit, line),
  );
});

describe('load and ops steps', () => {
  const experiment = experimentWithTmp;
  afterEach(() => vi.unstubAllEnvs());

  const LOAD_BAD = [
    [
      'a grid value',
      ['reader-threads: [1]', 'reader-threads: 0'],
      'steps[0].flags.reader-threads must be an integer from 1 to 256, or a comma-separated list of them (got "0")',
    ],
    ['the sink', ['sink: noop', 'sink: disk'], 'steps[0].flags.sink must be redis, noop, memory (got "disk")'],
    [
      'connections for the redis sink',
      ['sink: noop, reader-threads: [1], connections: 1', 'reader-threads: 4, connections: 2'],
      'steps[0].flags.connections must be at least --reader-threads with the redis sink',
    ],
    [
      'a file flag',
      ['connections: 1 }', 'connections: 1, records: 10 }'],
      "steps[0].flags.records is set by the runner (the spec's deltaFile: { records, recordSize })",
    ],
    ['an unknown flag', ['connections: 1 }', 'connections: 1, bogus: 2 }'], 'steps[0].flags.bogus is not a flag of rqbench load'],
    [
      'the record size',
      ['recordSize: 100', 'recordSize: 8'],
      'deltaFile.recordSize must be an integer from 13 (keys like delta:2999, TAB, a value byte, LF) to 1048576 (got 8)',
    ],
    [
      'a duration',
      ['steps:', 'duration: 5\nsteps:'],
      'duration: a load step runs until its grid has loaded the file (no duration or warm-up)',
    ],
    ['a metric', ['one.cells == 1', 'one.rows == 1'], 'check: "one.rows": rows is not a metric (known: best_records_per_sec, '],
  ];
  const OPS_BAD = [
    [
      'a service',
      ['only: redis', 'only: mongodb'],
      'steps[0].flags.only must be a comma-separated list of redis, sqs, sns, pubsub, s3, sts, cloudwatch, events, dynamodb, pinpoint, s3express (got "mongodb")',
    ],
    [
      'an operation',
      ['spectrum: redis.get', 'spectrum: redis.FETCH'],
      'spectrum: FETCH is not an operation of redis (known: GET, MGET, ZRANGEBYSCORE, SET, ZADD)',
    ],
    [
      'a spectrum the step does not time',
      ['only: redis } }', 'only: redis }, spectrum: sqs.SendMessage }'],
      'steps[0].spectrum: sqs.SendMessage is not timed by this step (steps[0].flags.only: redis)',
    ],
    ['an endpoint', ['only: redis }', 'only: redis, endpoint: "http://127.0.0.1:4566" }'], 'steps[0].flags.endpoint is set by the runner'],
    [
      'the topology',
      ['topology: { local: {} }', 'topology: { queue: { emulator: sqs } }'],
      'steps[0].flags.only: redis needs topology local: or url: (this topology is a queue service)',
    ],
    ['a consumer', ['only: redis }', 'only: redis }, consumer: true'], 'steps[0]: an ops step has no consumer'],
    [
      'a metric',
      ['one.failed_ops == 0', 'one.redis_gett_first_ms == 0'],
      'check: "one.redis_gett_first_ms": redis_gett_first_ms is not a metric (known: redis_get_connect_ms, ',
    ],
    ['the kind', ['kind: ops', 'kind: opz'], 'kind must be one of produce, capacity, queue, load, ops, kv (got "opz")'],
  ];

  it.each([...LOAD_BAD.map((b) => ['load', ...b, LOAD_SPEC]), ...OPS_BAD.map((b) => ['ops', ...b, OPS_SPEC])])(
    'a %s step with a mistake in %s: one line naming the field, exit 2, nothing written',
    async (kind, _what, [from, to], line, spec) => {
      expect(spec).toContain(from);
      const { dir, tmp } = experiment(spec.replace(from, to), kind);
      // where the runner would put its files, as the e2e test's child process has it
      vi.stubEnv('TMPDIR', tmp);
      const r = await rqbench(['experiment', 'run', '--allow-dirty', dir]);
      expect(r.code, why(r)).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toContain(`rqbench experiment: ${path.join(dir, 'experiment.yaml')}: ${line}`);
      expect(fs.readdirSync(dir)).toEqual(['experiment.yaml']);
      expect(fs.readdirSync(tmp)).toEqual([]);
    },
  );

  it.each([
    ['where it is from', ['from: s3', 'from: ftp'], 'steps[0].from must be file or s3 (got "ftp")'],
    ['the endpoint', ['s3-connections: 2 }', 's3-connections: 2, endpoint: "http://x" }'], 'steps[0].flags.endpoint is set by the runner'],
    ['the topology', ['topology: { local: {} }', 'topology: { url: "redis://127.0.0.1:1" }'], 'steps[0].from: s3 needs topology local:'],
  ])('refuses a step from S3 with a mistake in %s: one line naming the field, exit 2, nothing written', (_what, edit, line) =>
    expectRefused(S3_SPEC, edit, line),
  );
});
