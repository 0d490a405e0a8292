// Bad input to a real process: one line on stderr naming the flag, exit 2, nothing on stdout,
// nothing written. One spawn per command and seed-named script: the unit tier checks every
// refusal in-process (src/run-command.js), and this holds the process itself to the same contract
// (the entry point's exit code, the line terminated, nothing left behind by a process that ends).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, PRODUCER, describeRun, freePort, listTree, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { CONSUMER } from '../helpers/consumer-run.js';
import { TWO_STEPS } from '../helpers/specs.js';
import { experimentDir } from '../helpers/experiment-spec.js';

let deadPort;
beforeAll(async () => {
  deadPort = await freePort();
});
afterAll(() => removeTempDirs());

/**
 * [what runs, its arguments given a fresh directory for its output, the flag the line names,
 * where the line starts]. Where a command connects, a port nothing listens on: a check that slips
 * through ends as exit 1, not as a run.
 * @type {Array<[string, string[], (base: string) => string[], string, string]>}
 */
const CASES = [
  [
    'node src/producer.js',
    [PRODUCER],
    (base) => ['-q', '0', '--port', String(deadPort), '--out', path.join(base, 'out')],
    '-q',
    'producer.js: ',
  ],
  [
    'node src/consumer.js',
    [CONSUMER],
    (base) => ['--fetch', 'x', '--port', String(deadPort), '--out', path.join(base, 'out')],
    '--fetch',
    'consumer.js: ',
  ],
  [
    'rqbench produce',
    [CLI, 'produce'],
    (base) => ['--ws', '--sl', '--port', String(deadPort), '--out', path.join(base, 'out')],
    '--sl',
    'rqbench produce: ',
  ],
  [
    'rqbench consume',
    [CLI, 'consume'],
    (base) => ['--readers', '0', '--port', String(deadPort), '--out', path.join(base, 'out')],
    '--readers',
    'rqbench consume: ',
  ],
  ['rqbench local', [CLI, 'local'], () => ['redis', '--cluster', '--masters', '2'], '--masters', 'rqbench: '],
  ['rqbench report', [CLI, 'report'], (base) => [base, '--format', 'xml'], '--format', 'rqbench report: '],
  [
    'rqbench compare',
    [CLI, 'compare'],
    (base) => [path.join(base, 'a'), path.join(base, 'b'), '--format', 'xml'],
    '--format',
    'rqbench compare: ',
  ],
  ['rqbench chart', [CLI, 'chart'], (base) => [base, '--out', path.join(base, 'charts'), '--width', '10'], '--width', 'rqbench chart: '],
  [
    'rqbench ops',
    [CLI, 'ops'],
    (base) => ['--only', 'kafka', '--port', String(deadPort), '--out', path.join(base, 'out')],
    '--only',
    'rqbench ops: ',
  ],
  ['rqbench load', [CLI, 'load'], (base) => ['--generate', path.join(base, 'delta.tsv'), '--records', '0'], '--records', 'rqbench load: '],
  [
    'rqbench capacity',
    [CLI, 'capacity'],
    (base) => ['--slo-p99', '0', '--out', path.join(base, 'runs')],
    '--slo-p99',
    'rqbench capacity: ',
  ],
  [
    'rqbench generate-deltas',
    [CLI, 'generate-deltas'],
    (base) => ['-n', '0', '--out', path.join(base, 'deltas')],
    '--count',
    'rqbench generate-deltas: ',
  ],
  ['rqbench k8s', [CLI, 'k8s'], (base) => ['--pods', '0', '--out', path.join(base, 'k8s')], '--pods', 'rqbench k8s: '],
];

describe('a real process refuses bad input: one line naming the flag, exit 2, nothing on stdout, nothing written', () => {
  it.each(CASES)('%s', async (_name, entry, args, flag, starts) => {
    const base = tempDir('rqbench-contract-');
    const r = await runNode([...entry, ...args(base)], { timeoutMs: 20_000 });
    const why = describeRun(r);
    expect(r.code, why).toBe(2);
    expect(r.signal, why).toBeNull();
    expect(r.stdout, 'nothing on stdout').toBe('');
    expect(r.stderr.endsWith('\n'), `the line is terminated: ${JSON.stringify(r.stderr)}`).toBe(true);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines, 'exactly one stderr line').toHaveLength(1);
    expect(lines[0].startsWith(starts), lines[0]).toBe(true);
    expect(lines[0], 'names the flag').toMatch(new RegExp(`(^|[^\\w-])${flag.replace(/-/g, '\\-')}(?![\\w-])`));
    expect(listTree(base), 'nothing written').toEqual([]);
  });

  it('rqbench experiment run: a spec with one mistake', async () => {
    const dir = experimentDir(TWO_STEPS.replace('repeat: 2', 'repeat: 0'));
    const r = await runNode([CLI, 'experiment', 'run', '--allow-dirty', dir], { timeoutMs: 20_000 });
    const why = describeRun(r);
    expect(r.code, why).toBe(2);
    expect(r.stdout, 'nothing on stdout').toBe('');
    expect(r.stderr).toBe(`rqbench experiment: ${path.join(dir, 'experiment.yaml')}: repeat must be an integer from 1 to 100 (got 0)\n`);
    expect(fs.readdirSync(dir), 'nothing written beside the spec').toEqual(['experiment.yaml']);
  });
});
