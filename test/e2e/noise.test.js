// Noise sentinels: a run records the CPU taken on the host outside it, each second and summed.
// A run while a CPU hog (started here, outside any run's process tree, bounded, stopped by PID)
// spins is marked noisy in its manifest, its summary and summary.md; a run without it is not. An
// experiment marks the noisy trial in RESULTS.md and, with --retry-noisy, sets it aside and runs it again.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI, PRODUCER, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { NoiseSentinel } from '../../src/measure/host-noise.js';
import { noisyLines, trialNoise } from '../../src/experiments/trial-noise.js';

afterAll(() => removeTempDirs());

/** Hogs started by a test, by PID: each is ended after its test. */
const hogs = [];
afterEach(() => {
  for (const pid of hogs.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended by itself (bounded)
    }
  }
});

/**
 * One core spinning for `seconds`, in a process of its own session whose parent has left (setsid
 * -f): no run's process tree holds it, as a neighbour's process on a shared host. Bounded: it ends
 * itself; the test ends it by PID too.
 */
async function startHog(seconds) {
  const pidFile = path.join(tempDir('rqbench-hog-'), 'pid');
  const code = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); const end = Date.now() + ${seconds * 1000}; while (Date.now() < end) {}`;
  const child = spawn('setsid', ['-f', process.execPath, '-e', code], { stdio: 'ignore' });
  await new Promise((resolve, reject) => {
    child.once('exit', resolve);
    child.once('error', reject);
  });
  for (let i = 0; i < 50 && !fs.existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  hogs.push(pid);
  // let it get going
  await new Promise((r) => setTimeout(r, 500));
  return pid;
}

/**
 * The other test files run beside this one: their processes are the test runner's, not a
 * neighbour's, so the runs here count the runner's whole tree as their own (a runner names its
 * tree to its CLIs the same way).
 */
const ENV = { ...process.env, RQBENCH_RUN_ROOT: String(process.ppid) };

/** A short producer run on its own local Redis; its run directory. */
async function producerRun() {
  const out = tempDir('rqbench-noise-');
  const r = await runNode(
    [PRODUCER, '--local', '-q', '20000', '-d', '3', '--warmup', '0', '--quiet', '--json', '--out', out, '--name', 'noise'],
    { env: ENV },
  );
  expect(r.code, r.stderr).toBe(0);
  const dir = path.join(out, fs.readdirSync(out)[0]);
  return {
    dir,
    manifest: JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')),
    summary: JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')),
    md: fs.readFileSync(path.join(dir, 'summary.md'), 'utf8'),
  };
}

describe('noise sentinels', () => {
  it('a run beside a CPU hog is marked noisy: manifest (each second), summary and summary.md', async () => {
    await startHog(12);
    const { manifest, summary, md } = await producerRun();
    const n = manifest.noise;
    expect(n.available).toBe(true);
    expect(n.noisy, JSON.stringify(n)).toBe(true);
    // one core spinning outside the run: most of a core, whatever else the host does
    expect(n.outsidePct).toBeGreaterThanOrEqual(60);
    expect(n.seconds.length).toBeGreaterThanOrEqual(3);
    for (const s of n.seconds) expect(Object.keys(s).sort()).toEqual(['hostPct', 'load1', 'outsidePct', 'ownPct', 'stealPct', 't']);
    expect(summary.noise).toMatchObject({ noisy: true, thresholdPct: 25, outsidePct: n.outsidePct });
    expect(summary.noise.seconds).toBeUndefined();
    expect(md).toMatch(/\*\*Noisy run\*\*: other processes on this host took \d+(\.\d)?% of a core on average/);
  }, 60_000);

  it('a run without one is quiet, its own writers and Redis counted as its own', async () => {
    const { manifest, summary, md } = await producerRun();
    const n = manifest.noise;
    expect(n.noisy, JSON.stringify(n)).toBe(false);
    expect(n.outsidePct).toBeLessThan(25);
    // the run did use CPU: it is the run's own, not the host's
    expect(Math.max(...n.seconds.map((s) => s.ownPct))).toBeGreaterThan(5);
    expect(summary.noise.noisy).toBe(false);
    expect(md).toMatch(/Host noise: other processes on this host took [\d.]+% of a core on average .*\(quiet: noisy at 25% and above\)\./);
  }, 60_000);

  it('counts a child that ends as the run\'s own: its CPU moves into its parent\'s, nothing lost to "outside"', async () => {
    const s = new NoiseSentinel({ root: process.pid, intervalMs: 200 }).start();
    // a child spins for a second and exits; the sentinel sees it come and go
    await new Promise((resolve) =>
      spawn(process.execPath, ['-e', 'const e = Date.now() + 1000; while (Date.now() < e) {}']).once('exit', resolve),
    );
    await new Promise((r) => setTimeout(r, 400));
    const n = s.stop();
    const own = n.seconds.reduce((t, x) => t + x.ownPct, 0) * 0.2;
    // about one core-second of the child's (and a little of this process's), never lost when it ended
    expect(own).toBeGreaterThan(70);
  });
});

describe('noisy trials in an experiment', () => {
  it('marks a noisy trial in RESULTS.md and, with --retry-noisy, keeps it aside and runs it again', async () => {
    const dir = path.join(tempDir('rqbench-exp-noise-'), 'noisy');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'experiment.yaml'),
      `
title: Noise (test)
seed: "002 § Sorted set vs lists"
topology: { local: {} }
repeat: 1
duration: 2
warmup: 0
flags: { q: 2000 }
steps:
  - name: zset
finding: "the master is not idle"
check: "zset.master_cpu > 0"
`,
    );
    await startHog(40);
    const r = await runNode([CLI, 'experiment', 'run', '--allow-dirty', dir, '--retry-noisy', '1', '--seed', '3'], { timeoutMs: 90_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /zset trial 1\/1 was noisy \(other processes took [\d.]+% of a core, noisy at 25%\): kept in \S+trial-1\.noisy-1, running it again \(1 of at most 1\)/,
    );
    expect(r.stderr).toMatch(/\[2\/2\] zset \(trial 1\/1, again: the last was noisy\)/);
    const run = path.join(dir, 'runs', fs.readdirSync(path.join(dir, 'runs'))[0], 'zset');
    expect(fs.readdirSync(run).sort()).toEqual(['trial-1', 'trial-1.noisy-1']);
    // the hog still spins: the second try is noisy too, and kept (one retry asked), marked
    expect(trialNoise(path.join(run, 'trial-1'))?.noisy).toBe(true);
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).toMatch(/\| `zset\.master_cpu` \| .* \| [\d.]+\* \|/);
    expect(md).toMatch(
      /Noisy trials \(marked \* above; kept and counted .*\n\n- zset trial 1: other processes on the host took [\d.]+% of a core during it \(noisy at 25%\)/,
    );
  }, 120_000);

  it('says nothing of trials whose runs recorded no noise (made before the sentinels)', () => {
    expect(trialNoise(tempDir('rqbench-empty-'))).toBeNull();
    expect(
      noisyLines([
        {
          step: { name: 'a' },
          trials: [
            { trial: 1, noise: null },
            { trial: 2, noise: { noisy: false, outsidePct: 3, thresholdPct: 25, runs: 1 } },
          ],
        },
      ]),
    ).toEqual([]);
  });
});
