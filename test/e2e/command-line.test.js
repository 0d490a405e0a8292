import { describe, expect, it } from 'vitest';
import yargs from 'yargs';
import { COMMON_PARTS, RUNNER_PARTS, ownedFlags, stepArgv } from '../../src/experiments/command-line.js';
import { flagMapProblem } from '../../src/experiments/flags.js';
import { connectionOptions } from '../../src/plans/connection.js';
import { producerOptions } from '../../src/plans/producer-plan.js';
import { consumerOptions } from '../../src/plans/consumer-plan.js';
import { outputOptions } from '../../src/plans/output.js';
import { publisherOptions, queueConsumerOptions } from '../../src/plans/queue-plan.js';
import { capacityArgvProblem } from '../../src/experiments/capacity/capacity-args.js';

describe("a step's command line", () => {
  it("is the CLI, the spec's flags, the command's own, then actions, target, length and output, in that order", () => {
    const argv = stepArgv({
      cli: ['src/producer.js'],
      flags: { t: 2, q: 20000, sl: true },
      args: ['--ns', '10'],
      at: ['5:reshard:100'],
      target: ['--url', 'redis://127.0.0.1:7000', '--cluster'],
      length: { duration: 6, warmup: 1, startAt: 1700000000000 },
      output: { out: 'runs/x/step/trial-1', name: 'producer', json: true },
    });
    expect(argv).toEqual([
      'src/producer.js',
      '-t',
      '2',
      '-q',
      '20000',
      '--sl',
      '--ns',
      '10',
      '--at',
      '5:reshard:100',
      '--url',
      'redis://127.0.0.1:7000',
      '--cluster',
      '-d',
      '6',
      '--warmup',
      '1',
      '--start-at',
      '1700000000000',
      '--json',
      '--quiet',
      '--out',
      'runs/x/step/trial-1',
      '--name',
      'producer',
    ]);
  });

  it('leaves out what a step does not set (no length for a load grid, no --json, no --start-at without a consumer)', () => {
    expect(stepArgv({ cli: ['src/cli.js', 'load', 'f.tsv'], flags: { sink: 'noop' }, output: { out: '.', name: 'load' } })).toEqual([
      'src/cli.js',
      'load',
      'f.tsv',
      '--sink',
      'noop',
      '--quiet',
      '--out',
      '.',
      '--name',
      'load',
    ]);
  });

  it('refuses to write a runner flag that RUNNER_PARTS does not name, so the refusals cannot fall behind it', () => {
    expect(() =>
      stepArgv({ cli: ['src/producer.js'], target: ['--url', 'redis://x', '--sentinel'], output: { out: '.', name: 'p' } }),
    ).toThrow(/--sentinel is set by the runner but not named/);
  });
});

describe('the flags the runner owns', () => {
  it('are refused in every spec flag map, each with a one-line reason (and where the spec says it, where it has a field)', () => {
    for (const [flag, where] of ownedFlags(COMMON_PARTS)) {
      const p = flagMapProblem({ [flag]: 1 }, 'steps[0].flags');
      expect(p, flag).toMatch(new RegExp(`^steps\\[0\\]\\.flags\\.${flag} is set by the runner`));
      if (where) expect(p).toContain(`use the spec's ${where}: field`);
    }
  });

  it('name every alias of each flag the CLIs know, in the same part (a spec cannot slip -d past duration)', () => {
    const clis = {
      producer: (y) => outputOptions(producerOptions(connectionOptions(y))),
      consumer: (y) => outputOptions(consumerOptions(connectionOptions(y))),
      publisher: (y) => outputOptions(publisherOptions(producerOptions(connectionOptions(y)))),
      'queue consumer': (y) => outputOptions(queueConsumerOptions(consumerOptions(connectionOptions(y)))),
    };
    for (const [cli, build] of Object.entries(clis)) {
      const aliases = build(yargs([])).getOptions().alias;
      for (const [part, { flags }] of Object.entries(RUNNER_PARTS)) {
        for (const flag of Object.keys(flags)) {
          const group = Object.entries(aliases).find(([k, al]) => k === flag || al.includes(flag));
          if (!group) continue;
          for (const name of [group[0], ...group[1]].filter((n) => !/[A-Z]/.test(n)))
            expect(Object.keys(flags), `${cli}: ${flag} ~ ${name} (${part})`).toContain(name);
        }
      }
    }
  });

  it('are the same ones a capacity search refuses in --consumer', () => {
    for (const flag of ['--out', '-d', '--warmup', '--start-at', '--url', '--node-cpus', '--json']) {
      expect(
        capacityArgvProblem(['--local', `--consumer=${flag} 1`], (f) => f),
        flag,
      ).toMatch(new RegExp(`^--consumer: ${flag} is set by the capacity search`));
    }
    expect(capacityArgvProblem(['--local', '--consumer=-r 2'], (f) => f)).toBeNull();
  });
});
