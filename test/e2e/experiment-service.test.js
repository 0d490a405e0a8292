// A service that stops answering during a trial (issue 37, point 7): the trial measured the fault,
// not the step, so the runner sets it aside (kept beside the trial), starts a fresh server and runs
// the trial again; RESULTS.md names it. The fault comes from outside: the test freezes the Redis the
// runner started (SIGSTOP, by the PID that listens on its port) during the first trial, longer than
// the producer's retry budget. (The SQS emulator runs inside the runner's own process, so a frozen
// one would freeze the runner: Redis is the separate server here.) Real redis-server on 127.0.0.1.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CLI, ROOT, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { settings } from '../../src/settings.js';

afterAll(() => removeTempDirs());

const SPEC = `title: A server that stops answering (test)
seed: "002 § x"
topology: { local: { replicas: 0 } }
repeat: 2
duration: 4
warmup: 0
flags: { q: 1000, ttl: 60 }
steps:
  - name: only
`;

/** The PID listening on 127.0.0.1:port (ss from iproute2). @param {number} port */
function listener(port) {
  const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  return Number(/pid=(\d+)/.exec(out)?.[1]);
}

it('a trial whose Redis froze is set aside and run again on a fresh server, and RESULTS.md names it', async () => {
  const dir = path.join(tempDir('rqbench-exp-service-'), 'one');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'experiment.yaml'), SPEC);
  const child = spawn(process.execPath, [CLI, 'experiment', 'run', '--allow-dirty', dir, '--seed', '1'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  /** @type {number|null} */ let frozen = null;
  const done = new Promise((resolve) => child.once('close', resolve));
  const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
  child.stderr.on('data', (d) => {
    stderr += d;
    // the first trial has begun on the server the runner started: freeze it, once, for good, as soon
    // as its producer has written its first second (a producer slow to start on a busy host would
    // otherwise find it frozen before it connected: a fault too, said otherwise)
    const port = Number(/ at redis:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)?.[1]);
    if (frozen === null && port && /\] only \(trial 1\/2/.test(stderr)) {
      frozen = listener(port);
      const pid = frozen;
      const poll = setInterval(() => {
        const stamp = fs.existsSync(path.join(dir, 'runs')) ? fs.readdirSync(path.join(dir, 'runs'))[0] : null;
        const trial = stamp ? path.join(dir, 'runs', stamp, 'only', 'trial-1') : null;
        const run = trial && fs.existsSync(trial) ? fs.readdirSync(trial).find((d) => d.endsWith('-producer')) : null;
        const timeline = run ? path.join(/** @type {string} */ (trial), run, 'timeline.csv') : null;
        if (timeline && fs.existsSync(timeline) && fs.readFileSync(timeline, 'utf8').trim().split('\n').length > 1) {
          clearInterval(poll);
          process.kill(pid, 'SIGSTOP');
        }
      }, 100);
      child.once('close', () => clearInterval(poll));
    }
  });
  try {
    const code = await done;
    expect(frozen, stderr).toBeGreaterThan(0);
    expect(code, stderr).toBe(0);
    // said as it happened: the producer's silence, the trial set aside, a fresh server
    expect(stderr).toMatch(
      /only trial 1\/2: its service stopped answering \(nothing answered for [\d.]+ s and the run stopped\): kept in \S+trial-1\.unanswered-1, running it again on a fresh server \(1 of at most 2\)/,
    );
    const [stamp] = fs.readdirSync(path.join(dir, 'runs'));
    const stepDir = path.join(dir, 'runs', stamp, 'only');
    expect(fs.readdirSync(stepDir).sort()).toEqual(['trial-1', 'trial-1.unanswered-1', 'trial-2']);
    // the run set aside is kept whole: its producer's summary says what happened
    const aside = path.join(stepDir, 'trial-1.unanswered-1');
    const run = fs.readdirSync(aside).find((d) => d.endsWith('-producer'));
    const summary = JSON.parse(fs.readFileSync(path.join(aside, /** @type {string} */ (run), 'summary.json'), 'utf8'));
    expect(summary.unreachable.silentS).toBeGreaterThanOrEqual(Math.floor(settings.unreachableStopMs / 1000) - 1);
    // and RESULTS.md names it beside the finding
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).toContain('Trials whose service stopped answering (each run again on a fresh server, at most 2 times;');
    expect(md).toContain('- only trial 1: its service stopped answering 1 time; the trial counted is the run that answered');
    expect(md).toContain('Trials: 2 of 2 per step complete');
  } finally {
    clearTimeout(timer);
    if (frozen) {
      try {
        process.kill(frozen, 'SIGKILL');
      } catch {
        // the runner ended it
      }
    }
  }
}, 120_000);
