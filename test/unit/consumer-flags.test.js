// Bad input to the consumer (`node src/consumer.js`, `rqbench consume`): exit 2, one stderr line
// naming the flag, nothing on stdout, nothing written. Each case runs the command in this process
// (test/integration/cli-contract.test.js holds a real process to the same contract).
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun, listTree, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { DEAD_PORT, rqbench, seedScript } from '../helpers/in-process.js';

afterAll(() => removeTempDirs());

const ENTRIES = {
  'consumer.js': (argv) => seedScript('consumer.js', argv),
  'rqbench consume': (argv) => rqbench(['consume', ...argv]),
};

describe('bad consumer flags: exit 2, one stderr line naming the flag, nothing written', () => {
  const BAD = [
    [['-s', 'foo'], '-s'],
    [['--fetch', 'x'], '--fetch'],
    [['--read-from', 'primary'], '--read-from'],
    [['--limit', '-1'], '--limit'],
    [['--readers', '0'], '--readers'],
    [['-s', 'script', '--sl'], '-s'],
    [['--same-slot'], '--same-slot'],
    [['--cluster', '--at', '2:reshard'], '--at'],
    [['--at', '2:failover'], '--at'],
    [['--verify'], '--verify'],
    [['--threads', '4'], '--threads'],
    [['--count-instructions'], '--count-instructions'],
    [['--time-scale', '0'], '--time-scale'],
    [['--until-complete'], '--until-complete'],
    [['--cache', 'redis'], '--cache'],
    [['--target', 'sqs', '--readers', '4'], '-r'],
    [['--target', 'pubsub', '--fetch', 'get'], '--fetch'],
    // a blank number is not 0: --reply-timeout '' waited forever
    [['--reply-timeout', ''], '--reply-timeout'],
    [['-p='], '-p'],
  ];

  for (const [flags, name] of BAD) {
    for (const [entry, run] of Object.entries(ENTRIES)) {
      it(`${entry} ${flags.join(' ')}`, async () => {
        const base = tempDir('rqbench-consume-bad-');
        const out = path.join(base, 'out');
        // a port nothing listens on: a check that slips through ends as exit 1, not as a run
        const r = await run([...flags, '--port', DEAD_PORT, '--out', out]);
        const why = describeRun(r);
        expect(r.code, why).toBe(2);
        expect(r.stdout, 'nothing on stdout').toBe('');
        const lines = r.stderr.split('\n').filter((l) => l !== '');
        expect(lines.length, `exactly one stderr line: ${JSON.stringify(r.stderr)}`).toBe(1);
        expect(lines[0], 'names the flag').toMatch(new RegExp(`(^|[^\\w-])${name.replace(/-/g, '\\-')}(?![\\w-])`));
        expect(listTree(base), 'nothing created under --out').toEqual([]);
      });
    }
  }
});
