// Bad input to `rqbench kv`: one line naming the flag and what is accepted, exit 2, nothing on
// stdout, nothing written; and --help, which documents every shape. The command runs in this
// process, against a port nothing listens on (a check that slips through fails to connect, exit 1);
// test/integration/kv.test.js runs the workload against real servers.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun, listTree, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { DEAD_PORT, rqbench } from '../helpers/in-process.js';

afterAll(() => removeTempDirs());

describe('rqbench kv: bad input', () => {
  it.each([
    [['--rate', '0'], /^rqbench kv: --rate must be operations a second above 0, at most 10000000 \(got 0\)$/],
    [['--rate', 'fast'], /^rqbench kv: --rate needs a number \(got "fast"\)$/],
    [['--rate', '100', '--ramp', '0:100'], /^rqbench kv: --rate must be left out with --ramp/],
    [['--ramp', '5:100'], /^rqbench kv: --ramp must be T:RATE,T:RATE,… .*\(got "5:100"\)$/],
    [['--mix', 'get:90,put:10'], /^rqbench kv: --mix must be OP:WEIGHT,.*; put is not an operation \(got "get:90,put:10"\)$/],
    [['--mix', 'get:0'], /^rqbench kv: --mix must be OP:WEIGHT/],
    [['--mix', 'get:1,get:2'], /^rqbench kv: --mix must be .*each operation once/],
    [['--preset', 'ycsb-a', '--mix', 'get:1'], /^rqbench kv: --mix must be left out with --preset \(ycsb-a is get:50,set:50\)$/],
    [['--preset', 'ycsb-z'], /^rqbench: --preset must be one of ycsb-a, ycsb-b, ycsb-c, ycsb-d, ycsb-e, ycsb-f \(got "ycsb-z"\)$/],
    [['--keys', '0'], /^rqbench kv: --keys must be an integer from 1 to 4294967296 \(got 0\)$/],
    [['--key-dist', 'zipf:-1'], /^rqbench kv: --key-dist must be zipf:S or zipf:S:scrambled with S above 0 \(got "zipf:-1"\)$/],
    [['--key-dist', 'pareto'], /^rqbench kv: --key-dist must be /],
    [['--key-pattern', 'kv:x'], /^rqbench kv: --key-pattern must be a key name holding \{n\} once/],
    [['--sizes', '0'], /^rqbench kv: --sizes must be /],
    [['--sizes', '128:1,abc'], /^rqbench kv: --sizes must be /],
    [['--seed', '-1'], /^rqbench kv: --seed must be an integer from 0 to 4294967295 \(got -1\)$/],
    [['--clients', '0'], /^rqbench kv: --clients must be an integer from 1 to 1024 \(got 0\)$/],
    [['--ttl', '-5'], /^rqbench kv: --ttl must be an integer from 0 to 31536000 \(got -5\)$/],
    [['--arrivals', 'bursty'], /^rqbench: --arrivals must be one of constant, poisson \(got "bursty"\)$/],
    [['--mix', 'set:1', '--read-from', 'replica'], /^rqbench kv: --read-from replica must be used with a mix that reads/],
    [['--pipeline', '-1'], /^rqbench kv: --pipeline must be an integer from 0 to 1000000 \(got -1\)$/],
    [['--pipeline', '1.5'], /^rqbench kv: --pipeline must be an integer/],
    [['-d', '1e12'], /^rqbench kv: --duration must be a number of seconds from 0 to 604800/],
    [['--at', '1:reshard:10'], /^rqbench kv: --at must be used with --cluster/],
  ])('%j: one line, exit 2, nothing written', async (flags, line) => {
    const out = path.join(tempDir('rqbench-kv-bad-'), 'runs');
    const r = await rqbench(['kv', '--port', String(DEAD_PORT), '--out', out, ...flags]);
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(line);
    expect(listTree(out)).toEqual([]);
  });

  it('--help documents every shape: operations, presets, key distributions, sizes, arrivals, ramp, seed', async () => {
    const r = await rqbench(['kv', '--help']);
    expect(r.code).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    for (const words of [
      'get, set, del, incr, hget, hset, zadd, zrange, insert, rmw',
      'ycsb-a update heavy',
      'ycsb-f read-modify-write',
      'zipf:S[:scrambled]',
      'hotspot:F:P',
      'latest:S',
      'sequential',
      'MIN-MAX (uniform)',
      'SIZE:WEIGHT',
      'poisson: exponential gaps',
      'T:RATE,T:RATE',
      '--seed',
      '--read-from',
      'rmw = GET <key>, then SET <key>',
    ])
      expect(help).toContain(words);
  });
});
