/**
 * --count-instructions: every local Redis node runs under Valgrind's callgrind, and a run's
 * window is counted: callgrind_control --zero at its start, --dump at its end, the dump read
 * and split by where the instructions went (callgrind-split.js). Before the workload, the same
 * is done over a few idle seconds, so that Redis's idle cost over the window can be taken out.
 * /proc/<pid>/io is read at both ends of each: the system calls and bytes the count leaves to
 * the kernel. The PID is Valgrind's process, which is redis-server's (Valgrind runs its guest in
 * its own process).
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { findExecutable } from './local-redis.js';
import { callsTo, parseCallgrind } from './callgrind-file.js';
import { splitProfile } from './callgrind-split.js';
import { fixedSeedsLibrary } from './fixed-seeds.js';
import { CATCH_UP_MS, caughtUp, masterOffsets } from './replica-catch-up.js';

/** A cluster under Valgrind answers its peers 50-100x slower than a native one: 2 s would fail nodes over. */
export const VALGRIND_NODE_TIMEOUT_MS = 60_000;
/**
 * A script under Valgrind runs 50-100x longer: a chunk's store-items.lua that takes 60 ms natively
 * takes seconds, past Redis's busy-script threshold (5 s), and every other client's command then
 * gets BUSY. The counted nodes wait this long before answering BUSY (lua-time-limit, the name
 * Redis 6 and 7 both know).
 */
export const VALGRIND_BUSY_SCRIPT_MS = 600_000;
/** Valgrind takes a second or two to start each node; a cluster's creation is slower too. */
export const VALGRIND_READY_MS = 180_000;
export const VALGRIND_HINT = 'valgrind not found: install it with "apt-get install -y valgrind" (Debian/Ubuntu)';

/**
 * How each node is started: redis-server's command line behind this one. Every dump is named
 * callgrind.out.<pid>[.<n>] in the node's own directory (a fork, as for a replica's sync,
 * writes a file of its own). --dump-instr=no: per function is all the split needs.
 * Redis's seeds are fixed (fixed-seeds.js) where this machine can build the library that does it, and
 * jemalloc's time-based purging is off.
 * @returns {{ command: string, args: string[], env: Record<string, string>, seeds: string }|null} null when Valgrind
 *   is not installed; seeds says whether the seeds were fixed, and if not why
 */
export function callgrindTool() {
  const valgrind = findExecutable('valgrind');
  if (!valgrind || !findExecutable('callgrind_control')) return null;
  const lib = fixedSeedsLibrary();
  return {
    command: valgrind,
    args: ['--tool=callgrind', '--vgdb=yes', '--dump-instr=no', '--callgrind-out-file=callgrind.out.%p'],
    env: {
      ...(lib.file && { LD_PRELOAD: lib.file }),
      // jemalloc gives unused pages back on a clock (decay), and empties its thread cache's idle bins
      // every 64 KiB allocated (tcache GC), which between two sends of a dilated run is the sampler's
      // allocations, by the second: either way the next send finds its memory gone and pays the slow
      // path (3x as many slow allocations in one run of three). Neither, and the count follows the items.
      MALLOC_CONF: 'dirty_decay_ms:-1,muzzy_decay_ms:-1,tcache_gc_incr_bytes:1099511627776',
    },
    seeds: lib.file ? 'fixed' : `Redis's own (${lib.why})`,
  };
}

/**
 * @typedef {{ syscr: number, syscw: number, rchar: number, wchar: number }} ProcIo
 * @typedef {{ wallMs: number, ir: number, cronRuns: number, split: Record<string, number>, io: ProcIo|null }} Counted
 * one stretch counted on one node: its wall time, the instructions, the cron's runs (serverCron calls), where the
 * instructions went, the kernel's part
 * @typedef {{ addr: string, role: 'master'|'replica', shard: number, pid: number, idle: Counted|null,
 *   window: Counted|null, seeds: string, error?: string }} NodeCount
 * seeds: 'fixed' (fixed-seeds.js), or Redis's own and why
 */

/** The counter of one run's local nodes. */
export class InstructionCounter {
  /**
   * @param {import('./local-redis.js').LocalRedisNode[]} nodes as started (masters first)
   * @param {string} [seeds] how the nodes were seeded (callgrindTool().seeds)
   */
  constructor(nodes, seeds = "Redis's own") {
    const masters = nodes.filter((n) => n.role === 'master');
    /** @type {NodeCount[]} */
    this.nodes = nodes.map((n) => ({
      addr: `${n.host}:${n.port}`,
      role: n.role,
      // numbered from 1, as the CPU table numbers them; a replica is in its master's shard
      shard:
        Math.max(
          0,
          masters.findIndex((m) => m.port === (n.role === 'master' ? n.port : n.masterPort)),
        ) + 1,
      pid: n.pid,
      idle: null,
      window: null,
      seeds,
    }));
    /** @type {{ dirs: string[], marks: Array<{ atMs: number, io: Array<ProcIo|null> }> }} */
    this.open = { dirs: nodes.map((n) => n.dir), marks: [] };
    /** @type {Promise<void>|null} */
    this.windowStart = null;
    /** @type {Promise<void>|null} */
    this.windowEnd = null;
    this.idleMs = 0;
    /** @type {Map<string, string>} name in the run directory → the dump, while the node's directory lasts */
    this.files = new Map();
  }

