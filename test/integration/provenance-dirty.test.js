// An experiment run refuses a tree with uncommitted changes unless told (issue 37, point 2): the
// commit it would record would not name the code. Tried on a clone of this checkout's HEAD, with one
// tracked file changed, so this checkout is never touched.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

const isCheckout = fs.existsSync(path.join(ROOT, '.git'));
afterAll(() => removeTempDirs());

describe.skipIf(!isCheckout)('experiment run on a dirty tree', () => {
  it('is refused in one line, exit 2, nothing written; with --allow-dirty only the spec decides', async () => {
    const clone = path.join(tempDir('rqbench-dirty-'), 'rq');
    execFileSync('git', ['clone', '--quiet', '--shared', ROOT, clone]);
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    fs.appendFileSync(path.join(clone, 'README.md'), '\nan uncommitted line\n');
    const spec = path.join(clone, 'experiments', '002-chunks');
    // the clone's own CLI: the tree it checks is the one it runs from
    const cli = path.join(clone, 'src', 'cli.js');
    const r = await runNode([cli, 'experiment', 'run', spec]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe(
      `rqbench experiment: rqbench's tree has uncommitted changes (1 tracked file): commit them, or give --allow-dirty (RESULTS.md then marks its tables "from uncommitted code")`,
    );
    expect(fs.existsSync(path.join(spec, 'runs'))).toBe(false);
    // a spec's own mistake is said before the tree: --allow-dirty lets the check of the spec speak
    const bad = await runNode([cli, 'experiment', 'run', '--allow-dirty', '--repeat', '0', spec]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--repeat/);
    const report = await runNode([cli, 'experiment', 'report', '--allow-dirty', spec]);
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/--allow-dirty must be used with run/);
  }, 60_000);

  it("an experiment's own outputs are not uncommitted code: a run of several specs rewrites the earlier ones' RESULTS.md", async () => {
    const clone = path.join(tempDir('rqbench-outputs-'), 'rq');
    execFileSync('git', ['clone', '--quiet', '--shared', ROOT, clone]);
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'));
    const spec = path.join(clone, 'experiments', '002-chunks');
    fs.appendFileSync(path.join(spec, 'RESULTS.md'), '\nregenerated\n');
    fs.appendFileSync(path.join(clone, 'experiments', 'README.md'), '\nregenerated\n');
    const [chart] = fs.readdirSync(path.join(spec, 'charts'));
    fs.appendFileSync(path.join(spec, 'charts', chart), '\n');
    const changes = async () => {
      const r = await runNode([
        '--input-type=module',
        '-e',
        `import('${path.join(clone, 'src', 'harness', 'manifest.js')}').then((m) => console.log(JSON.stringify(m.gitChanges())))`,
      ]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    expect(await changes()).toEqual({ dirty: false, files: 0, changed: [] });
    // its spec is an input, and code is code: both still count
    fs.appendFileSync(path.join(spec, 'experiment.yaml'), '\n# changed\n');
    fs.appendFileSync(path.join(clone, 'src', 'cli.js'), '\n// changed\n');
    expect(await changes()).toEqual({ dirty: true, files: 2, changed: ['experiments/002-chunks/experiment.yaml', 'src/cli.js'] });
  }, 60_000);
});
