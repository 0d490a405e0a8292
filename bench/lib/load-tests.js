/**
 * The tests of `bench:load`, each a command line and how to read its rate from what it printed,
 * and the pure parts of its report: the order of a repeat, a repeat's table, a spread line.
 */
import { describe } from '../../src/stats/describe.js';
import { csvCells } from './phases.js';

/**
 * @typedef {object} LoadTest
 * @property {string} name
 * @property {string} bin
 * @property {string[]} args
 * @property {(m: { code: number|null, signal?: string|null, stdout: string, stderr: string, cpuS: number, wallS: number }, x: { redisCpuS: number }) => Measured} read
 */

/**
 * redisBusy: Redis's CPU over the test's load time (1 = never waiting for the client).
 * @typedef {{ name: string, recordsPerSec: number, redisUsPerRecord: number, redisBusy: number, clientUsPerRecord: number, exactlyOnce: boolean|null }} Measured
 */

/**
 * What every test reads the same way: Redis's CPU per record and its busy share, the client's CPU.
 * @param {string} name
 * @param {number} records
 * @param {number} recordsPerSec
 * @param {{ cpuS: number }} m
 * @param {{ redisCpuS: number }} x
 * @returns {Omit<Measured, 'exactlyOnce'>}
 */
function measured(name, records, recordsPerSec, m, x) {
  return {
    name,
    recordsPerSec,
    redisUsPerRecord: (x.redisCpuS * 1e6) / records,
    redisBusy: (x.redisCpuS * recordsPerSec) / records,
    clientUsPerRecord: (m.cpuS * 1e6) / records,
  };
}

/**
 * @param {{ cli: string, file: string, seedFile: string, host: string, port: number|string, records: number, vsize: number, threads: number, connections: number, batch: number, ttl: number,
 *   bench: { pipeline: number, clients: number, keySpace: number }, out: string }} o
 * @returns {LoadTest[]}
 */
export function loadTests(o) {
  const redis = ['--host', o.host, '--port', String(o.port), '--connections', String(o.connections)];
  const rq = (name, extra, file = o.file) => ({
    name,
    bin: process.execPath,
    args: [o.cli, 'load', file, '--reader-threads', String(o.threads), ...extra, '--out', o.out, '--json', '--quiet'],
    /** @type {LoadTest['read']} */
    read(m, x) {
      let s;
      try {
        s = JSON.parse(m.stdout);
      } catch {
        throw new Error(`${name}: rqbench load exited with ${m.code ?? m.signal}: ${m.stderr.trim().split('\n').slice(-2).join(' | ')}`);
      }
      const cell = s.cells[0];
      if (!cell) throw new Error(`${name}: no cell in the summary`);
      return { ...measured(name, o.records, cell.recordsPerSec, m, x), exactlyOnce: cell.check.ok };
    },
  });
  const rb = (name, test, keysPerRequest) => ({
    name,
    bin: 'redis-benchmark',
    args: [
      '-h',
      o.host,
      '-p',
      String(o.port),
      '-P',
      String(o.bench.pipeline),
      '-c',
      String(o.bench.clients),
      '-n',
      String(Math.round(o.records / keysPerRequest)),
      '-r',
      String(o.bench.keySpace),
      '-d',
      String(o.vsize),
      '-t',
      test,
      '--csv',
    ],
    /** @type {LoadTest['read']} */
    read(m, x) {
      if (m.code !== 0) throw new Error(`${name}: redis-benchmark exited with ${m.code ?? m.signal}: ${m.stderr.trim().split('\n').pop()}`);
      const rps = Number(csvCells(m.stdout)[1]);
      return { ...measured(name, o.records, rps * keysPerRequest, m, x), exactlyOnce: null };
    },
  });
  // Redis inserting as many records of the same value size with no command at all: DEBUG POPULATE
  // (keys key:0, key:1 …), the floor of its CPU per record that no command shape can go below
  const floor = {
    name: 'floor',
    bin: 'redis-cli',
    args: ['-h', o.host, '-p', String(o.port), 'DEBUG', 'POPULATE', String(o.records), 'key', String(o.vsize)],
    /** @type {LoadTest['read']} */
    read(m, x) {
      if (m.code !== 0 || !/^OK/.test(m.stdout.trim()))
        throw new Error(`floor: DEBUG POPULATE failed: ${(m.stdout + m.stderr).trim().split('\n').pop()}`);
      return { ...measured('floor', o.records, o.records / m.wallS, m, x), exactlyOnce: null };
    },
  };
  return [
    rb('rb SET', 'set', 1),
    rq('SET', [...redis, '--command', 'set']),
    rq('SET seed keys', [...redis, '--command', 'set'], o.seedFile),
    rb('rb MSET', 'mset', 10),
    rq('MSET', [...redis, '--command', 'mset', '--batch', String(o.batch)]),
    rq('SETEX', [...redis, '--command', 'set', '--ttl', String(o.ttl)]),
    rq('EVAL', [...redis, '--command', 'eval', '--batch', String(o.batch), '--ttl', String(o.ttl)]),
    rq('noop', ['--sink', 'noop', '--connections', '1']),
    floor,
  ];
}

/**
 * Repeat r's order: the tests rotated by r, so each runs first (and last) once in as many repeats.
 * @template T
 * @param {T[]} tests
 * @param {number} r
 * @returns {T[]}
 */
export function rotated(tests, r) {
  const k = r % tests.length;
  return [...tests.slice(k), ...tests.slice(0, k)];
}

/** @param {Measured[]} row one repeat, in the tests' order */
export function testTable(row) {
  const redis = (x, s) => (x.name === 'noop' ? '-' : s);
  const lines = row.map(
    (x) =>
      `| ${x.name} | ${Math.round(x.recordsPerSec).toLocaleString('en-US')} | ${redis(x, x.redisUsPerRecord.toFixed(2))} | ${redis(x, `${(x.redisBusy * 100).toFixed(1)}%`)} | ${x.clientUsPerRecord.toFixed(2)} | ${x.exactlyOnce === null ? '-' : x.exactlyOnce ? 'ok' : 'FAILED'} |`,
  );
  return [
    '| test | records/s | Redis CPU µs/record | Redis busy | client CPU µs/record | exactly once |',
    '| --- | ---: | ---: | ---: | ---: | :---: |',
    ...lines,
  ].join('\n');
}

/**
 * "median 1.07x, 94% interval 0.98–1.12x (n=5)": the median over the repeats and its
 * distribution-free interval (stats/describe.js: the order statistics; with 5 repeats that is
 * their min–max, which covers the median with probability 1 − 2·0.5^5 = 93.75%).
 * @param {number[]} v
 */
export function spreadLine(v) {
  const d = describe(v, 0.9);
  const range = d.ci
    ? `${Math.round(d.ci.level * 100)}% interval ${d.ci.lo.toFixed(2)}–${d.ci.hi.toFixed(2)}x (n=${d.n})`
    : `no interval (${d.why})`;
  return `median ${d.median?.toFixed(2)}x, ${range}`;
}
