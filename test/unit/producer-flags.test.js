// Bad input to the producer: exit code 2, exactly one line on stderr naming the flag, nothing
// on stdout, nothing created under --out; and --help. Each case runs the command in this process
// (test/integration/cli-contract.test.js holds a real process to the same contract).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun, listTree, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { DEAD_PORT, rqbench, seedScript } from '../helpers/in-process.js';

afterAll(() => removeTempDirs());

// --tls-ca given a directory, and a file that holds no certificate: named with the flag, not a bare
// EISDIR when the connection is made, nor a handshake that fails without a word of which file
const CA_DIR = tempDir('rqbench-ca-dir-');
const NOT_CA = path.join(tempDir('rqbench-ca-'), 'ca.pem');
fs.writeFileSync(NOT_CA, 'this is not a certificate\n');

/**
 * [flags, what the error line must name]. Every case also carries a --port nothing listens on
 * (unless it sets its own target), so a check that slips through ends as exit 1, not as a run.
 */
const BAD = [
  [['-a', '9', '-t', '8'], ['-a']],
  [['-a', '0'], ['-a']],
  [['-q', '0'], ['-q']],
  [['-q', '5', '-t', '8'], ['-q']],
  [['-c', '0'], ['-c']],
  [['-p', '-5'], ['-p']],
  [['-q', '-10'], ['-q']],
  [['-q', 'abc'], ['-q']],
  // a blank number is not 0: -d '' would run until Ctrl-C, -p '' was reported as "(got 0)"
  [
    ['-q', '100', '-d', ''],
    ['-d', 'needs a number'],
  ],
  [
    ['-q', '100', '--duration='],
    ['--duration', 'needs a number'],
  ],
  [
    ['-p', ' '],
    ['-p', 'needs a number'],
  ],
  // a word or a non-finite value is quoted back as typed, not as the NaN yargs made of it
  [
    ['-q', '100', '--ttl', 'abc'],
    ['--ttl', 'needs a number', '"abc"'],
  ],
  [
    ['-q', '100', '-d', 'Infinity'],
    ['-d', 'needs a number', '"Infinity"'],
  ],
  // past about 24.8 days a Node timer fires at once: a week at most, 0 for longer
  [
    ['-q', '100', '-d', '1e12'],
    ['--duration', '604800'],
  ],
  // --announce names the nodes --local starts, in a directory that is there; a blank file name is none
  [
    ['--announce', '/tmp/x.json'],
    ['--announce', '--local'],
  ],
  [
    ['--local', '--announce', '/no/such/dir/x.json'],
    ['--announce', 'a directory that exists'],
  ],
  [
    ['--local', '--announce', ' '],
    ['--announce', 'a file name'],
  ],
  [['--same-slot'], ['--same-slot']],
  [['--ns', '0'], ['--ns']],
  [
    ['--ws', '--sl'],
    ['--ws', '--sl'],
  ],
  [
    ['--sl', '--ss'],
    ['--sl', '--ss'],
  ],
  [['--ws', '--extra-sets', '1'], ['--extra-sets']],
  [['--value-size', '4'], ['--value-size']],
  [['--ttl', '0'], ['--ttl']],
  [['--duration', '-1'], ['--duration']],
  [['--warmup', '5', '-d', '3'], ['--warmup']],
  [['--url', 'http://x'], ['--url']],
  [['--url', 'redis://h:1/abc'], ['--url']],
  [['--url', 'redis://u:%zz@h:1'], ['--url']],
  [['--port', '70000'], ['--port']],
  [['--local', '--port', '7000'], ['--local']],
  // one rule for a local cluster's size, everywhere (rqbench local, --local, a spec's topology)
  [
    ['--local', '--masters', '4'],
    ['--masters', '--cluster'],
  ],
  [['--local', '--cluster', '--masters', '65'], ['--masters']],
  // --local's servers are plain TCP: a TLS flag is refused before they start, not failed after
  [
    ['--local', '--cluster', '--tls'],
    ['--tls', '--local'],
  ],
  [
    ['--local', '--tls-insecure'],
    ['--tls-insecure', '--local'],
  ],
  [['--bogus-flag'], ['--bogus-flag']],
  // counting Redis's instructions: local servers only; a time scale of at least 1
  [['--count-instructions'], ['--count-instructions', '--local']],
  [['--time-scale', '0.5'], ['--time-scale']],
  [['--time-scale', 'x'], ['--time-scale']],
  [['--target', 'sqs', '--time-scale', '5'], ['--time-scale']],
  [['--start-at', '5'], ['--start-at']],
  // beyond the brief's list: a numeric flag given without its value must not fall back to the default
  [['-q', '-t', '2'], ['-q']],
  // unknown store modes are unknown flags: there is no --mode, each model has its own switch
  [['--mode', 'hash'], ['--mode']],
  [['--tls-ca', '/nonexistent/ca.pem'], ['--tls-ca']],
  [
    ['--tls-ca', CA_DIR],
    ['--tls-ca', CA_DIR, 'is a directory'],
  ],
  [
    ['--tls-ca', NOT_CA],
    ['--tls-ca', NOT_CA, 'holds no PEM certificate'],
  ],
  // cluster changes and --verify
  [['--cluster', '--at', '5'], ['--at']],
  [['--cluster', '--at', 'x:reshard:10'], ['--at']],
  [['--cluster', '--at', '1:reshard'], ['--at']],
  [['--cluster', '--at', '1:reshard:0'], ['--at']],
  [['--cluster', '--at', '1:reshard:99999'], ['--at']],
  [['--cluster', '--at', '1:explode'], ['--at']],
  [['--cluster', '--at', '1:add-shard:nohost'], ['--at']],
  [['--cluster', '--at', '1:kill-master:0'], ['--at']],
  [['--cluster', '-d', '5', '--at', '5:failover'], ['--at']],
  [['--at', '1:failover'], ['--at']],
  [['--cluster', '--at'], ['--at']],
  [['--verify', '-d', '5'], ['--verify']],
  [['--verify', '-d', '0', '--ttl', '600'], ['--verify']],
  [['--verify', '--actual-value', '-d', '5', '--ttl', '600'], ['--verify']],
  // queue flags on a Redis run (--target redis is the default): refused, not ignored
  [['--rate', '45'], ['--rate']],
  [['--topic', 'updates', '--create'], ['--topic']],
  [['--target', 'redis', '--batch-size', '1000'], ['--batch-size']],
  // and Redis flags on a queue run: refused when they differ from their default
  [['--target', 'sqs', '-q', '45'], ['-q']],
  [['--target', 'sns', '--ns', '10', '--same-slot'], ['--ns']],
  [['--target', 'pubsub', '--cluster'], ['--cluster']],
  // … and when typed at their default value too: a flag given is a flag the user meant (issue 25)
  [['--target', 'sqs', '-q', '100'], ['-q']],
  [['--target', 'sqs', '--no-cluster'], ['--cluster']],
  // a flag that takes one value, given twice: refused, not turned into a list
  [
    ['-q', '5', '-q', '6'],
    ['-q', '2 times'],
  ],
  [
    ['--quantity=5', '--ttl', '9', '--ttl', '10'],
    ['--ttl', '2 times'],
  ],
];

