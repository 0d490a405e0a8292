// `load --generate PATH` never destroys what it did not create (issue 26, point 5): a failed write
// removes only the regular file this run made; a device it was pointed at, or a user's file it
// was to replace, is there afterwards as it was. The faults come from outside: /dev/full, and a
// small tmpfs the test mounts (root only: skipped with a message otherwise).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

let small = null;

beforeAll(() => {
  const dir = tempDir('rqbench-gen-full-');
  try {
    // 64 KiB: a few hundred 40-byte records fit, 10,000 of 512 bytes do not
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    small = dir;
  } catch {
    process.stderr.write('\nSKIPPED the small-disk cases: this machine does not allow mounting a tmpfs (needs root)\n');
  }
});

afterAll(() => {
  if (small) execFileSync('umount', [small], { stdio: 'ignore' });
  removeTempDirs();
});

const generate = (file, ...more) => runNode([CLI, 'load', '--generate', file, '--quiet', ...more], { timeoutMs: 30_000 });
const STACK = /\n\s+at |Error: |Unhandled/;

describe('load --generate onto what it cannot fill', () => {
  it('/dev/full: one line, exit 1, and the device is still there', async (ctx) => {
    if (!fs.existsSync('/dev/full')) return ctx.skip();
    const before = fs.statSync('/dev/full');
    const r = await generate('/dev/full', '--records', '1000');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim()).toBe('rqbench load: cannot write /dev/full: no space left on device (ENOSPC)');
    const after = fs.statSync('/dev/full');
    expect(after.isCharacterDevice()).toBe(true);
    expect([after.rdev, after.ino]).toEqual([before.rdev, before.ino]);
  }, 40_000);

  it("a user's file on a disk too small for the new one: it stays as it was, nothing else is left", async (ctx) => {
    if (!small) return ctx.skip();
    const mine = path.join(small, 'mine.tsv');
    fs.writeFileSync(mine, 'a file rqbench did not make\n');
    const { ino } = fs.statSync(mine);
    const r = await generate(mine, '--records', '10000');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim()).toBe(`rqbench load: cannot write ${mine}: no space left on device (ENOSPC)`);
    expect(r.stderr).not.toMatch(STACK);
    expect(fs.readFileSync(mine, 'utf8')).toBe('a file rqbench did not make\n');
    expect(fs.statSync(mine).ino).toBe(ino);
    // the half-written copy beside it is gone: only the user's file is there
    expect(fs.readdirSync(small)).toEqual(['mine.tsv']);
    fs.rmSync(mine);
  }, 40_000);

  it('a new file that does not fit is removed: the run made it', async (ctx) => {
    if (!small) return ctx.skip();
    const r = await generate(path.join(small, 'new.tsv'), '--records', '10000');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(fs.readdirSync(small)).toEqual([]);
  }, 40_000);

  it('an existing file is replaced once the new one is whole (as before): a link stays a link, the file keeps its permissions', async () => {
    const dir = tempDir('rqbench-gen-replace-');
    const file = path.join(dir, 'd.tsv');
    fs.writeFileSync(file, 'old\n');
    fs.chmodSync(file, 0o640);
    fs.symlinkSync('d.tsv', path.join(dir, 'link.tsv'));
    const r = await generate(path.join(dir, 'link.tsv'), '--records', '100', '--record-size', '40');
    expect(r.code, r.stderr).toBe(0);
    expect(fs.lstatSync(path.join(dir, 'link.tsv')).isSymbolicLink()).toBe(true);
    expect(fs.statSync(file).size).toBe(100 * 40);
    expect(fs.statSync(file).mode & 0o777, 'its permissions kept').toBe(0o640);
    expect(fs.readdirSync(dir).sort()).toEqual(['d.tsv', 'link.tsv']);
  }, 40_000);
});
