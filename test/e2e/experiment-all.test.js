// Every spec from one command (issue 15, point 4): `rqbench experiment run <dir> <dir>` runs the
// specs in sequence with an overall progress line and ETA, writes the index README.md beside them
// (seed section → spec → verdict → link), and after Ctrl-C `--resume` skips the spec that finished
// in this sequence and continues the interrupted one; a mistake in any spec stops all before
// anything runs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

afterAll(() => removeTempDirs());

const spec = (title, seed, check, checkTests) => `
title: ${title}
seed: "${seed}"
topology: { local: { replicas: 0 } }
repeat: 6
duration: 2
warmup: 1
flags: { q: 2000, t: 1 }
steps:
  - name: one
finding: "a finding"
check: "${check}"
${checkTests ? `checkTests: "${checkTests}"\n` : ''}`;

/** Two specs in one parent directory, as experiments/ holds them. */
function twoSpecs() {
  const parent = tempDir('rqbench-exp-all-');
  const dirs = [['a-first', spec('First (test)', '001 § A', 'one.achieved > 0', 'that something was written; not how fast')], ['b-second', spec('Second (test)', '002 § B', 'one.achieved < 0')]].map(([name, yaml]) => {
    const dir = path.join(parent, name);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'experiment.yaml'), yaml);
    return dir;
  });
  return { parent, dirs };
}
const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-800)}`;

describe('rqbench experiment run with several specs', () => {
  it('runs them in sequence with an overall ETA and writes the index; --resume after Ctrl-C skips the finished spec', async () => {
    const { parent, dirs } = twoSpecs();
    const child = spawn(process.execPath, [CLI, 'experiment', 'run', ...dirs], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
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

    const r = await runNode([CLI, 'experiment', 'run', ...dirs, '--resume'], { timeoutMs: 90_000 });
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
    expect(index).toContain('| 001 § A | [a-first](a-first/experiment.yaml) | First (test) | held | 6 trials per step | [RESULTS.md](a-first/RESULTS.md) |');
    expect(index).toContain('| 002 § B | [b-second](b-second/experiment.yaml) | Second (test) | did not hold | 6 trials per step | [RESULTS.md](b-second/RESULTS.md) |');
    // what each check tests, from the spec; a spec that does not say is named
    expect(index).toContain('## What each check tests\n\nA verdict decides the check, not the whole sentence of the seed: what each check tests, and what it leaves untested.\n\n- **a-first**: that something was written; not how fast\n\nNot said yet: b-second.');
  }, 200_000);

  it('refuses a mistake in any of the specs before running one: one line, exit 2, nothing written', async () => {
    const { parent, dirs } = twoSpecs();
    fs.writeFileSync(path.join(dirs[1], 'experiment.yaml'), spec('Second (test)', '002 § B', 'one.achieved < 0').replace('q: 2000', 'q: 0'));
    const r = await runNode([CLI, 'experiment', 'run', ...dirs], { timeoutMs: 20_000 });
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${path.join(dirs[1], 'experiment.yaml')}: flags.q must be`);
    expect(fs.readdirSync(parent).sort()).toEqual(['a-first', 'b-second']);
    expect(fs.readdirSync(dirs[0])).toEqual(['experiment.yaml']);
  });
});
