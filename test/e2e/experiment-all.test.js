// Every spec from one command (issue 15, point 4): `rqbench experiment run <dir> <dir>` runs the
// specs in sequence with an overall progress line and ETA, writes the index README.md beside them
// (seed section → spec → verdict → link), and after Ctrl-C `--resume` skips the spec that finished
// in this sequence and continues the interrupted one. A mistake in any spec stops all before
// anything runs: test/unit/experiment-specs.test.js.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, removeTempDirs, runNode } from '../helpers/producer-run.js';
import { twoSpecs } from '../helpers/specs.js';

afterAll(() => removeTempDirs());

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-800)}`;

describe('rqbench experiment run with several specs', () => {
  it('runs them in sequence with an overall ETA and writes the index; --resume after Ctrl-C skips the finished spec', async () => {
    const { parent, dirs } = twoSpecs();
    const child = spawn(process.execPath, [CLI, 'experiment', 'run', '--allow-dirty', ...dirs], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const code = await new Promise((resolve) => {
      child.stderr.on('data', (d) => {
        err += d;
        // a second into the second spec's step: its CLI is running
        if (/\[2\/6\] one \(trial 2\/6\): 2 s/.test(err.split('[spec 2/2]')[1] ?? '') && !child.sent) {
          child.sent = true;
          setTimeout(() => child.kill('SIGINT'), 1000);
        }
      });
      child.once('close', (c) => resolve(c));
    });
    expect(code, err).toBe(130);
    expect(err).toMatch(/\[spec 1\/2\] a-first: 1 step\(s\) x 6 trial\(s\) … 0:00 so far, ETA \d+:\d\d/);
    expect(err).toMatch(/\[spec 2\/2\] b-second: 1 step\(s\) x 6 trial\(s\) … \d+:\d\d so far, ETA \d+:\d\d/);
    expect(err).toContain('interrupted; --resume continues this sequence');
    expect(fs.existsSync(path.join(parent, '.run-all.json'))).toBe(true);

    const r = await runNode([CLI, 'experiment', 'run', '--allow-dirty', ...dirs, '--resume'], { timeoutMs: 90_000 });
    expect(r.code, why(r)).toBe(0);
    expect(r.stderr).toMatch(/\[spec 1\/2\] a-first finished earlier in this sequence, skipped/);
    expect(r.stderr).toMatch(/\[spec 2\/2\] b-second: 1 step\(s\)/);
    // the interrupted spec went on at its second trial: the first was kept
    expect(r.stderr).toMatch(/one trial 1\/6 already complete/);
    expect(r.stderr).toMatch(/2 spec\(s\) in \d+:\d\d; wrote .*README\.md/);
    // the first spec ran once, the second continued its interrupted run
    expect(fs.readdirSync(path.join(dirs[0], 'runs'))).toHaveLength(1);
    expect(fs.readdirSync(path.join(dirs[1], 'runs'))).toHaveLength(1);
    expect(fs.existsSync(path.join(parent, '.run-all.json'))).toBe(false);
    const index = fs.readFileSync(path.join(parent, 'README.md'), 'utf8');
    expect(index).toContain('Of 2 findings: 1 held, 1 did not hold, 0 inconclusive.');
    expect(index).toContain(
      '| 001 § A | [a-first](a-first/experiment.yaml) | First (test) | held | 6 trials per step | [RESULTS.md](a-first/RESULTS.md) |',
    );
    expect(index).toContain(
      '| 002 § B | [b-second](b-second/experiment.yaml) | Second (test) | did not hold | 6 trials per step | [RESULTS.md](b-second/RESULTS.md) |',
    );
    // what each check tests, from the spec; a spec that does not say is named
    expect(index).toContain(
      '## What each check tests\n\nA verdict decides the check, not the whole sentence of the seed: what each check tests, and what it leaves untested.\n\n- **a-first**: that something was written; not how fast\n\nNot said yet: b-second.',
    );
  }, 200_000);
});
