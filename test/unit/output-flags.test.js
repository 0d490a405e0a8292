// Outputs that cannot be written (issue 12, points 4 and 8): refused before anything connects, in
// one line naming --out or --name, exit 2, nothing created. The commands run in this process;
// test/integration/outputs.test.js refuses a read-only file system and fills a disk mid-run.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listTree, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { DEAD_PORT, rqbench, seedScript } from '../helpers/in-process.js';

afterAll(() => removeTempDirs());

/** What must never appear in a one-line error. */
const STACK = /\n\s+at |Error: |Unhandled/;

const ENTRIES = [
  ['producer', (argv) => seedScript('producer.js', argv)],
  ['consumer', (argv) => seedScript('consumer.js', argv)],
  ['rqbench produce', (argv) => rqbench(['produce', ...argv])],
];

describe('an output that cannot be written is refused before anything runs', () => {
  const base = tempDir('rqbench-outputs-');
  const cases = [
    ['--out is a device', () => ['--out', '/dev/null'], /--out must be a directory rqbench can write \("\/dev\/null" is not a directory\)/],
    [
      '--out is under a file',
      () => ['--out', '/dev/null/runs'],
      /--out must be a directory rqbench can write \("\/dev\/null" is not a directory\)/,
    ],
    ['--name is too long', () => ['--out', tempDir(), '--name', 'x'.repeat(300)], /--name must be at most 235 bytes/],
    [
      '--name has control characters',
      () => ['--out', tempDir(), '--name', 'run\u001b[31mred'],
      /--name must be text without control characters \(got "run\\u001b\[31mred"\)/,
    ],
    ['--out has control characters', () => ['--out', path.join(base, 'a\rb')], /--out must be a path without control characters/],
  ];
  for (const [what, args, line] of cases) {
    it.each(ENTRIES)(`${what}: %s exits 2 with one line, nothing connected or written`, async (_name, run) => {
      const flags = args();
      const out = flags[flags.indexOf('--out') + 1];
      // a port where nothing listens: the check must come before any connection
      const r = await run(['--port', DEAD_PORT, ...flags, '-d', '2']);
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines.length, r.stderr).toBe(1);
      expect(lines[0]).toMatch(line);
      expect(r.stderr).not.toMatch(STACK);
      // eslint-disable-next-line no-control-regex -- the test looks for raw control characters on purpose
      expect(r.stderr, 'no raw control character echoed').not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
      if (fs.existsSync(out) && fs.statSync(out).isDirectory()) expect(listTree(out)).toEqual([]);
    });
  }

  it('rqbench ops checks --out before it sets anything up', async () => {
    const r = await rqbench(['ops', '--port', DEAD_PORT, '--only', 'redis', '--out', '/dev/null']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe('rqbench ops: --out must be a directory rqbench can write ("/dev/null" is not a directory)');
  });
});
