/**
 * A CPU cap per local Redis node, to emulate a smaller instance (0.5 or 0.25 of a core) on this
 * machine: one cgroup per node with the CPU controller's bandwidth limit, the node's PID moved
 * into it, the group removed once the node has exited.
 *
 * cgroup v2 when <root>/cgroup.controllers lists `cpu` (the limit is `cpu.max`), else cgroup v1
 * at <root>/cpu (`cpu.cfs_period_us`, `cpu.cfs_quota_us`). Making groups needs root, or a
 * delegated cgroup named by RQBENCH_CGROUP_ROOT (which tests also use to point at a root that
 * cannot work). Everything here works on paths and PIDs it was given: nothing is looked up by name.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../usage-error.js';
import { sleep } from './process.js';

/**
 * The enforcement period. The kernel gives a group `quota` µs of CPU per period and throttles
 * it for the rest of the period once that is spent. At the default 100 ms, a node capped at 0.25
 * of a core runs 25 ms and then sits out 75 ms: a command arriving in that gap waits up to 75 ms,
 * and the latency percentiles would measure the throttle, not Redis. At 10 ms the longest stall
 * is 7.5 ms, nearer to how a hypervisor time-slices a fractional vCPU, and the per-period
 * accounting still costs next to nothing.
 */
export const PERIOD_US = 10_000;
/** The kernel refuses a quota under 1 ms (EINVAL): a smaller cap gets a longer period instead. */
const MIN_QUOTA_US = 1000;
/** The smallest cap accepted: 1 ms per 100 ms, still within the kernel's longest period (1 s). */
export const MIN_CPUS = 0.01;
/** How long a group may stay busy after its process was killed (the kernel lets go of it a moment later). */
const RELEASE_WAIT_MS = 2000;

/**
 * @typedef {{ version: 1|2, dir: string }} Controller dir: where the groups are made
 * @typedef {object} CpuCap
 * @property {string} dir the node's cgroup
 * @property {number} cpus
 * @property {number} periodUs
 * @property {number} quotaUs
 * @property {() => Promise<boolean>} release removes the group once its process has exited (false: still busy, left)
 * @property {(untilMs?: number) => boolean} releaseSync the same, blocking, waiting until untilMs at most (for a process 'exit' hook)
 */

/** @returns {number} the cores this process may use: a cap above them caps nothing */
export function maxCpus() {
  return os.availableParallelism();
}

/**
 * What a cap accepts, for usage errors ("--node-cpus must be …").
 * @param {number} [max]
 */
export function cpusAccepted(max = maxCpus()) {
  return `a number of cores from ${MIN_CPUS} to ${max}, such as 0.5`;
}

/**
 * @param {unknown} v
 * @param {number} [max] the upper bound (default: this machine's cores)
 * @returns {boolean} v is a cap this machine can hold
 */
export function validCpus(v, max = maxCpus()) {
  return typeof v === 'number' && Number.isFinite(v) && v >= MIN_CPUS && v <= max;
}

/** "each node capped at 0.5 of a core", for descriptions and summaries */
export function describeCap(cpus) {
  return `each node capped at ${cpus} of a core`;
}

/** @returns {string} where the cgroup file systems are mounted (RQBENCH_CGROUP_ROOT: a delegated cgroup, or a test's) */
export function cgroupRoot() {
  return process.env.RQBENCH_CGROUP_ROOT || '/sys/fs/cgroup';
}

/**
 * @param {string} root
 * @returns {Controller|null}
 */
function findController(root) {
  const listed = readText(path.join(root, 'cgroup.controllers'));
  if (listed !== null && listed.split(/\s+/).includes('cpu')) return { version: 2, dir: root };
  const v1 = path.join(root, 'cpu');
  if (fs.existsSync(path.join(v1, 'cpu.cfs_quota_us'))) return { version: 1, dir: v1 };
  return null;
}

/**
 * Why a cap cannot be set here, without changing anything (for the checks at a command's edge,
 * before any server starts), or null when it looks possible.
 * @param {string} [root]
 * @returns {string|null} e.g. "cannot cap CPU: /sys/fs/cgroup/cpu is not writable (…)"
 */
export function cpuCapProblem(root = cgroupRoot()) {
  const c = findController(root);
  if (!c)
    return `cannot cap CPU: no cgroup CPU controller under ${root} (neither cgroup v2 listing cpu nor v1 at ${path.join(root, 'cpu')})`;
  const mustWrite = [c.dir];
  if (c.version === 2 && !subtreeHasCpu(c.dir)) mustWrite.push(path.join(c.dir, 'cgroup.subtree_control'));
  for (const p of mustWrite) {
    try {
      fs.accessSync(p, fs.constants.W_OK);
    } catch (e) {
      return `cannot cap CPU: ${p} is not writable (${errCode(e)}; needs root or a delegated cgroup)`;
    }
  }
  return null;
}

let probes = 0;

/**
 * Makes a group with the cap and removes it again: whatever the kernel would refuse (a parent's
 * smaller limit, a controller that cannot be enabled) shows here, before any server starts.
 * @param {number} cpus
 * @param {string} [root]
 * @returns {Promise<void>}
 * @throws {CpuCapError}
 */
export async function probeCpuCap(cpus, root = cgroupRoot()) {
  // numbered: two starts in one process may probe at once
  const cap = await makeGroup(cpus, `rqbench-${process.pid}-probe-${++probes}`, root);
  await cap.release();
}

