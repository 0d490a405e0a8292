/**
 * The local servers the steps of a load or ops spec share, started once by the kind's start()
 * hook — a throwaway Redis shaped by topology.local, the SQS/SNS emulator (fauxqs, in this
 * process), the Pub/Sub emulator's JVM, moto's server — and the CPU each of them and the step's own rqbench
 * process used over a step, read from /proc around it: measured, never guessed. The runner, not
 * the step's CLI, starts them (`--local` would start them inside the CLI, where an in-process
 * emulator's CPU cannot be told from rqbench's).
 */
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { findRedisServer, startRedis } from '../../local/local-redis.js';
import { describeCap } from '../../local/cpu-cap.js';
import { CLK_TCK, readProcStat } from '../../local/process.js';

/**
 * @typedef {{ redis?: { cluster: boolean, masters: number, replicas: number, cpus: number|null }|null, sqs?: boolean, pubsub?: boolean, moto?: boolean }} Wanted
 * @typedef {{ at: number, redis: number|null, sqs: number|null, pubsub: number|null, moto: number|null, rqbench: number|null }} CpuMark
 *   CPU seconds so far of each server (null: not started here, or /proc unreadable) and of the
 *   runner's waited-for children (the step's CLI, once it has exited)
 * @typedef {{ wallS: number, redisPct: number|null, sqsEmulatorPct: number|null, pubsubEmulatorPct: number|null, motoPct: number|null, rqbenchPct: number|null }} StepCpu
 *   % of one core over the step
 * @typedef {object} Servers
 * @property {string|null} redisUrl
 * @property {string|null} redisVersion
 * @property {string|null} sqsEndpoint
 * @property {string|null} pubsubEndpoint
 * @property {string|null} motoEndpoint
 * @property {null} endpoint  (the contract's single endpoint: these kinds name each server instead)
 * @property {() => CpuMark} mark
 * @property {() => Promise<void>} stop
 */

/**
 * Starts what is wanted, in order; a failure stops what had started and is thrown.
 * @param {Wanted} wanted
 * @param {{ log: (line: string) => void, signal?: AbortSignal }} ctx
 * @returns {Promise<Servers>}
 */
export async function startServers(wanted, { log, signal }) {
  /** @type {Array<() => Promise<void>>} */
  const stops = [];
  let redisPids = /** @type {number[]} */ ([]);
  let pubsubPid = /** @type {number|null} */ (null);
  let motoPid = /** @type {number|null} */ (null);
  /** @type {Servers} */
  const s = {
    redisUrl: null,
    redisVersion: null,
    sqsEndpoint: null,
    pubsubEndpoint: null,
    motoEndpoint: null,
    endpoint: null,
    mark: () => ({
      at: performance.now(),
      redis: redisPids.length ? sumOrNull(redisPids.map((pid) => procCpuSeconds(pid))) : null,
      // fauxqs runs in this process: the runner's own CPU, which is the emulator's but for a few spawns
      sqs: s.sqsEndpoint ? ownCpuSeconds() : null,
      pubsub: pubsubPid ? procCpuSeconds(pubsubPid) : null,
      moto: motoPid ? procCpuSeconds(motoPid) : null,
      rqbench: procCpuSeconds('self', true),
    }),
    stop: async () => {
      for (const stop of stops.splice(0).reverse()) await stop().catch(() => {});
    },
  };
  const took = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
  try {
    if (wanted.redis) {
      const t0 = Date.now();
      const { cluster, masters, replicas, cpus } = wanted.redis;
      const redis = await startRedis({ cluster, masters, replicas, ...(cpus && { cpus }), signal });
      stops.push(() => redis.stop());
      redisPids = redis.nodes.map((n) => n.pid);
      s.redisUrl = redis.url;
      s.redisVersion = redisServerVersion();
      log(
        `rqbench experiment: started a local Redis (${redis.nodes.length} node${redis.nodes.length > 1 ? 's' : ''}${cpus ? `, ${describeCap(cpus)}` : ''}) at ${redis.url} (${took(t0)})`,
      );
    }
    if (wanted.sqs && !signal?.aborted) {
      const t0 = Date.now();
      const { startSqs } = await import('../../local/sqs-emulator.js');
      const sqs = await startSqs();
      stops.push(() => sqs.stop());
      s.sqsEndpoint = sqs.endpoint;
      log(`rqbench experiment: started the SQS/SNS emulator (in this process) at ${sqs.endpoint} (${took(t0)})`);
    }
    if (wanted.pubsub && !signal?.aborted) {
      const t0 = Date.now();
      const { startPubsub } = await import('../../local/pubsub-emulator.js');
      const ps = await startPubsub();
      stops.push(() => ps.stop());
      pubsubPid = ps.pid;
      s.pubsubEndpoint = ps.endpoint;
      log(`rqbench experiment: started the Pub/Sub emulator (pid ${ps.pid}) at ${ps.endpoint} (${took(t0)})`);
    }
    if (wanted.moto && !signal?.aborted) {
      const t0 = Date.now();
      const { startMoto } = await import('../../local/moto-emulator.js');
      const moto = await startMoto();
      stops.push(() => moto.stop());
      motoPid = moto.pid;
      s.motoEndpoint = moto.endpoint;
      log(`rqbench experiment: started moto's server (pid ${moto.pid}) at ${moto.endpoint} (${took(t0)})`);
    }
  } catch (e) {
    await s.stop();
    // stopped while starting (Ctrl-C): the runner sees it and runs no step
    if (signal?.aborted) return s;
    throw e;
  }
  return s;
}

/**
 * CPU over a step, % of one core, from two marks.
 * @param {CpuMark} a before
 * @param {CpuMark} b after
 * @returns {StepCpu}
 */
export function cpuBetween(a, b) {
  const wallS = (b.at - a.at) / 1000;
  const pct = (k) => (a[k] !== null && b[k] !== null && wallS > 0 ? Math.round(((b[k] - a[k]) / wallS) * 1000) / 10 : null);
  return {
    wallS: Math.round(wallS * 10) / 10,
    redisPct: pct('redis'),
    sqsEmulatorPct: pct('sqs'),
    pubsubEmulatorPct: pct('pubsub'),
    motoPct: pct('moto'),
    rqbenchPct: pct('rqbench'),
  };
}

/** The local redis-server's version, as `redis-server --version` gives it, or null. */
function redisServerVersion() {
  try {
    const bin = findRedisServer();
    return bin ? (/v=([\d.]+)/.exec(execFileSync(bin, ['--version'], { encoding: 'utf8' }))?.[1] ?? null) : null;
  } catch {
    return null;
  }
}

export function ownCpuSeconds() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** @param {Array<number|null>} xs */
function sumOrNull(xs) {
  return xs.some((x) => x === null) ? null : xs.reduce((t, x) => t + /** @type {number} */ (x), 0);
}

/**
 * CPU seconds of a process (utime + stime, every thread), or of its waited-for children, from /proc.
 * @param {number|'self'} pid
 * @param {boolean} [children] cutime + cstime instead
 * @returns {number|null} null where /proc cannot be read
 */
export function procCpuSeconds(pid, children = false) {
  const st = readProcStat(pid);
  if (!st) return null;
  return (children ? st.cutime + st.cstime : st.utime + st.stime) / CLK_TCK;
}
