// The end of a run, with the fault injected from outside (issue 26, point 5): two Ctrl-C 50 ms apart
// during a run with --verify still leave a summary that says the run was interrupted and that the
// read-back did not run; a disk that fills up just before the final save leaves no summary.json
// claiming exit 0, the summary printed instead names the failed save in its outcome (issue 38,
// point 5), and `rqbench report` reads the run up to its last second with that outcome, exit 1.
// Real processes against a real server; the full disk is a small tmpfs the test mounts (root only:
// skipped otherwise).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { CLI, PRODUCER, ROOT, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { startDelayProxy } from '../helpers/delay-proxy.js';
import { CONSUMER } from '../helpers/consumer-run.js';
import { rqbench } from '../helpers/in-process.js';

let local;
const mounts = [];

beforeAll(async () => {
  local = await startRedis();
}, 30_000);

afterAll(async () => {
  for (const m of mounts) execFileSync('umount', [m], { stdio: 'ignore' });
  await local?.stop();
  removeTempDirs();
});

/**
 * Starts the producer (or `script`); once its run directory holds `ready(dir)`, calls `act(pid, dir)`; collects.
 * With `printed: 'md'`, the summary is printed as markdown (no --json, no --quiet).
 * @returns {Promise<{ code: number|null, stdout: string, stderr: string, dir: string, actedAt: number, endedAt: number }>}
 */
