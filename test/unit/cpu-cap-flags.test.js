// Bad CPU caps (--node-cpus, a spec's topology.local.cpus) and a cgroup root without the CPU
// controller: one line naming the flag or field, exit 2, no server started, nothing written. The
// commands run in this process, where starting a server would fail the test on its own
// (no-servers.js); test/e2e/cpu-cap.test.js caps real servers, and refuses a read-only root.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { rqbench, seedScript } from '../helpers/in-process.js';

afterAll(() => removeTempDirs());
afterEach(() => vi.unstubAllEnvs());

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-600)}`;

/** An experiment directory holding `body` (title and seed added). */
function spec(body) {
  const dir = path.join(tempDir('rqbench-cap-exp-'), 'cap');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'experiment.yaml'), `title: cap test\nseed: "none"\n${body}`);
  return dir;
}

describe('bad caps: one line naming the flag or field, exit 2, nothing written', () => {
  const cases = [
    [['--local', '--node-cpus', '0'], '--node-cpus must be a number of cores from 0.01 to', '(got 0)'],
    [['--local', '--node-cpus', '-1'], '--node-cpus must be a number of cores from 0.01 to', '(got -1)'],
    [['--local', '--node-cpus', 'abc'], '--node-cpus must be a number of cores from 0.01 to', '(got "abc")'],
    [
      ['--local', '--node-cpus', String(os.availableParallelism() + 1)],
      `--node-cpus must be a number of cores from 0.01 to ${os.availableParallelism()}`,
      '',
    ],
    [['--node-cpus', '0.5'], '--node-cpus must be used with --local', ''],
  ];
  it.each(cases)('producer %j', async (args, line, got) => {
    const out = tempDir('rqbench-cap-bad-');
    const r = await seedScript('producer.js', [...args, '-d', '1', '--out', out]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toContain(line);
    expect(r.stderr).toContain(got);
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it.each([['0'], ['-1'], ['abc']])('rqbench local redis --node-cpus %s', async (v) => {
    const r = await rqbench(['local', 'redis', '--node-cpus', v]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim()).toBe(
      `rqbench: --node-cpus must be a number of cores from 0.01 to ${os.availableParallelism()}, such as 0.5 (got ${JSON.stringify(v)})`,
    );
  });

  it.each([['0'], ['-0.5'], ['"half"'], ['2000']])('a spec with topology.local.cpus: %s', async (v) => {
    const dir = spec(`topology: { local: { cpus: ${v} } }\nflags: { q: 1000 }\nsteps: [{ name: one }]\n`);
    const r = await rqbench(['experiment', 'run', '--allow-dirty', dir]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toContain(`${path.join(dir, 'experiment.yaml')}: topology.local.cpus must be a number of cores from 0.01 to 1024`);
    expect(fs.readdirSync(dir)).toEqual(['experiment.yaml']);
  });

  it('a spec whose cap is more than this machine has: refused by run (report reads it anywhere)', async () => {
    const dir = spec(`topology: { local: { cpus: ${os.availableParallelism() + 1} } }\nflags: { q: 1000 }\nsteps: [{ name: one }]\n`);
    const r = await rqbench(['experiment', 'run', '--allow-dirty', dir]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr).toContain(
      `topology.local.cpus must be a number of cores from 0.01 to ${os.availableParallelism()}, such as 0.5 on this machine`,
    );
    expect(fs.readdirSync(dir)).toEqual(['experiment.yaml']);
  });
});

describe('a cgroup root with no cpu controller: one line saying why, exit 2, no server started, nothing left', () => {
  const line = 'cannot cap CPU: no cgroup CPU controller under';
  /** An empty directory as the cgroup root, for the command about to run. */
  const noController = () => {
    const root = tempDir('rqbench-no-cgroup-');
    vi.stubEnv('RQBENCH_CGROUP_ROOT', root);
    return root;
  };

  it('producer --local --node-cpus', async () => {
    noController();
    const out = tempDir('rqbench-cap-perm-');
    const r = await seedScript('producer.js', ['--local', '--node-cpus', '0.5', '-d', '1', '--out', out]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toContain(`producer.js: --node-cpus: ${line}`);
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it('rqbench local redis --node-cpus', async () => {
    noController();
    const r = await rqbench(['local', 'redis', '--node-cpus', '0.5']);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toContain(`rqbench: --node-cpus: ${line}`);
  });

  it('a spec with topology.local.cpus', async () => {
    noController();
    const dir = spec('topology: { local: { cpus: 0.5 } }\nflags: { q: 1000 }\nsteps: [{ name: one }]\n');
    const r = await rqbench(['experiment', 'run', '--allow-dirty', dir]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toContain(`${path.join(dir, 'experiment.yaml')}: topology.local.cpus: ${line}`);
    expect(fs.readdirSync(dir)).toEqual(['experiment.yaml']);
  });

  it('startRedis({ cpus }) rejects before it starts anything', async () => {
    noController();
    const parent = tempDir('rqbench-cap-start-');
    await expect(startRedis({ cpus: 0.5, dir: parent })).rejects.toMatchObject({ code: 'ECPUCAP', message: expect.stringContaining(line) });
    expect(fs.readdirSync(parent)).toEqual([]); // no node directory: no server was started
  });
});
