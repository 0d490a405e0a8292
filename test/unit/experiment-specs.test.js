// Bad specs and bad `rqbench experiment` flags: one line naming the field or flag, exit 2, nothing
// written beside the spec. Each spec is the one test/e2e/experiment.test.js runs, with one mistake;
// the command runs in this process (test/integration/cli-contract.test.js holds a real process to
// the same contract).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { experimentDir, expectRefused } from '../helpers/experiment-spec.js';
import { TWO_STEPS, oneStepSpec, twoSpecs } from '../helpers/specs.js';
import { rqbench } from '../helpers/in-process.js';

afterAll(() => removeTempDirs());

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-600)}`;

/** A "billion laughs": nine copies of nine copies … of one list, a few lines that would fill the memory. */
const ALIAS_BOMB = [
  'lol0: &lol0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]',
  ...Array.from({ length: 8 }, (_, i) => `lol${i + 1}: &lol${i + 1} [${Array(9).fill(`*lol${i}`).join(', ')}]`),
].join('\n');

describe('a spec with a mistake', () => {
  // [what is wrong, the edit to the good spec, the one line expected]
  const BAD = [
    ['a flag value', ['flags: { sl: true }', 'flags: { sl: true, c: 0 }'], 'steps[1].flags.c must be an integer from 1 to 1000000 (got 0)'],
    ['an unknown flag', ['flags: { sl: true }', 'flags: { slx: true }'], 'steps[1].flags.slx is not a producer flag'],
    // a word where a number goes is quoted back as written, not as the NaN the parser made of it
    ['a word for a number', ['flags: { sl: true }', 'flags: { sl: true, ttl: abc }'], 'steps[1].flags.ttl needs a number (got "abc")'],
    ['a spec-wide flag', ['per-writer: 2000', 'per-writer: 0'], 'flags.per-writer must be a positive integer'],
    [
      'a consumer flag',
      ['consumer: { limit: 100 }', 'consumer: { fetch: all }'],
      'steps[0].consumer.fetch must be one of mget, pipeline, get (got "all")',
    ],
    ['a runner-owned flag', ['flags: { sl: true }', 'flags: { out: /tmp/x }'], 'steps[1].flags.out is set by the runner'],
    [
      'flags that clash',
      ['flags: { sl: true }', 'flags: { sl: true, ss: true }'],
      'steps[1].flags.sl with --ss must be used one at a time',
    ],
    ['the duration', ['duration: 3', 'duration: -1'], 'duration must be a number of seconds from 1 to 604800 (got -1)'],
    ['the warm-up', ['warmup: 1', 'warmup: 3'], 'warmup must be shorter than --duration (3 s) (got 3)'],
    [
      'the topology',
      ['{ local: { replicas: 1 } }', '{ local: { replicas: 9 } }'],
      'topology.local.replicas must be an integer from 0 to 5 (got 9)',
    ],
    ['actions without a cluster', ['warmup: 1', 'warmup: 1\nat: ["1:reshard:10"]'], 'at must be used with --cluster'],
    ['a step name', ['name: list', 'name: zset'], 'steps[1].name "zset" is used by an earlier step'],
    ['the check', ['list.master_cpu <', 'lists.master_cpu <'], 'check: "lists.master_cpu" names no step'],
    ['a field name', ['finding:', 'findings:'], 'findings is not a field here'],
    ['the trials', ['repeat: 2', 'repeat: 0'], 'repeat must be an integer from 1 to 100 (got 0)'],
    [
      'the noise threshold',
      ['repeat: 2', 'repeat: 2\nnoiseThreshold: -1'],
      'noiseThreshold must be a percentage from 0 to below 100 (got -1)',
    ],
    [
      'a seed column said neither way',
      ['repeat: 2', 'repeat: 2\nseedColumns: { "CPU %": "about the same" }'],
      'seedColumns.CPU % must start with "same quantity", "stand-in:" or "not reproducible:" (got "about the same")',
    ],
    [
      "a step's seed figures without seedColumns",
      ['flags: { sl: true }', 'flags: { sl: true }\n    seed: { row: "List", "master CPU": "36" }'],
      'steps[1].seed needs seedColumns:',
    ],
    [
      'a seed figure for a column seedColumns does not list',
      [
        'flags: { sl: true }',
        'flags: { sl: true }\n    seed: { row: "List", "CPU": "36" }\nseedColumns: { "master CPU": "same quantity" }',
      ],
      'steps[1].seed.CPU is not a column of seedColumns (known: master CPU)',
    ],
    [
      'a seed figure that is not a string',
      [
        'flags: { sl: true }',
        'flags: { sl: true }\n    seed: { row: "List", "master CPU": 36 }\nseedColumns: { "master CPU": "same quantity" }',
      ],
      "steps[1].seed.master CPU must be the seed's figure as a string, as the seed wrote it (got 36)",
    ],
    [
      "a step's seed items per second that is not a number",
      [
        'flags: { sl: true }',
        'flags: { sl: true }\n    seed: { row: "List", "items/s": "200k", "master CPU": "36" }\nseedColumns: { "master CPU": "same quantity" }',
      ],
      'steps[1].seed.items/s must be the items per second all the seed\'s writers sent at this row, a number > 0 (got "200k")',
    ],
    [
      'a regime whose window is not a whole number of periods',
      ['duration: 3', 'duration: 3.5\nregime: { engine: 0.75 }'],
      'steps[0] (zset): with regime:, the measured window (duration 3.5 s - warmup 1 s) must be a whole number of its periods (-p 1000 ms)',
    ],
    [
      'the regime',
      ['repeat: 2', 'repeat: 2\nregime: { engine: 0.75, step: hash }'],
      'regime.step must name a step (zset, list) (got "hash")',
    ],
    [
      "a step's seed without its row",
      ['flags: { sl: true }', 'flags: { sl: true }\n    seed: { "master CPU": "36" }\nseedColumns: { "master CPU": "same quantity" }'],
      'steps[1].seed.row must be a non-empty string',
    ],
    [
      'a seed metric the kind does not have',
      [
        'seedNodeVcpus: 2',
        'seedNodeVcpus: 2\nseedColumns: { "master CPU": "same quantity" }\nseedMetrics: { "master CPU": master_cpu_of_node }',
      ],
      'seedMetrics.master CPU: "master_cpu_of_node" is not a metric (known: master_cpu,',
    ],
    [
      'a seed metric for a column seedColumns does not list',
      ['seedNodeVcpus: 2', 'seedNodeVcpus: 2\nseedColumns: { "master CPU": "same quantity" }\nseedMetrics: { "CPU": master_cpu_node }'],
      'seedMetrics.CPU is not a column of seedColumns (known: master CPU)',
    ],
    ["the seed node's vCPUs", ['seedNodeVcpus: 2', 'seedNodeVcpus: 0.5'], 'seedNodeVcpus must be an integer from 1 to 448 (got 0.5)'],
    [
      'a check that compares nothing',
      ['list.master_cpu < zset.master_cpu * 10', 'list.master_cpu + zset.master_cpu'],
      'check: "list.master_cpu + zset.master_cpu" is not a comparison',
    ],
    ['the YAML', ['title: Sorted', 'title: [Sorted'], 'not valid YAML'],
    // the parser's own words named neither the file nor what to change
    [
      'its aliases (a YAML alias bomb)',
      ['repeat: 2', `repeat: 2\n${ALIAS_BOMB}`],
      'refused: its aliases (*name) expand to more than 100 copies of anchored values (a YAML alias bomb); write the values out, or use fewer aliases',
    ],
    // a week at most, as -d: past about 24.8 days a Node timer fires at once
    ['a duration past a week', ['duration: 3', 'duration: 99999999'], 'duration must be a number of seconds from 1 to 604800'],
    [
      "a step's duration past a week",
      ['flags: { sl: true }', 'flags: { sl: true }\n    duration: 99999999'],
      'steps[1].duration must be a number of seconds from 1 to 604800',
    ],
    ['what would decide it', ['repeat: 2', 'repeat: 2\ndecideBy: 5'], 'decideBy must be'],
    [
      'a seed effect for a comparison the check does not make',
      ['repeat: 2', 'repeat: 2\nseedEffects: { "list.master_cpu > zset.master_cpu": 20 }'],
      'seedEffects: "list.master_cpu > zset.master_cpu" is not a comparison of the check ("list.master_cpu < zset.master_cpu * 10")',
    ],
    [
      "a step's own trials",
      ['flags: { sl: true }', 'flags: { sl: true }\n    repeat: 0'],
      'steps[1].repeat must be an integer from 1 to 100 (got 0)',
    ],
    [
      'a count that is not a map',
      ['flags: { sl: true }', 'flags: { sl: true }\n    count: 20'],
      'steps[1].count must be a map: { timeScale: <K, e.g. 20> }',
    ],
    [
      "a count's time scale",
      ['flags: { sl: true }', 'flags: { sl: true }\n    count: { timeScale: 0.5 }'],
      'steps[1].count.timeScale must be a number from 1 to 10000 (got 0.5)',
    ],
    [
      'a field of count',
      ['flags: { sl: true }', 'flags: { sl: true }\n    count: { k: 20 }'],
      'steps[1].count.k is not a field here (timeScale)',
    ],
    [
      'a runner-owned flag of a counted step with a consumer',
      ['flags: { sl: true }', 'flags: { sl: true, announce: x.json }'],
      'steps[1].flags.announce is set by the runner',
    ],
    [
      'a runner-owned counting flag',
      ['flags: { sl: true }', 'flags: { sl: true, time-scale: 20 }'],
      'steps[1].flags.time-scale is set by the runner',
    ],
  ];
  it.each(BAD)('refuses a spec with a mistake in %s: one line naming the field, exit 2, nothing written', (_what, edit, line) =>
    expectRefused(TWO_STEPS, edit, line),
  );

  // the list step counted (count:), with three trials of its own
  const COUNTED = TWO_STEPS.replace('flags: { sl: true }', 'flags: { sl: true }\n    count: { timeScale: 20 }\n    repeat: 1');
  const BAD_COUNTED = [
    [
      'a counted step on an endpoint',
      ['topology: { local: { replicas: 1 } }', 'topology: { url: "redis://127.0.0.1:6379" }'],
      'steps[1].count needs topology local: (the count runs the Redis nodes rqbench starts under Valgrind)',
    ],
    [
      "a counted step as the regime's reference",
      ['repeat: 2', 'repeat: 2\nregime: { engine: 0.75, step: list }'],
      'regime.step must be a step that is timed, not counted (list has count:)',
    ],
    [
      'cluster actions on a counted step',
      ['repeat: 1', 'repeat: 1\n    at: ["1:failover"]'],
      'steps[1].count: a counted step has no cluster actions (at:)',
    ],
  ];
  it.each(BAD_COUNTED)('refuses a counted step with a mistake in %s: one line, exit 2, nothing written', (_what, edit, line) =>
    expectRefused(COUNTED, edit, line),
  );

  it('refuses an experiment.yaml that is a directory: one line saying a file is expected, exit 2', async () => {
    const dir = path.join(tempDir(), 'exp');
    fs.mkdirSync(path.join(dir, 'experiment.yaml'), { recursive: true });
    const r = await rqbench(['experiment', 'run', '--allow-dirty', dir]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr).toBe(
      `rqbench experiment: ${path.join(dir, 'experiment.yaml')}: cannot read it (it is a directory, and a file is expected)\n`,
    );
  });

  it('refuses a missing spec with one line, exit 2', async () => {
    const r = await rqbench(['experiment', 'run', '--allow-dirty', path.join(tempDir(), 'nope')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^rqbench experiment: \S+nope\/experiment\.yaml: cannot read it \(no such file\)$/);
  });

  it('refuses a mistake in any of several specs before running one: one line, exit 2, nothing written', async () => {
    const { parent, dirs } = twoSpecs();
    fs.writeFileSync(
      path.join(dirs[1], 'experiment.yaml'),
      oneStepSpec('Second (test)', '002 § B', 'one.achieved < 0').replace('q: 2000', 'q: 0'),
    );
    const r = await rqbench(['experiment', 'run', '--allow-dirty', ...dirs]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${path.join(dirs[1], 'experiment.yaml')}: flags.q must be`);
    expect(fs.readdirSync(parent).sort()).toEqual(['a-first', 'b-second']);
    expect(fs.readdirSync(dirs[0])).toEqual(['experiment.yaml']);
  });
});

