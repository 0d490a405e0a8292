// Outputs that cannot be written (issue 12, points 4 and 8): an --out on a read-only file system
// refused before anything connects, in one line naming --out, exit 2, nothing created (the others:
// test/unit/output-flags.test.js); a disk that fills up mid-run stops the run with one line and
// exit 1, and what was written stays readable. The read-only and full file systems are small tmpfs
// mounts made by the test (root only: skipped with a message otherwise).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { readTimeline } from '../../src/record/timeline.js';
import { PRODUCER, listTree, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { rqbench, seedScript } from '../helpers/in-process.js';

/** Mounts a tmpfs at `dir`; false when this machine does not allow it. */
function mountTmpfs(dir, options) {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const mounts = [];
let local;
let base;
let readOnly;
let full;
let canMount;

beforeAll(async () => {
  local = await startRedis();
  base = tempDir('rqbench-outputs-');
  readOnly = path.join(base, 'ro');
  full = path.join(base, 'full');
  fs.mkdirSync(readOnly);
  fs.mkdirSync(full);
  canMount = mountTmpfs(readOnly, 'ro,size=64k') && mountTmpfs(full, 'size=32k');
  if (canMount) mounts.push(readOnly, full);
  else process.stderr.write('\nSKIPPED the read-only and full-disk cases: this machine does not allow mounting a tmpfs (needs root)\n');
}, 30_000);

afterAll(async () => {
  for (const m of mounts) {
    try {
      execFileSync('umount', [m], { stdio: 'ignore' });
    } catch {
      // already gone
    }
  }
  await local?.stop();
  removeTempDirs();
});

/** What must never appear in a one-line error. */
const STACK = /\n\s+at |Error: |Unhandled/;

describe('an output that cannot be written is refused before anything runs', () => {
  it('--out on a read-only file system: exit 2, one line naming it', async (ctx) => {
    if (!canMount) return ctx.skip();
    const r = await seedScript('producer.js', ['--port', String(local.port), '--out', path.join(readOnly, 'runs'), '-d', '2']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe(
      `producer.js: --out must be a directory rqbench can write (${JSON.stringify(readOnly)}: read-only file system)`,
    );
    expect(listTree(readOnly)).toEqual([]);
  }, 30_000);

  it('rqbench k8s --out on a read-only file system: the cause said (not ENOENT), before anything else is printed', async (ctx) => {
    if (!canMount) return ctx.skip();
    const r = await rqbench(['k8s', '--out', path.join(readOnly, 'k8s', 'run1'), '--', '-q', '100']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `rqbench k8s: --out must be a directory rqbench can write (${JSON.stringify(readOnly)}: read-only file system)\n`,
    );
    expect(listTree(readOnly)).toEqual([]);
  }, 30_000);
});

describe('the disk fills up mid-run', () => {
  it('the run stops, says so in one line, exits 1, and what was written stays readable', async (ctx) => {
    if (!canMount) return ctx.skip();
    // ~10 histograms a second fill 32 kB (eight pages: one a file, and one more) within seconds: long before the planned 30 s
    const r = await runNode(
      [PRODUCER, '--port', String(local.port), '-q', '5000', '-c', '20', '-d', '30', '--ttl', '5', '--out', full, '--json', '--quiet'],
      { timeoutMs: 60_000 },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.ms, 'stopped at the full disk, not at the planned end').toBeLessThan(20_000);
    const lines = r.stderr.trim().split('\n');
    expect(lines.length, r.stderr).toBe(1);
    expect(lines[0]).toMatch(/^producer\.js: cannot write the run directory .+: no space left on device \(ENOSPC\); the run stopped there/);
    expect(r.stderr).not.toMatch(STACK);
    // the summary was computed and printed even though it may not fit on the disk
    const s = JSON.parse(r.stdout);
    expect(s.outcome.exitCode).toBe(1);
    expect(s.outcome.problems.join('; ')).toMatch(/could not be written \(ENOSPC\)/);
    expect(s.totals.acked).toBeGreaterThan(0);
    const [dir] = fs.readdirSync(full).map((d) => path.join(full, d));
    // whole files only: no temp file left behind, the timeline reads back
    expect(listTree(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'manifest.json'))).toBe(true);
    const tl = readTimeline(path.join(dir, 'timeline.csv'));
    expect(tl.rows.length).toBeGreaterThan(0);
    expect(tl.rows.map((x) => x.second)).toEqual(tl.rows.map((_, i) => i));
  }, 60_000);
});
