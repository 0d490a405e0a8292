// Bad input to `rqbench load` (a file, an s3:// object, --generate): one line naming what is
// wrong, exit 2, nothing written. The command runs in this process; test/integration/load.test.js
// and load-s3.test.js load real files into real servers, and refuse what needs a server to find.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, readRun, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { DEAD_PORT, rqbench } from '../helpers/in-process.js';

/** An S3 endpoint nothing answers on: a check that slips through fails to connect (exit 1). */
const NO_S3 = `http://127.0.0.1:${DEAD_PORT}`;
let file;

beforeAll(async () => {
  file = path.join(tempDir('rqbench-load-file-'), 'delta.tsv');
  const g = await rqbench(['load', '--generate', file, '--records', '1000', '--quiet']);
  expect(g.code, describeRun(g)).toBe(0);
});

afterAll(() => removeTempDirs());

describe('rqbench load: bad input', () => {
  it.each([
    [[], 'FILE'],
    [['/nonexistent/delta.tsv', '--sink', 'noop'], 'no such file'],
    [['FILE', '--reader-threads', '0', '--sink', 'noop'], '--reader-threads'],
    [['FILE', '--sink', 'bogus'], 'sink'],
    [['FILE', '--connections', '64,x', '--sink', 'noop'], '--connections'],
    [['FILE', '--reader-threads', '4', '--connections', '2'], '--connections'],
    [['FILE', '--sample', '-1', '--sink', 'noop'], '--sample'],
    [['FILE', '--command', 'mset', '--ttl', '60'], '--command'],
    [['FILE', '--command', 'hset'], '--command'],
    [['FILE', '--command', 'mset', '--sink', 'noop'], '--command'],
    [['FILE', '--command', 'mset', '--batch', '0'], '--batch'],
    // a flag this load would not use is refused, not ignored
    [['FILE', '--command', 'set', '--batch', '5'], '--batch is for --command mset or eval'],
    [['FILE', '--sink', 'noop', '--key-pattern', 'x{n}'], '--key-pattern is for --generate'],
    [['FILE', '--sink', 'noop', '--records', '5'], '--records is for --generate'],
  ])('bad input %j exits 2 with one line naming %s and writes nothing', async (args, name) => {
    const out = tempDir('rqbench-load-bad-');
    const r = await rqbench(['load', ...args.map((x) => (x === 'FILE' ? file : x)), '--port', DEAD_PORT, '--out', path.join(out, 'o')]);
    expect(r.code, describeRun(r)).toBe(2);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it('--generate with bad input exits 2 and writes no file', async () => {
    const dir = tempDir('rqbench-load-gen-');
    for (const [args, name] of [
      [['--record-size', '8'], '--record-size'],
      [['--key-pattern', 'nokey'], '--key-pattern'],
      [['--records', '0'], '--records'],
      // zero-padded to 0 digits is no padding: W is 1 to 99
      [['--key-pattern', 'k:{n:0}'], '--key-pattern'],
      // the load's own flags have nothing to do when generating
      [['--command', 'mset', '--batch', '5'], '--command is for loading a FILE'],
      [['--sink', 'noop'], '--sink is for loading a FILE'],
    ]) {
      const r = await rqbench(['load', '--generate', path.join(dir, 'f.tsv'), ...args]);
      expect(r.code, describeRun(r)).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(name);
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('rqbench load from S3: bad input', () => {
  const load = async (args) => {
    const out = tempDir('rqbench-load-s3-');
    const r = await rqbench(['load', ...args, '--out', out]);
    return { ...r, ...readRun(out, r.stdout) };
  };

  it.each([
    [['s3://Deltas/x.tsv', '--sink', 'memory'], /FILE must be s3:\/\/bucket\/key/],
    [['s3://deltas/delta.tsv', '--sink', 'redis'], /--sink must be memory or noop with an s3:\/\/ FILE/],
    [
      ['s3://deltas/delta.tsv', '--sink', 'memory', '--reader-threads', '8', '--s3-connections', '4'],
      /--s3-connections must be at least --reader-threads/,
    ],
  ])('refuses %j: one line, exit 2, no run directory', async (args, says) => {
    const r = await load([...args, '--endpoint', NO_S3]);
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(says);
    expect(r.dirs).toEqual([]);
  });

  it('an S3 flag with a local file is a mistake', async () => {
    const local = path.join(tempDir('rqbench-load-s3-file-'), 'd.tsv');
    fs.writeFileSync(local, 'k\tv\n');
    const r = await load([local, '--sink', 'memory', '--s3-connections', '4']);
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stderr).toMatch(/--s3-connections is for an s3:\/\/bucket\/key FILE/);
  });
});