describe('bad flags of experiment run and report', () => {
  it.each([
    [['--repeat', '0'], '--repeat must be an integer from 1 to 100 (got 0)'],
    [['--seed', '-1'], '--seed must be an integer from 0 to 4294967295 (got -1)'],
    [['--resume', '--repeat', '3'], '--repeat must be left out with --resume'],
  ])('refuses run %j with one line, exit 2, nothing written', async (flags, line) => {
    const dir = experimentDir(TWO_STEPS, 'bad-flags');
    const r = await rqbench(['experiment', 'run', '--allow-dirty', dir, ...flags]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(line);
    expect(fs.readdirSync(dir)).toEqual(['experiment.yaml']);
  });

  it('refuses --retry-noisy outside 0–5, --counted-trials below 1, and either with report, one line, exit 2', async () => {
    for (const [args, msg] of [
      [['run', 'x', '--retry-noisy', '9'], /--retry-noisy must be an integer from 0 to 5 \(got 9\)/],
      [['report', 'x', '--retry-noisy', '1'], /--retry-noisy must be used with run/],
      [['run', 'x', '--counted-trials', '0'], /--counted-trials must be an integer from 1 to \d+ \(got 0\)/],
      [['report', 'x', '--counted-trials', '1'], /--counted-trials must be used with run/],
    ]) {
      const r = await rqbench(['experiment', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(msg);
    }
  });

  it("refuses --metrics-port with report: it serves a run's steps", async () => {
    const r = await rqbench(['experiment', 'report', 'experiments/002-store-models', '--metrics-port', '9999']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('rqbench experiment: --metrics-port must be used with run');
  });
});
