// Bad input to `rqbench capacity`: one line, exit 2, nothing written. The command runs in this
// process; test/e2e/capacity.test.js runs the searches themselves.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun, listTree, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { rqbench } from '../helpers/in-process.js';

afterAll(() => removeTempDirs());

describe('rqbench capacity: bad input', () => {
  const refused = [
    [['--slo-p99', '0'], /^rqbench capacity: --slo-p99 must be a latency in ms > 0 \(got 0\)$/],
    [['--precision', '2'], /^rqbench capacity: --precision must be a fraction from 0\.005 to 0\.5/],
    // a blank number is not 0: --confirm '' ran a whole search with no re-tests
    [['--confirm', ''], /^rqbench capacity: --confirm needs a number \(got ""\)$/],
    // the consumer's flags are read by the consumer's options, a word quoted back as typed
    [['--consumer=-r 2x'], /^rqbench capacity: --consumer's --readers needs a number \(got "2x"\)$/],
    [['--tries', '0'], /^rqbench capacity: --tries must be an integer from 1 to 9 \(got 0\)$/],
    [['--tries', '1.5'], /^rqbench capacity: --tries must be an integer from 1 to 9 \(got 1\.5\)$/],
    [
      ['--start-rate', '5000', '--max-rate', '100'],
      /^rqbench capacity: --max-rate must be a rate in items\/s at least --start-rate \(5000\)/,
    ],
    [['--hourly-price', '0.2'], /^rqbench capacity: --hourly-price needs --instance-type/],
    [['--instance-type', 'r6g.large', '--vcpu', '0'], /^rqbench capacity: --vcpu must be a number > 0/],
    [['-q', '5000'], /^rqbench capacity: -q is set by the capacity search/],
    [
      ['--step-seconds', '3', '--step-warmup', '3'],
      /^rqbench capacity: --step-warmup must be seconds >= 0 and shorter than --step-seconds/,
    ],
    [['--ns', '0'], /^rqbench capacity: --ns must be/],
    [['--node-cpus', '0', '--local'], /^rqbench capacity: --node-cpus must be/],
    // --kv: each step runs rqbench kv, its flags checked by kv's own options and plan
    [['--local', '--kv=--preset ycsb-z'], /^rqbench capacity: --kv's --preset must be one of ycsb-a, .*, ycsb-f \(got "ycsb-z"\)$/],
    [['--local', '--kv=--keys abc'], /^rqbench capacity: --kv's --keys needs a number \(got "abc"\)$/],
    [['--local', '--kv=--bogus 3'], /^rqbench capacity: --kv's --bogus is not a flag of rqbench kv \(see rqbench kv --help\)$/],
    [['--local', '--kv=--rate 5'], /^rqbench capacity: --kv: --rate is set by the capacity search/],
    [['--local', '--kv=--ramp 0:5,3:10'], /^rqbench capacity: --kv: --ramp is set by the capacity search/],
    [['--local', '--kv=-d 5'], /^rqbench capacity: --kv: -d is set by the capacity search/],
    [['--local', '-t', '2', '--kv=--preset ycsb-b'], /^rqbench capacity: -t is a producer flag: with --kv every step runs rqbench kv/],
    [['--local', '--kv=--preset ycsb-b', '--consumer=-r 1'], /^rqbench capacity: --consumer reads what the producer writes/],
    [['--local', '--kv= '], /^rqbench capacity: --kv must be rqbench kv's flags in one argument/],
  ];
  for (const [flags, line] of refused) {
    it(`refuses ${flags.join(' ')} in one line, exit 2, nothing written`, async () => {
      const out = path.join(tempDir('rqbench-capacity-bad-'), 'runs');
      const run = await rqbench(['capacity', ...flags, '--out', out]);
      expect(run.code, describeRun(run)).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr.trim()).toMatch(line);
      expect(listTree(out)).toEqual([]);
    });
  }

  it('refuses a consumer flag the search sets itself', async () => {
    const bad = await rqbench(['capacity', '--local', '--consumer=-d 5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      "rqbench capacity: --consumer: -d is set by the capacity search (the consumer runs each step, on the producer's target)",
    );
  });

  it('refuses a bad --metrics-port in one line, exit 2, nothing written', async () => {
    const out = path.join(tempDir('rqbench-runner-metrics-bad-'), 'runs');
    const bad = await rqbench(['capacity', '--local', '--metrics-port', '0', '--out', out]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^rqbench capacity: --metrics-port must be an integer from 1 to 65535 \(got 0\)$/);
    expect(listTree(out)).toEqual([]);
  });
});

describe('rqbench compare on capacity searches', () => {
  it('refuses a producer search beside a kv search in one line, exit 2: their rates count different things', async () => {
    const base = tempDir('rqbench-capacity-units-');
    const dirs = ['items', 'operations'].map((unit) => {
      const d = path.join(base, `capacity-${unit}`);
      fs.mkdirSync(d, { recursive: true });
      fs.writeFileSync(path.join(d, 'capacity.json'), JSON.stringify({ answer: 'x', criteria: unit === 'items' ? {} : { unit } }));
      return d;
    });
    const r = await rqbench(['compare', ...dirs]);
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stderr.trim()).toMatch(
      /^rqbench compare: <a> <b> \[more\.\.\] must be capacity searches of one kind: a producer's \(items\/s\) or a kv workload's \(operations\/s\)/,
    );
    expect(r.stdout).toBe('');
  });
});