/**
 * `<entry> <flags…> --out <fresh>/out`, in this process; the result and the fresh directory.
 * @param {(argv: string[]) => Promise<import('../helpers/in-process.js').InProcessRun>} entry
 * @param {string[]} flags
 */
async function runBad(entry, flags) {
  const base = tempDir('rqbench-cli-');
  const out = path.join(base, 'out');
  const target = flags.some((f) => ['--port', '--url', '--local', '--host'].includes(f)) ? [] : ['--port', DEAD_PORT];
  const r = await entry([...flags, ...target, '--out', out]);
  return { r, base };
}

const producer = (argv) => seedScript('producer.js', argv);
const produce = (argv) => rqbench(['produce', ...argv]);

function expectUsageError({ r, base }, names) {
  const why = describeRun(r);
  expect(r.code, why).toBe(2);
  expect(r.stdout, 'nothing on stdout').toBe('');
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines.length, `exactly one stderr line: ${JSON.stringify(r.stderr)}`).toBe(1);
  expect(r.stderr.endsWith('\n'), 'the line is terminated').toBe(true);
  for (const name of names) {
    expect(lines[0], 'names the flag').toMatch(new RegExp(`(^|[^\\w-])${name.replace(/[-]/g, '\\-')}(?![\\w-])`));
  }
  expect(listTree(base), 'nothing created under --out').toEqual([]);
}

describe('node src/producer.js: bad input exits 2 with one line naming the flag', () => {
  for (const [flags, names] of BAD) {
    it(flags.join(' '), async () => {
      expectUsageError(await runBad(producer, flags), names);
    });
  }

  it('a bad --url with a password does not echo the password', async () => {
    const res = await runBad(producer, ['--url', 'redis://user:hunter2-secret@h:1/abc']);
    expectUsageError(res, ['--url']);
    expect(res.r.stderr).not.toContain('hunter2-secret');
  });
});

describe('rqbench produce: the same checks', () => {
  for (const [flags, names] of [
    [['-q', '0'], ['-q']],
    [
      ['--ws', '--sl'],
      ['--ws', '--sl'],
    ],
    [
      ['-q', '5', '-q', '6'],
      ['-q', '2 times'],
    ],
    [['--target', 'sqs', '-q', '100'], ['-q']],
  ]) {
    it(flags.join(' '), async () => {
      const res = await runBad(produce, flags);
      expectUsageError(res, names);
      expect(res.r.stderr).toMatch(/^rqbench produce: /);
    });
  }
});

describe('--help', () => {
  it('--help exits 0 and mentions every seed flag', async () => {
    const r = await producer(['--help']);
    expect(r.code, describeRun(r)).toBe(0);
    for (const flag of [
      '-q',
      '-p',
      '-c',
      '-t',
      '-a',
      '--cluster',
      '--actual-value',
      '--ws',
      '--sk',
      '--sl',
      '--slh',
      '--ss',
      '--ns',
      '--same-slot',
    ]) {
      expect(r.stdout, `--help mentions ${flag}`).toMatch(new RegExp(`(^|[\\s,\\[])${flag.replace(/-/g, '\\-')}(?![\\w-])`, 'm'));
    }
  });

  it('rqbench produce --help exits 0 and mentions the seed flags', async () => {
    const r = await produce(['--help']);
    expect(r.code, describeRun(r)).toBe(0);
    for (const flag of ['-q', '-t', '-a', '--cluster', '--ns', '--same-slot']) {
      expect(r.stdout).toMatch(new RegExp(`(^|[\\s,\\[])${flag.replace(/-/g, '\\-')}(?![\\w-])`, 'm'));
    }
  });
});