/**
 * Puts a running process (all its threads, and whatever it forks later) under a cap, in a group
 * of its own named `name`.
 * @param {number} pid
 * @param {{ cpus: number, name: string, root?: string }} opts
 * @returns {Promise<CpuCap>} release() it after the process has exited
 * @throws {CpuCapError} nothing is left behind
 */
export async function capProcess(pid, { cpus, name, root = cgroupRoot() }) {
  const cap = await makeGroup(cpus, name, root);
  try {
    // cgroup.procs takes a thread group: every thread of the server moves with it
    await fsp.writeFile(path.join(cap.dir, 'cgroup.procs'), String(pid));
  } catch (e) {
    await cap.release();
    throw new CpuCapError(`cannot cap CPU: cannot move PID ${pid} into ${cap.dir} (${errCode(e)})`);
  }
  return cap;
}

/**
 * @param {number} cpus
 * @param {string} name
 * @param {string} root
 * @returns {Promise<CpuCap>}
 */
async function makeGroup(cpus, name, root) {
  if (!validCpus(cpus)) throw new RangeError(`cpus must be ${cpusAccepted()} (got ${cpus})`);
  const problem = cpuCapProblem(root);
  if (problem) throw new CpuCapError(problem);
  const c = /** @type {Controller} */ (findController(root));
  const periodUs = Math.max(PERIOD_US, Math.ceil(MIN_QUOTA_US / cpus));
  const quotaUs = Math.max(MIN_QUOTA_US, Math.round(cpus * periodUs));
  const dir = path.join(c.dir, name);
  const step = async (what, fn) => {
    try {
      await fn();
    } catch (e) {
      throw new CpuCapError(`cannot cap CPU: cannot ${what} (${errCode(e)})`);
    }
  };
  // v2: the parent hands the cpu controller down only when its subtree_control says so
  if (c.version === 2 && !subtreeHasCpu(c.dir)) {
    await step(`enable cpu in ${path.join(c.dir, 'cgroup.subtree_control')}`, () =>
      fsp.writeFile(path.join(c.dir, 'cgroup.subtree_control'), '+cpu'),
    );
  }
  // a group of this name is a leftover of this very process (the name holds our PID): empty, it goes
  await fsp.rmdir(dir).catch(() => {});
  await step(`create ${dir}`, () => fsp.mkdir(dir));
  const cap = {
    dir,
    cpus,
    periodUs,
    quotaUs,
    release: () => removeGroup(dir),
    releaseSync: (untilMs) => removeGroupSync(dir, untilMs),
  };
  try {
    if (c.version === 2) {
      await step(`write ${path.join(dir, 'cpu.max')}`, () => fsp.writeFile(path.join(dir, 'cpu.max'), `${quotaUs} ${periodUs}`));
    } else {
      // the period first: the quota is checked against it
      await step(`write ${path.join(dir, 'cpu.cfs_period_us')}`, () =>
        fsp.writeFile(path.join(dir, 'cpu.cfs_period_us'), String(periodUs)),
      );
      await step(`write ${path.join(dir, 'cpu.cfs_quota_us')}`, () => fsp.writeFile(path.join(dir, 'cpu.cfs_quota_us'), String(quotaUs)));
    }
  } catch (e) {
    await cap.release();
    throw e;
  }
  return cap;
}

/**
 * rmdir of a group (its files go with it). A group is busy while a process in it has not been
 * reaped: retried for a while, then left (and said by the result), never forced.
 * @param {string} dir
 * @returns {Promise<boolean>} true when the group is gone
 */
async function removeGroup(dir) {
  const until = Date.now() + RELEASE_WAIT_MS;
  for (;;) {
    try {
      await fsp.rmdir(dir);
      return true;
    } catch (e) {
      if (errCode(e) === 'ENOENT') return true;
      if (errCode(e) !== 'EBUSY' || Date.now() >= until) return false;
    }
    await sleep(20);
  }
}

/**
 * removeGroup, blocking: only for a process 'exit' hook, where nothing asynchronous runs.
 * @param {string} dir
 * @param {number} [until] epoch ms to give up at
 */
function removeGroupSync(dir, until = Date.now() + RELEASE_WAIT_MS) {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      fs.rmdirSync(dir);
      return true;
    } catch (e) {
      if (errCode(e) === 'ENOENT') return true;
      if (errCode(e) !== 'EBUSY' || Date.now() >= until) return false;
    }
    Atomics.wait(pause, 0, 0, 20);
  }
}

/**
 * The PIDs in a group (for checks and tests).
 * @param {string} dir
 * @returns {number[]}
 */
export function pidsIn(dir) {
  return (readText(path.join(dir, 'cgroup.procs')) ?? '').split('\n').filter(Boolean).map(Number);
}

/** The cap could not be set: bad input to the run (exit 2), said in one line. */
export class CpuCapError extends UsageError {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.code = 'ECPUCAP';
  }
}

function subtreeHasCpu(dir) {
  return (readText(path.join(dir, 'cgroup.subtree_control')) ?? '').split(/\s+/).includes('cpu');
}

/** @returns {string|null} a file's text, or null when it cannot be read */
function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** @param {unknown} e */
function errCode(e) {
  return /** @type {NodeJS.ErrnoException} */ (e)?.code ?? String(/** @type {Error} */ (e)?.message ?? e);
}