function watched(out, flags, ready, act, port = local.port, script = PRODUCER, printed = 'json') {
  const child = spawn(
    process.execPath,
    [script, '--host', '127.0.0.1', '--port', String(port), '--out', out, ...(printed === 'json' ? ['--json', '--quiet'] : []), ...flags],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    const killer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit: ${stderr}`));
    }, 40_000);
    let dir = null;
    let actedAt = 0;
    const watch = setInterval(() => {
      dir ??=
        fs
          .readdirSync(out)
          .filter((d) => d !== 'lost+found' && !d.startsWith('filler'))
          .map((d) => path.join(out, d))[0] ?? null;
      if (!dir || !ready(dir)) return;
      clearInterval(watch);
      actedAt = Date.now();
      act(child.pid, dir);
    }, 20);
    child.on('close', (code) => {
      clearTimeout(killer);
      clearInterval(watch);
      resolve({ code, stdout, stderr, dir, actedAt, endedAt: Date.now() });
    });
  });
}

const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));
const timelineRows = (dir) => {
  try {
    return fs.readFileSync(path.join(dir, 'timeline.csv'), 'utf8').trim().split('\n').length - 1;
  } catch {
    return 0;
  }
};

describe('the end of a run', () => {
  it('two Ctrl-C 50 ms apart during a run with --verify: exit 130 at once, a summary that says --verify did not run', async () => {
    const out = tempDir('rqbench-2int-');
    // every reply held 400 ms: the drain after the first Ctrl-C waits that long for what is in flight,
    // so the second one, 50 ms later, lands in it (and the read-back could not be done by then either)
    const proxy = await startDelayProxy({ host: '127.0.0.1', port: local.port }, 400);
    const r = await watched(
      out,
      ['-q', '20000', '-c', '10', '-d', '30', '--warmup', '0', '--verify', '--ttl', '300'],
      (dir) => timelineRows(dir) >= 2,
      (pid) => {
        process.kill(pid, 'SIGINT');
        setTimeout(() => process.kill(pid, 'SIGINT'), 50);
      },
      proxy.port,
    ).finally(() => proxy.close());
    expect(r.code, r.stderr).toBe(130);
    expect(r.endedAt - r.actedAt, 'the second Ctrl-C does not wait for a drain or a read-back').toBeLessThan(4000);
    const s = readJson(path.join(r.dir, 'summary.json'));
    expect(s.incomplete, 'a summary of what was measured, not a placeholder').toBeUndefined();
    expect(s.interrupted).toBeTruthy();
    expect(s.outcome.exitCode).toBe(130);
    expect(s.verify, JSON.stringify({ verify: s.verify, note: s.note, outcome: s.outcome, stderr: r.stderr })).toEqual({
      skipped: 'the run was left at once (a second Ctrl-C) before the read-back',
    });
    expect(s.note).toBe('a second SIGINT ended the run at once');
    // --quiet leaves stdout empty: the last line on stderr still says what happened and where it is
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      `Interrupted: a second SIGINT ended the run at once; what it measured so far is in ${r.dir}`,
    );
    expect(s.outcome.problems.join('; ')).toMatch(/--verify did not read the items back/);
    expect(s.totals.acked).toBeGreaterThan(0);
    const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
    expect(md).toMatch(/\*\*Verify:\*\* did not run to the end: /);
    expect(md).toMatch(/\*\*Interrupted\*\*/);
    // what was measured reads back: report takes the directory as an interrupted run
    const rep = await runNode([CLI, 'report', r.dir], { timeoutMs: 30_000 });
    expect(rep.code, rep.stderr).toBe(0);
    expect(rep.stdout).toMatch(/Interrupted/);
  }, 60_000);

  it('a consumer: two Ctrl-C 50 ms apart leave a summary of the cycles read so far, not a placeholder', async () => {
    const out = tempDir('rqbench-2int-consume-');
    // replies held 400 ms: a cycle is in flight when the first Ctrl-C comes, the second lands in its drain
    const proxy = await startDelayProxy({ host: '127.0.0.1', port: local.port }, 400);
    const r = await watched(
      out,
      ['-p', '200', '-d', '30', '--warmup', '0'],
      (dir) => timelineRows(dir) >= 2,
      (pid) => {
        process.kill(pid, 'SIGINT');
        setTimeout(() => process.kill(pid, 'SIGINT'), 50);
      },
      proxy.port,
      CONSUMER,
    ).finally(() => proxy.close());
    expect(r.code, r.stderr).toBe(130);
    const s = readJson(path.join(r.dir, 'summary.json'));
    expect(s.incomplete, JSON.stringify(s).slice(0, 300)).toBeUndefined();
    expect(s.note).toBe('a second SIGINT ended the run at once');
    expect(s.outcome.exitCode).toBe(130);
    expect(s.cycles.count).toBeGreaterThan(0);
    const rep = await runNode([CLI, 'report', r.dir], { timeoutMs: 30_000 });
    expect(rep.code, rep.stderr).toBe(0);
  }, 60_000);

  it('one Ctrl-C during the read-back (the run itself over): exit 130 at once, the summary says the read-back did not finish', async () => {
    const out = tempDir('rqbench-int-verify-');
    // 120k items to read back (a few hundred ms); summary.json first appears as the read-back starts
    const r = await watched(
      out,
      ['-q', '40000', '-t', '2', '-c', '20', '-d', '3', '--warmup', '0', '--verify', '--ttl', '300'],
      (dir) => fs.existsSync(path.join(dir, 'summary.json')),
      (pid) => process.kill(pid, 'SIGINT'),
    );
    expect(r.code, r.stderr).toBe(130);
    expect(r.endedAt - r.actedAt, 'it leaves at once').toBeLessThan(2000);
    const s = readJson(path.join(r.dir, 'summary.json'));
    expect(s.verify, JSON.stringify(s.verify)).toEqual({ skipped: 'a SIGINT ended the read-back before it finished' });
    expect(s.interrupted).toBe(true);
    expect(s.outcome.exitCode).toBe(130);
    // the run was whole before the signal: every second of it is in the summary
    expect(s.window.seconds).toBe(3);
    expect(s.totals.acked).toBe(s.totals.sent);
    expect(fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8')).toContain(
      '**Verify:** did not run to the end: a SIGINT ended the read-back before it finished.',
    );
  }, 60_000);

  /**
   * A small tmpfs mounted on a fresh --out: plenty of bytes, few inodes, so that the test can take
   * the last ones during the run while the files the run already has grow on.
   * @returns {string|null} the mount point, or null when mounting is not allowed here
   */
  function smallDisk() {
    const out = tempDir('rqbench-fullend-');
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,nr_inodes=64', 'tmpfs', out], { stdio: 'ignore' });
      mounts.push(out);
      return out;
    } catch {
      return null;
    }
  }

  /** Every inode of `out` but one taken: the run's end may replace manifest.json (one at a time) and write one more file, not two. */
  function fillAllButOne(out) {
    let n = 0;
    try {
      for (; ; n++) fs.writeFileSync(path.join(out, `filler-${n}`), '');
    } catch (e) {
      if (e.code !== 'ENOSPC') throw e;
    }
    fs.rmSync(path.join(out, `filler-${n - 1}`));
  }

  const SAVE_FAILED = /its summary could not be saved: cannot write the run directory .+: no space left on device \(ENOSPC\)/;

  it('the disk fills up just before the final save: the printed summary names it, exit 1; report reads the run up to its last second, the failed save named', async (ctx) => {
    const out = smallDisk();
    if (!out) return ctx.skip();
    const r = await watched(
      out,
      ['-q', '2000', '-c', '10', '-d', '4', '--warmup', '0', '--ttl', '30'],
      (dir) => timelineRows(dir) >= 2,
      () => fillAllButOne(out),
    );
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines.length, r.stderr).toBe(1);
    expect(lines[0]).toMatch(
      /^producer\.js: cannot write the run directory .+: no space left on device \(ENOSPC\); its summary \(printed above\) could not be saved/,
    );
    // the summary computed was printed, its outcome naming the save that failed (before: exit 0, no problem)
    const printed = JSON.parse(r.stdout);
    expect(printed.totals.acked).toBeGreaterThan(0);
    expect(printed.outcome.exitCode, JSON.stringify(printed.outcome)).toBe(1);
    expect(printed.outcome.problems.join('\n')).toMatch(SAVE_FAILED);
    const files = fs.readdirSync(r.dir);
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // one inode was free: summary.md took it and summary.json did not fit, so summary.md went and
    // summary.json is the placeholder that says why (it never claims a clean run)
    expect(files).not.toContain('summary.md');
    const s = readJson(path.join(r.dir, 'summary.json'));
    expect(s.outcome?.exitCode, 'summary.json does not claim a clean run').toBeUndefined();
    expect(s.incomplete).toBe(true);
    expect(s.failed).toMatch(/no space left on device \(ENOSPC\); its summary could not be saved/);
    // report reads the run from its timeline and .hlog files, up to its last second, the failed save named
    // (before: "the run did not finish", exit 2); in this process: the disk is still full
    const rep = await rqbench(['report', r.dir, '--format', 'json']);
    expect(rep.code, rep.stderr).toBe(1);
    const read = JSON.parse(rep.stdout);
    expect(read.window, JSON.stringify(read.window)).toEqual({ fromSecond: 0, toSecond: 4, seconds: 4 });
    expect(read.totals.acked).toBe(printed.totals.acked);
    expect(read.outcome.exitCode).toBe(1);
    expect(read.outcome.problems.join('\n')).toMatch(
      /ran to second 4, but its summary is missing \(its final save failed: cannot write the run directory .+: no space left on device \(ENOSPC\)\)/,
    );
    const md = await rqbench(['report', r.dir, '--no-html']);
    expect(md.code, md.stderr).toBe(1);
    expect(md.stdout).toMatch(/\*\*Outcome:\*\* exit 1 — .*its final save failed: cannot write the run directory .*\(ENOSPC\)/);
  }, 60_000);

  it('the disk fills up just before the final save of a consumer: its printed summary (markdown) says so in its outcome line; report reads it up to its last second', async (ctx) => {
    const out = smallDisk();
    if (!out) return ctx.skip();
    const w = await runNode([
      PRODUCER,
      '--host',
      '127.0.0.1',
      '--port',
      String(local.port),
      '-q',
      '1000',
      '-d',
      '1',
      '--ttl',
      '60',
      '--quiet',
    ]);
    expect(w.code, w.stderr).toBe(0);
    const r = await watched(
      out,
      ['-d', '4', '--warmup', '0', '--ttl', '60', '-p', '250'],
      (dir) => timelineRows(dir) >= 2,
      () => fillAllButOne(out),
      local.port,
      CONSUMER,
      'md',
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /consumer\.js: cannot write the run directory .+: no space left on device \(ENOSPC\); its summary \(printed above\) could not be saved/,
    );
    // before: no outcome line at all (the summary had been made with exit 0)
    expect(r.stdout).toMatch(new RegExp(`\\*\\*Outcome:\\*\\* exit 1 — ${SAVE_FAILED.source}`));
    // report reads it from its timeline and .hlog files up to its last second, the failed save and
    // what only its end knew named (before: "report reads a stopped run of a Redis producer only", exit 2)
    const rep = await rqbench(['report', r.dir, '--format', 'json']);
    expect(rep.code, rep.stderr).toBe(1);
    const read = JSON.parse(rep.stdout);
    expect(read.window, JSON.stringify(read.window)).toEqual({ fromSecond: 0, toSecond: 4, seconds: 4 });
    // every cycle its printed summary counted, read back (the last may end past the last whole second);
    // a busy host runs fewer than the 16 scheduled, and both say so alike
    const printed = Number(/\*\*Cycles:\*\* ([\d,]+) of 16 scheduled/.exec(r.stdout)?.[1].replace(/,/g, ''));
    expect(printed, r.stdout).toBeGreaterThan(0);
    expect(read.cycles.count, JSON.stringify(read.cycles)).toBeGreaterThanOrEqual(printed - 1);
    expect(read.cycles.count, JSON.stringify(read.cycles)).toBeLessThanOrEqual(printed);
    expect(read.outcome.problems.join('\n')).toMatch(
      /^reader 1 on host .+ ran to second 4, but its summary is missing \(its final save failed: cannot write the run directory .+: no space left on device \(ENOSPC\)\); its cycles up to second 3 are read from timeline\.csv and its \.hlog files/,
    );
  }, 60_000);
});
