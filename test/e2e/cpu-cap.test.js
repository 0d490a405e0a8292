// CPU caps on local Redis nodes (src/local/cpu-cap.js through local-redis.js, --node-cpus and a
// spec's topology.local.cpus): real redis-server processes in real cgroups, their CPU read from
// /proc; a read-only cgroup root refused in one line, exit 2, nothing left (bad values and a root
// without the controller: test/unit/cpu-cap-flags.test.js).
// Capping needs root and the cgroup CPU controller: without them those tests are skipped with a
// message (under CI=true they fail instead).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { capProcess, cpuCapProblem, pidsIn, PERIOD_US } from '../../src/local/cpu-cap.js';
import { isAlive, terminate } from '../../src/local/process.js';
import { loadSpec } from '../../src/experiments/spec.js';
import { CLI, PRODUCER, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { rqbench, seedScript } from '../helpers/in-process.js';

const SLOW = { timeout: 60_000 };
const capWhy = cpuCapProblem();
if (capWhy) {
  if (process.env.CI === 'true') throw new Error(`cpu-cap tests need to cap CPU: ${capWhy}`);
  process.stderr.write(`\nSKIPPED the capped-server tests: ${capWhy}\n`);
}

/** Everything a test started, stopped even when it fails. */
const running = new Set();
async function start(opts) {
  const local = await startRedis(opts);
  running.add(local);
  return local;
}
afterAll(async () => {
  await Promise.all([...running].map((l) => l.stop()));
  removeTempDirs();
}, 30_000);

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-600)}`;
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString()) || 100;

/** CPU seconds (user + system, all threads) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime, stime (fields 14 and 15)
}

/** A Lua busy loop: the server burns CPU, the client (this test) next to none. */
const BUSY = 'local x = 0 for i = 1, tonumber(ARGV[1]) do x = x + i end return x';

/**
 * Keeps a node busy with BUSY scripts (two in flight, so it never waits for us) for `seconds`,
 * and returns the cores it used over that window.
 * @param {{ port: number, pid: number }} node
 */
async function busyCores(node, seconds = 3) {
  const client = new Redis({ host: '127.0.0.1', port: node.port, maxRetriesPerRequest: 1 });
  let stop = false;
  const loops = [0, 1].map(async () => {
    while (!stop) await client.eval(BUSY, 0, 300_000);
  });
  try {
    await new Promise((r) => setTimeout(r, 300)); // under way before the window opens
    const cpu0 = cpuSeconds(node.pid);
    const wall0 = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    return (cpuSeconds(node.pid) - cpu0) / ((performance.now() - wall0) / 1000);
  } finally {
    stop = true;
    await Promise.allSettled(loops);
    client.disconnect();
  }
}

/** The cpu controller's group of a process (v1 "N:cpu:/path", v2 "0::/path"). */
function cpuGroupOf(pid) {
  const lines = fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n');
  const line = lines.find((l) => l.split(':')[1]?.split(',').includes('cpu')) ?? lines.find((l) => l.startsWith('0::'));
  return line?.split(':').slice(2).join(':');
}

/** The cap as the group's files say it: [quota µs, period µs]. */
function limitsOf(group) {
  const max = path.join(group, 'cpu.max');
  if (fs.existsSync(max)) return fs.readFileSync(max, 'utf8').trim().split(' ').map(Number);
  return ['cpu.cfs_quota_us', 'cpu.cfs_period_us'].map((f) => Number(fs.readFileSync(path.join(group, f), 'utf8')));
}

describe.skipIf(!!capWhy)(`capped local servers${capWhy ? ` (SKIPPED: ${capWhy})` : ''}`, () => {
  it('a node capped at 0.25 of a core stays there under a CPU-heavy load; an uncapped one does not', SLOW, async () => {
    // one at a time: the machine has 2 cores, and they are shared
    const capped = await start({ cpus: 0.25 });
    const cappedCores = await busyCores(capped.nodes[0]);
    await capped.stop();
    // the uncapped one shows what a core free of the cap gives; other work on the shared machine
    // can take some of it for a while, so it gets up to three windows to show it
    const free = await start({});
    const freeTries = [];
    while (freeTries.length < 3 && !(Math.max(...freeTries) >= 0.5)) freeTries.push(await busyCores(free.nodes[0]));
    const freeCores = Math.max(...freeTries);
    await free.stop();
    const shown = (x) => x.toFixed(3);
    process.stderr.write(
      `\ncpu-cap: busy Lua loop, 3 s windows: capped at 0.25 → ${shown(cappedCores)} cores, uncapped → ${freeTries.map(shown).join(', ')} cores\n`,
    );
    expect(cappedCores).toBeGreaterThan(0.1); // it did run
    expect(cappedCores).toBeLessThanOrEqual(0.35);
    expect(freeCores).toBeGreaterThanOrEqual(0.5);
  });

  it('every node (master and replica) runs in a group of its own with the cap; stop removes the groups', SLOW, async () => {
    const local = await start({ replicas: 1, cpus: 0.5 });
    expect(local.cpus).toBe(0.5);
    expect(local.nodes).toHaveLength(2);
    const groups = local.nodes.map((n) => n.cgroup);
    expect(new Set(groups).size).toBe(2);
    for (const node of local.nodes) {
      expect(node.cpus).toBe(0.5);
      expect(path.basename(node.cgroup)).toBe(`rqbench-${process.pid}-${node.port}`);
      expect(pidsIn(node.cgroup)).toContain(node.pid);
      // every thread moved with the process
      for (const tid of fs.readdirSync(`/proc/${node.pid}/task`)) expect(cpuGroupOf(tid)).toBe(`/${path.basename(node.cgroup)}`);
      expect(limitsOf(node.cgroup)).toEqual([PERIOD_US / 2, PERIOD_US]);
    }
    await local.stop();
    running.delete(local);
    for (const node of local.nodes) expect(isAlive(node.pid)).toBe(false);
    for (const g of groups) expect(fs.existsSync(g), g).toBe(false);
  });

  it('a cluster: its nodes and the nodes added later (add-shard) are capped, and all groups go at stop', SLOW, async () => {
    const local = await start({ cluster: true, masters: 3, replicas: 0, cpus: 0.5 });
    const added = await /** @type {NonNullable<typeof local.addNodes>} */ (local.addNodes)(1);
    expect(local.nodes).toHaveLength(4);
    expect(added[0].cpus).toBe(0.5);
    for (const node of local.nodes) expect(pidsIn(/** @type {string} */ (node.cgroup))).toEqual([node.pid]);
    await local.stop();
    running.delete(local);
    for (const node of local.nodes) expect(fs.existsSync(/** @type {string} */ (node.cgroup))).toBe(false);
  });

  it('capProcess: a cap under 0.1 of a core gets a longer period (the kernel wants a quota of 1 ms or more)', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = /** @type {number} */ (child.pid);
    const cap = await capProcess(pid, { cpus: 0.05, name: `rqbench-${process.pid}-test-sleep` });
    try {
      expect(limitsOf(cap.dir)).toEqual([1000, 20_000]);
      expect(pidsIn(cap.dir)).toEqual([pid]);
      // still busy: the group stays, and says so
      expect(await Promise.race([cap.release(), new Promise((r) => setTimeout(() => r('waiting'), 300))])).toBe('waiting');
    } finally {
      await terminate(pid, { graceMs: 1000 });
    }
    expect(await cap.release()).toBe(true);
    expect(fs.existsSync(cap.dir)).toBe(false);
  });

  it('a spec with topology.local.cpus: the runner starts capped nodes and RESULTS.md names the cap', SLOW, async () => {
    const dir = spec(`topology: { local: { cpus: 0.5 } }\nrepeat: 1\nduration: 2\nwarmup: 1\nflags: { q: 1000 }\nsteps: [{ name: one }]\n`);
    expect(loadSpec(dir).topology).toMatchObject({ local: { cpus: 0.5 }, label: 'local standalone, 0.5 core per node' });
    const r = await runNode([CLI, 'experiment', 'run', '--allow-dirty', dir], { timeoutMs: 60_000 });
    expect(r.code, why(r)).toBe(0);
    expect(r.stderr).toMatch(
      /started a local standalone, 0\.5 core per node at redis:\/\/127\.0\.0\.1:\d+, each node capped at 0\.5 of a core/,
    );
    expect(fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8')).toContain('0.5 core per node');
    expect(leftGroups(r.pid)).toEqual([]);
  });

  it('--local --node-cpus: the run says the cap in its description and records it in the manifest', SLOW, async () => {
    const out = tempDir('rqbench-cap-');
    const r = await runNode([PRODUCER, '--local', '--node-cpus', '0.5', '-q', '1000', '-d', '2', '--warmup', '1', '--out', out, '--quiet']);
    expect(r.code, why(r)).toBe(0);
    const [run] = fs.readdirSync(out);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, run, 'manifest.json'), 'utf8'));
    expect(manifest.flags.nodeCpus).toBe(0.5);
    expect(manifest.description).toContain('(local, started for this run, each node capped at 0.5 of a core)');
    expect(fs.readFileSync(path.join(out, run, 'summary.md'), 'utf8')).toContain('each node capped at 0.5 of a core');
    expect(leftGroups(r.pid)).toEqual([]);
  });
});

/**
 * The groups a finished rqbench process left behind (they are named for its PID).
 * @param {number} pid
 */
function leftGroups(pid) {
  const root = fs.existsSync('/sys/fs/cgroup/cgroup.controllers') ? '/sys/fs/cgroup' : '/sys/fs/cgroup/cpu';
  return fs.readdirSync(root).filter((n) => n.startsWith(`rqbench-${pid}-`));
}

/** An experiment directory holding `body` (title and seed added). */
function spec(body) {
  const dir = path.join(tempDir('rqbench-cap-exp-'), 'cap');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'experiment.yaml'), `title: cap test\nseed: "none"\n${body}`);
  return dir;
}

/**
 * A tmpfs laid out as a cgroup v1 root with the cpu controller, then made read-only: the kernel
 * says EROFS as it would to a user without rights. null (and why) when mounting is not allowed.
 */
function readOnlyCgroupRoot() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-ro-cgroup-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    fs.rmdirSync(dir);
    return { dir: null, why: 'this machine does not allow mounting a tmpfs (needs root)' };
  }
  fs.mkdirSync(path.join(dir, 'cpu'));
  for (const f of ['cpu.cfs_quota_us', 'cpu.cfs_period_us', 'cgroup.procs']) fs.writeFileSync(path.join(dir, 'cpu', f), '');
  execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'ignore' });
  return { dir, why: null };
}

describe('a cgroup root that cannot work: one line saying why, exit 2, no server started, nothing left', () => {
  const ro = readOnlyCgroupRoot();
  if (ro.why) process.stderr.write(`\nSKIPPED the read-only cgroup root: ${ro.why}\n`);
  afterAll(() => {
    if (!ro.dir) return;
    execFileSync('umount', [ro.dir]);
    fs.rmdirSync(ro.dir);
  });
  // the commands run in this process, under the root each case gives them (a root with no cpu
  // controller needs no mount: test/unit/cpu-cap-flags.test.js)
  afterEach(() => vi.unstubAllEnvs());
  const roots = ro.dir
    ? [
        [
          'a read-only file system',
          ro.dir,
          `cannot cap CPU: ${path.join(ro.dir, 'cpu')} is not writable (EROFS; needs root or a delegated cgroup)`,
        ],
      ]
    : [];

  it.each(roots)('%s: producer --local --node-cpus', async (_what, root, line) => {
    const out = tempDir('rqbench-cap-perm-');
    vi.stubEnv('RQBENCH_CGROUP_ROOT', root);
    const r = await seedScript('producer.js', ['--local', '--node-cpus', '0.5', '-d', '1', '--out', out]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toContain(`producer.js: --node-cpus: ${line}`);
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it.each(roots)('%s: rqbench local redis --node-cpus', async (_what, root, line) => {
    vi.stubEnv('RQBENCH_CGROUP_ROOT', root);
    const r = await rqbench(['local', 'redis', '--node-cpus', '0.5']);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toContain(`rqbench: --node-cpus: ${line}`);
  });

  it.each(roots)('%s: a spec with topology.local.cpus', async (_what, root, line) => {
    const dir = spec('topology: { local: { cpus: 0.5 } }\nflags: { q: 1000 }\nsteps: [{ name: one }]\n');
    vi.stubEnv('RQBENCH_CGROUP_ROOT', root);
    const r = await rqbench(['experiment', 'run', '--allow-dirty', dir]);
    expect(r.code, why(r)).toBe(2);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toContain(`${path.join(dir, 'experiment.yaml')}: topology.local.cpus: ${line}`);
    expect(fs.readdirSync(dir)).toEqual(['experiment.yaml']);
  });

  it.each(roots)('%s: startRedis({ cpus }) rejects before it starts anything', async (_what, root, line) => {
    const parent = tempDir('rqbench-cap-start-');
    vi.stubEnv('RQBENCH_CGROUP_ROOT', root);
    await expect(startRedis({ cpus: 0.5, dir: parent })).rejects.toMatchObject({ code: 'ECPUCAP', message: expect.stringContaining(line) });
    expect(fs.readdirSync(parent)).toEqual([]); // no node directory: no server was started
  });
});
