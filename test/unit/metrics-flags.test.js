// Bad --metrics-* values on every command that serves metrics: one line naming the flag and what
// it takes, exit 2, nothing written. The commands run in this process; a port in use needs a
// listener, and --metrics-relay a process of its own (the IPC channel it checks for is the
// process's, and a test worker has one): both are in test/integration/live-metrics.test.js.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMON_PARTS, ownedFlags } from '../../src/experiments/command-line.js';
import { relayArgs } from '../../src/experiments/children.js';
import { listTree, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { DEAD_PORT, rqbench, seedScript } from '../helpers/in-process.js';

let file;
beforeAll(async () => {
  file = path.join(tempDir('rqbench-bad-metrics-file-'), 'delta.tsv');
  expect((await rqbench(['load', '--generate', file, '--records', '1000', '--quiet'])).code).toBe(0);
});
afterAll(() => removeTempDirs());

const redisAt = ['--host', '127.0.0.1', '--port', DEAD_PORT, '-d', '1'];
const NO_SQS = ['--target', 'sqs', '--queue', 'q', '--endpoint', 'http://127.0.0.1:9', '-d', '1'];
const producer = (argv) => seedScript('producer.js', argv);
const consumer = (argv) => seedScript('consumer.js', argv);

/**
 * Each case's command with `--out <fresh> <flags…>`: exit 2, one line saying `re`, nothing under --out.
 * @param {Array<{ name: string, run: (argv: string[]) => Promise<any>, flags: string[], re: RegExp }>} all
 */
async function expectEachRefused(all) {
  for (const { name, run, flags, re } of all) {
    const out = tempDir('rqbench-bad-metrics-');
    const r = await run(['--out', out, ...flags]);
    const what = `${name} ${flags.join(' ')}: ${r.stderr}`;
    expect(r.code, what).toBe(2);
    expect(r.stderr.trim().split('\n'), what).toHaveLength(1);
    expect(r.stderr.trim(), what).toMatch(re);
    expect(listTree(out), what).toEqual([]);
  }
}

describe('bad values: one line naming the flag, exit 2, nothing written', () => {
  const cases = [
    [['--metrics-port', '0'], /--metrics-port must be an integer from 1 to 65535 \(got 0\)/],
    [['--metrics-port', '70000'], /--metrics-port must be an integer from 1 to 65535 \(got 70000\)/],
    [['--metrics-port', 'abc'], /--metrics-port needs a number \(got "abc"\)/],
    [['--metrics-port', '9999', '--metrics-linger', '-1'], /--metrics-linger must be a number of seconds from 0 to 3600 \(got -1\)/],
    [['--metrics-linger', '5'], /--metrics-linger must be used with --metrics-port/],
    [['--metrics-port', '9999', '--metrics-label', 'run_id=x'], /--metrics-label must be a label rqbench does not set itself/],
  ];
  const commands = () => ({
    producer: (argv) => producer([...redisAt, ...argv]),
    consumer: (argv) => consumer([...redisAt, ...argv]),
    'queue consumer': (argv) => consumer([...NO_SQS, ...argv]),
    load: (argv) => rqbench(['load', file, '--sink', 'noop', ...argv]),
  });

  it('every value on the producer, the first on every other command that serves metrics', async () => {
    await expectEachRefused(
      Object.entries(commands()).flatMap(([name, run]) =>
        cases.filter((_c, i) => name === 'producer' || i === 0).map(([flags, re]) => ({ name, run, flags, re })),
      ),
    );
  });
});

describe('--metrics-buckets: bad values', () => {
  it('one line naming the flag and what it takes, exit 2, nothing written, on every command that serves metrics', async () => {
    const spec = path.join(tempDir('rqbench-buckets-spec-'), 'one');
    fs.mkdirSync(spec);
    fs.writeFileSync(
      path.join(spec, 'experiment.yaml'),
      'title: One step (test)\nseed: "002 § x"\ntopology: { local: { replicas: 0 } }\nrepeat: 1\nduration: 2\nwarmup: 0\nflags: { q: 1000 }\nsteps:\n  - name: only\n',
    );
    const commands = {
      producer: (argv) => producer([...redisAt, ...argv]),
      consumer: (argv) => consumer([...redisAt, ...argv]),
      'queue publisher': (argv) => rqbench(['produce', ...NO_SQS, ...argv]),
      'queue consumer': (argv) => consumer([...NO_SQS, ...argv]),
      load: (argv) => rqbench(['load', file, '--sink', 'noop', ...argv]),
      capacity: (argv) => rqbench(['capacity', '--local', ...argv]),
    };
    const cases = [
      [['--metrics-port', '9999', '--metrics-buckets', 'medium'], /--metrics-buckets must be coarse or fine \(got "medium"\)$/],
      [
        ['--metrics-port', '9999', '--metrics-buckets', 'fine', '--metrics-buckets', 'coarse'],
        /--metrics-buckets was given 2 times \(fine, coarse\): it takes one value$/,
      ],
      [['--metrics-buckets', 'fine'], /--metrics-buckets must be used with --metrics-port$/],
    ];
    await expectEachRefused(Object.entries(commands).flatMap(([name, run]) => cases.map(([flags, re]) => ({ name, run, flags, re }))));
    const r = await rqbench(['experiment', 'run', '--allow-dirty', spec, '--metrics-port', '9999', '--metrics-buckets', 'medium']);
    const what = `experiment run: ${r.stderr}`;
    expect(r.code, what).toBe(2);
    expect(r.stderr.trim().split('\n'), what).toHaveLength(1);
    expect(r.stderr.trim(), what).toMatch(cases[0][1]);
    expect(listTree(spec)).toEqual(['experiment.yaml']);
  });

  it('a spec may not set it: the runner does (and passes its own on)', () => {
    expect(ownedFlags(COMMON_PARTS).has('metrics-buckets')).toBe(true);
    expect(relayArgs({ hub: { buckets: 'fine' }, runId: 'r1' }, 's1')).toEqual([
      '--metrics-relay',
      '--metrics-label',
      'step=s1',
      '--run-id',
      'r1',
      '--metrics-buckets',
      'fine',
    ]);
    expect(relayArgs(null, 's1')).toEqual([]);
  });
});