  /**
   * Counts `seconds` of Redis doing nothing (before the workload), the idle rate the window subtracts.
   * @param {number} seconds
   */
  async idle(seconds) {
    await this.#zero();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    await this.#dump('idle');
    this.idleMs = this.nodes[0]?.idle?.wallMs ?? 0;
  }

  /** The window starts (after warm-up): counting from zero. Called once; later calls are ignored. */
  start() {
    this.windowStart ??= this.#zero();
    return this.windowStart;
  }

  /** The window ends: the count is dumped and read. Called once; a call before start() counts nothing. */
  end() {
    if (!this.windowStart) return Promise.resolve();
    this.windowEnd ??= this.windowStart.then(() => this.#dump('window'));
    return this.windowEnd;
  }

  /**
   * Every node's idle and window counts, once the window's dump is read; the dumps themselves are
   * copied into `keepIn`/callgrind/ (<addr>.idle.out, <addr>.window.out), for callgrind_annotate.
   * @param {string} [keepIn] the run directory
   * @returns {Promise<NodeCount[]>}
   */
  async result(keepIn) {
    await this.end();
    if (keepIn && this.files.size) {
      const dir = path.join(keepIn, 'callgrind');
      await fsp.mkdir(dir, { recursive: true });
      for (const [name, file] of this.files) await fsp.copyFile(file, path.join(dir, name)).catch(() => {});
    }
    return this.nodes;
  }

  async #zero() {
    const t = Date.now();
    // a node that cannot be zeroed is said in the summary (its dump would count from its start), not thrown from a timer
    await Promise.all(this.nodes.map((n) => control(n, '--zero').catch((e) => (n.error = `zero: ${e.message}`))));
    // after the zero's own exchange with vgdb (a few reads of its pipe): those are not the workload's
    const io = await Promise.all(this.nodes.map((n) => readIo(n.pid)));
    this.open.marks.push({ atMs: (t + Date.now()) / 2, io });
  }

  /** @param {'idle'|'window'} what */
  async #dump(what) {
    const from = this.open.marks.at(-1);
    // a window's replicas end where they have applied what their masters had written by now (replica-catch-up.js)
    const offsets = what === 'window' && this.nodes.some((n) => n.role === 'replica') ? await masterOffsets(this.nodes) : null;
    const deadline = Date.now() + CATCH_UP_MS;
    await Promise.all(
      this.nodes.map(async (n, i) => {
        try {
          if (offsets && n.role === 'replica' && !(await caughtUp(n, offsets.get(n.shard), deadline)))
            n.error = `window: it had not applied its master's writes ${CATCH_UP_MS / 1000} s after the window's end; its count stops short of them`;
          const io = await readIo(n.pid);
          const t = Date.now();
          const before = await dumpFiles(this.open.dirs[i], n.pid);
          await control(n, '--dump');
          const file = (await dumpFiles(this.open.dirs[i], n.pid)).find((f) => !before.includes(f));
          if (!file) throw new Error(`no new callgrind dump in ${this.open.dirs[i]}`);
          this.files.set(`${n.addr.replace(':', '-')}.${what}.out`, file);
          const profile = parseCallgrind(await fsp.readFile(file, 'utf8'));
          n[what] = {
            wallMs: (t + Date.now()) / 2 - (from?.atMs ?? t),
            ir: profile.total,
            cronRuns: callsTo(profile, 'serverCron'),
            split: splitProfile(profile),
            io: ioDelta(from?.io[i] ?? null, io),
          };
        } catch (e) {
          n.error = `${what}: ${e.message}`;
        }
      }),
    );
  }
}

/**
 * callgrind_control <flag> <pid>: it reaches the process through vgdb, idle in epoll or busy.
 * @param {NodeCount} node
 * @param {string} flag
 */
function control(node, flag) {
  return new Promise((resolve, reject) => {
    execFile('callgrind_control', [flag, String(node.pid)], { timeout: 30_000 }, (err, stdout) => {
      if (err || !/OK/.test(stdout))
        reject(new Error(`callgrind_control ${flag} ${node.pid} (${node.addr}): ${err?.message ?? stdout.trim()}`));
      else resolve(undefined);
    });
  });
}

/**
 * The dumps of one process, oldest first: callgrind.out.<pid>.<n> (a dump on request) by n.
 * @param {string} dir
 * @param {number} pid
 */
async function dumpFiles(dir, pid) {
  const prefix = `callgrind.out.${pid}.`;
  const names = (await fsp.readdir(dir)).filter((f) => f.startsWith(prefix) && /^\d+$/.test(f.slice(prefix.length)));
  return names.sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length))).map((f) => path.join(dir, f));
}

/**
 * /proc/<pid>/io: read and write system calls and bytes (null where the kernel does not offer it).
 * @param {number} pid
 * @returns {Promise<ProcIo|null>}
 */
async function readIo(pid) {
  try {
    return parseProcIo(await fsp.readFile(`/proc/${pid}/io`, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * @param {string} text /proc/<pid>/io's content
 * @returns {ProcIo}
 */
export function parseProcIo(text) {
  const field = (k) => Number(new RegExp(`^${k}:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { syscr: field('syscr'), syscw: field('syscw'), rchar: field('rchar'), wchar: field('wchar') };
}

/**
 * @param {ProcIo|null} a
 * @param {ProcIo|null} b
 * @returns {ProcIo|null}
 */
function ioDelta(a, b) {
  if (!a || !b) return null;
  return { syscr: b.syscr - a.syscr, syscw: b.syscw - a.syscw, rchar: b.rchar - a.rchar, wchar: b.wchar - a.wchar };
}
