/**
 * Noise sentinels: how busy the host was *outside* the run, each second — so a figure measured
 * while something else took the CPU says so. From /proc: the host's busy CPU (/proc/stat, every
 * core), less the run's own (its process tree, from the root a runner names in RQBENCH_RUN_ROOT,
 * else this process, and every redis-server on the host: the servers under test, the run's own,
 * its runner's or the one it targets), with CPU steal (a VM's hypervisor taking time: /proc/stat's
 * steal) and the load average. Linux only: elsewhere the sentinel records that it could not look.
 */
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { CLK_TCK, readProcStat } from '../local/process.js';
/** Outside CPU, % of one core averaged over the run, at or above which the run is marked noisy. */
export const NOISY_OUTSIDE_PCT = 25;
/** Processes counted as the run's own wherever they came from: the servers under test. */
const SERVER_NAMES = new Set(['redis-server']);

/**
 * @typedef {{ t: number, outsidePct: number, ownPct: number, hostPct: number, stealPct: number, load1: number }} NoiseSecond
 *   one second: CPU as % of one core (host, the run's own, outside = host − own), steal as % of one core, the 1-minute load average
 * @typedef {object} NoiseRecord
 * @property {boolean} available   false where /proc could not be read (the figures are then null)
 * @property {number} thresholdPct outside CPU at which the run is noisy, % of one core
 * @property {number|null} outsidePct mean outside CPU over the run, % of one core
 * @property {number|null} outsideMaxPct the busiest second's
 * @property {number|null} stealPct mean CPU steal, % of one core
 * @property {number|null} load1Max the highest 1-minute load average seen
 * @property {number} cores
 * @property {boolean} noisy       outsidePct at or above thresholdPct
 * @property {NoiseSecond[]} seconds
 */

export class NoiseSentinel {
  /**
   * @param {{ root?: number, thresholdPct?: number, intervalMs?: number }} [o] root: the pid whose
   *   process tree is the run's own (default RQBENCH_RUN_ROOT, else this process)
   */
  constructor({ root = Number(process.env.RQBENCH_RUN_ROOT) || process.pid, thresholdPct = NOISY_OUTSIDE_PCT, intervalMs = 1000 } = {}) {
    this.root = root;
    this.thresholdPct = thresholdPct;
    this.intervalMs = intervalMs;
    /** @type {Array<NoiseSecond & { s: number }>} s: the interval's length, seconds */
    this.seconds = [];
    this.cores = os.cpus().length;
    this.available = true;
    /** the run so far: seconds, and ticks of the host, the run's own and steal */
    this.total = { s: 0, host: 0, own: 0, steal: 0 };
    this.last = this.#mark();
    /** @type {NodeJS.Timeout|null} */
    this.timer = null;
  }

  /** Samples every interval until stop(); the timer never keeps the process alive. */
  start() {
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  /** One sample: the interval since the last. */
  sample() {
    const now = this.#mark();
    if (now && this.last) {
      const d = between(this.last, now);
      this.total.s += d.s;
      this.total.host += d.host;
      this.total.own += d.own;
      this.total.steal += d.steal;
      this.seconds.push(secondOf(d, now));
    }
    this.last = now;
  }

  /**
   * Stops sampling and sums the run up (the last part-second included).
   * @returns {NoiseRecord}
   */
  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sample();
    const { s, host, own, steal } = this.total;
    const ok = this.available && s > 0;
    const pct = (ticks) => round((ticks / CLK_TCK / s) * 100);
    const outsidePct = ok ? pct(Math.max(0, host - own)) : null;
    const full = this.seconds.filter((x) => x.s >= 0.5);
    return {
      available: ok,
      thresholdPct: this.thresholdPct,
      outsidePct,
      outsideMaxPct: ok ? Math.max(outsidePct ?? 0, ...full.map((x) => x.outsidePct)) : null,
      stealPct: ok ? pct(steal) : null,
      load1Max: this.seconds.length ? Math.max(...this.seconds.map((x) => x.load1)) : null,
      cores: this.cores,
      noisy: outsidePct !== null && outsidePct >= this.thresholdPct,
      seconds: this.seconds.map(({ s: _s, ...rest }) => rest),
    };
  }

  /** @returns {Mark|null} */
  #mark() {
    try {
      return { at: performance.now(), ...hostTicks(), procs: ownProcs(this.root), load1: load1() };
    } catch {
      this.available = false;
      return null;
    }
  }
}

/**
 * @typedef {{ ppid: number, ticks: number }} Proc  ticks: utime + stime + cutime + cstime (its waited-for children's too)
 * @typedef {{ at: number, busy: number, steal: number, procs: Map<number, Proc>, load1: number }} Mark  the run's own processes, and ticks so far
 */

/**
 * Ticks over an interval: the host's, steal, and the run's own. A process's ticks include its
 * reaped children's, so a child that ends moves its ticks into its parent's and nothing is lost
 * or counted twice: own = what each process still there added, what each new one has, less what
 * an ended one had already counted when its parent (still there) takes it in.
 * @param {Mark} a @param {Mark} b
 */
function between(a, b) {
  let own = 0;
  for (const [pid, p] of b.procs) own += p.ticks - (a.procs.get(pid)?.ticks ?? 0);
  for (const [pid, p] of a.procs) if (!b.procs.has(pid) && b.procs.has(p.ppid)) own -= p.ticks;
  const host = b.busy - a.busy;
  return { s: (b.at - a.at) / 1000, host, own: Math.min(host, Math.max(0, own)), steal: b.steal - a.steal };
}

/** @param {ReturnType<typeof between>} d @param {Mark} m @returns {NoiseSecond & { s: number }} */
function secondOf(d, m) {
  const pct = (ticks) => (d.s > 0 ? round((ticks / CLK_TCK / d.s) * 100) : 0);
  return {
    t: Math.round(m.at),
    s: d.s,
    hostPct: pct(d.host),
    ownPct: pct(d.own),
    outsidePct: pct(d.host - d.own),
    stealPct: pct(d.steal),
    load1: m.load1,
  };
}

/** /proc/stat's first line: busy ticks of every core (steal included: time the host did not get) and steal alone. */
function hostTicks() {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
  const [user, nice, system, , , irq, softirq, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  return { busy: user + nice + system + irq + softirq + steal, steal };
}

/**
 * The run's own processes: the tree under root, and every server under test with its tree.
 * @param {number} root
 * @returns {Map<number, Proc>}
 */
function ownProcs(root) {
  /** @type {Array<Proc & { pid: number, comm: string }>} */
  const procs = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = readProcStat(name);
    if (!st) continue; // gone since the listing
    procs.push({ pid: Number(name), ppid: st.ppid, comm: st.comm, ticks: st.utime + st.stime + st.cutime + st.cstime });
  }
  /** @type {Map<number, typeof procs>} */
  const children = new Map();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  /** @type {Map<number, Proc>} */
  const own = new Map();
  const stack = procs.filter((p) => p.pid === root || SERVER_NAMES.has(p.comm));
  while (stack.length) {
    const p = /** @type {typeof procs[number]} */ (stack.pop());
    if (own.has(p.pid)) continue;
    own.set(p.pid, { ppid: p.ppid, ticks: p.ticks });
    stack.push(...(children.get(p.pid) ?? []));
  }
  return own;
}

function load1() {
  return Number(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

function round(x) {
  return Math.round(x * 10) / 10;
}
