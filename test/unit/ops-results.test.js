// What RESULTS.md says around the ops tables (seeds 003 and 004): each sentence names the seed it
// speaks of by number, the rows it speaks for, and the servers the runner started.
import { describe, expect, it } from 'vitest';
import { cpuSection, opNotes } from '../../src/experiments/kinds/ops-results.js';
import {
  overheadWords,
  phasesWords,
  roundTripWords,
  seedNumbers,
  spectrumWords,
  startedServers,
} from '../../src/experiments/kinds/ops-words.js';

const local = /** @type {any} */ ({ local: {} });
/** @param {string} seed @param {any} [seedMetrics] */
const spec = (seed, seedMetrics = null) => /** @type {any} */ ({ seed, topology: local, seedMetrics });

describe('the seeds a spec names', () => {
  it('by number, one or several', () => {
    expect(seedNumbers('003 § Baseline as of 8/8/2023')).toEqual(['003']);
    expect(seedNumbers('003 § Baseline; 004 § Performance measurements')).toEqual(['003', '004']);
    expect(seedNumbers('none')).toEqual([]);
  });
});

describe('the overhead table', () => {
  it("on seed 003: the AWS rows are the seed's quantity, Pub/Sub and Redis the nearest their clients allow", () => {
    const w = overheadWords(['003'], ['s3', 'sns', 'pubsub', 'redis']);
    expect(w).toMatch(
      /^The client's overhead in each warm call, laid out as seed 003's table \(its "Overhead \(ms\)" heads it\): for the AWS SDK's rows, seed 003's own quantity; for Pub\/Sub and Redis, the nearest their clients allow, not seed 003's quantity\./,
    );
    expect(w).not.toContain('every figure under it is overhead');
  });

  it('on seed 004: seed 003 gave the table, seed 004 no overhead; only the rows present', () => {
    const w = overheadWords(['004'], ['redis', 'pubsub']);
    expect(w).toContain(
      'laid out as seed 003\'s table (its "Overhead (ms)" heads it; seed 004 gives no overhead figure): for Pub/Sub and Redis',
    );
    expect(w).not.toContain("AWS SDK's rows");
    expect(overheadWords(['004'], ['redis'])).toContain('for Redis, the nearest its client allows');
  });
});

describe('the round-trip table', () => {
  it("on seed 004: the warm medians stand beside the seed's second queries", () => {
    const s = spec('004 § x', [
      ['second reids query', ['redis_get_warm_p50_ms']],
      [
        'connecting mongodb / first / second mongodb query',
        ['pubsub_publish_connect_ms', 'pubsub_publish_first_ms', 'pubsub_publish_warm_p50_ms'],
      ],
    ]);
    const w = roundTripWords(s, ['redis', 'pubsub'], '2 s');
    expect(w).toContain('beside the seed\'s "second reids query" and "second mongodb query" (in the seed, each one call\'s whole time)');
    expect(w).not.toContain('gives no round-trip figures');
    expect(w).toContain('against the servers the runner started: a local Redis; the Pub/Sub emulator.');
  });

  it("on seed 003: none of the seed's, and a column of another table (S3 Express) is not this one's", () => {
    const s = spec('003 § x', [['S3 Express E2E Duration (ms)', ['s3express_putobject_warm_p50_ms']]]);
    const w = roundTripWords(s, ['s3', 'sns', 'sts', 'dynamodb', 'sqs', 'pubsub', 'redis'], '2 s');
    expect(w).toContain('Seed 003 gives no round-trip figures for these operations.');
    expect(w).toContain(
      "the servers the runner started: fauxqs for S3, SNS and SQS; moto's server for STS and DynamoDB; the Pub/Sub emulator; a local Redis.",
    );
  });

  it('names no server the runner did not start', () => {
    expect(startedServers(['redis'], /** @type {any} */ ({ url: 'redis://h:6379' }))).toBeNull();
    expect(startedServers(['sqs', 'sts'], /** @type {any} */ ({ queue: { emulator: 'sqs' } }))).toBe('fauxqs for SQS');
  });
});

describe('connect and the first call', () => {
  it('every SDK client (AWS, Pub/Sub) connects on its first call; only Redis connects in "connect"', () => {
    const w = phasesWords(['s3', 'sts', 'pubsub', 'redis']);
    expect(w).toContain(
      "Every SDK client (each AWS service's and Pub/Sub's) is made fresh for each operation and connects on its first call",
    );
    expect(w).toContain('Redis\'s "connect" is a connection');
    expect(w).not.toContain('(SQS, SNS, Pub/Sub)');
    expect(phasesWords(['redis'])).not.toContain('SDK');
  });
});

describe("wrk2's spectrum", () => {
  it("on seed 003: the layout is seed 004's, all three of its compose-post settings, and the stand-in named", () => {
    const w = spectrumWords(['003'], 'SNS', 'Publish', 'sns-publish.hlog', 'fauxqs');
    expect(w).toContain('each value is one SNS Publish call against fauxqs, a stand-in for SNS, ms');
    expect(w).toContain("The layout is seed 004's (seed 003 prints no spectrum)");
    expect(w).toContain('at -t 4 -c 48, -t 2 -c 16 and -t 1 -c 1, a different quantity: compare the shape of the tail, not the values');
    expect(w).not.toContain('in the seed is of');
  });

  it('on seed 004: its own; Redis is no stand-in', () => {
    const w = spectrumWords(['004'], 'Redis', 'GET', 'redis-get.hlog', 'a local Redis');
    expect(w).toContain('one Redis GET call against a local Redis, ms');
    expect(w).toContain('Seed 004 printed wrk2 spectra');
  });
});

/** @param {any} ops @param {any} cpu */
const step = (ops, cpu) =>
  /** @type {any} */ ({
    step: { label: 'Pinpoint', services: ['pinpoint'] },
    r: { meta: { cpu }, summary: { services: [{ service: 'Pinpoint', ops }] } },
  });
const notEmulated = {
  name: 'GetEndpoint',
  what: 'one endpoint',
  stats: null,
  error: 'http://h does not implement GetEndpoint (HTTP 404)',
  notEmulated: true,
};

describe('an operation the emulator lacks', () => {
  it('is said not emulated, and no failure', () => {
    const lines = opNotes([step([notEmulated], {})]);
    expect(lines).toContain(
      '- Pinpoint GetEndpoint: one endpoint — not emulated: http://h does not implement GetEndpoint (HTTP 404); not counted as a failure.',
    );
    expect(lines.join('\n')).not.toContain('failed**');
  });

  it('a step with no timed call: its CPU is the process starting, not a busier side', () => {
    const out = cpuSection([step([notEmulated], { wallS: 0.3, rqbenchPct: 118, motoPct: 6 })]).join('\n');
    expect(out).toContain(
      "No operation of Pinpoint was timed (each was not emulated or failed): the ops process's 118% of a core over the 0.3 s step is the process starting, loading its SDK and setting up, not timed calls.",
    );
    expect(out).not.toContain('busier side of Pinpoint');
  });

  it('a busier emulator: the round-trip figures say more about it than about the service', () => {
    const s = step([{ name: 'GetItem', what: 'x', stats: { p50: 1 } }], { wallS: 6, rqbenchPct: 50, motoPct: 70 });
    s.step = { label: 'DynamoDB', services: ['dynamodb'] };
    expect(cpuSection([s]).join('\n')).toContain("these round-trip figures say more about moto's server than about DynamoDB.");
  });
});
