/**
 * `rqbench ops`: for each service, set up, then time each operation (connect, first call, warm
 * calls), then tear down — the teardown runs even when an operation failed, and when the run is
 * interrupted (Ctrl-C or SIGTERM stop the operation under way, then the teardown runs, then the
 * summary of the operations that finished is written, marked interrupted: exit 130 / 143). One
 * run directory, written as the run goes: manifest.json first, one .hlog per operation as it
 * finishes, summary.json and summary.md.
 */
import path from 'node:path';
import { RedisRouter } from '../../transports/redis-router.js';
import { connectionFrom, describeConnection, openPipe } from '../../transports/redis.js';
import { stats } from '../../measure/histogram.js';
import { HlogWriter } from '../../record/hlog.js';
import { signalExitCode } from '../../record/outcome.js';
import { withLocal } from '../../local/for-run.js';
import { redactString } from '../../record/redact.js';
import { round } from '../../record/numbers.js';
import { Run } from '../../harness/harness.js';
import { OPS_SLOT, OP_NOTES, REDIS_OPS, setupCommands, teardownCommands, timedCall } from './redis-ops.js';
import { timeOp } from './time-op.js';
import { latencyTable, OVERHEAD_HOW, overheadTable, phasesTable } from '../../runs/ops/ops-table.js';
import { opsDrivers } from '../../transports/ops-drivers.js';
import { writeErr } from '../../command-io.js';

/** @typedef {import('../../transports/queue-driver.js').QueueEmulator} QueueEmulator */

/**
 * Services `--only` accepts, in table order: Redis (no queue driver: rqbench's own pipe), then
 * every queue driver that has ops.
 * @returns {string[]}
 */
export function opsServices() {
  return ['redis', ...opsDrivers().map((d) => d.name)];
}

/**
 * @param {Readonly<Record<string, any>>} a the plan, checked and frozen at the command's edge (plans/ops-plan.js)
 * @returns {Promise<import('../../harness/harness.js').RunResult>}
 */
export function runOps(a) {
  const wants = (s) => a.only.includes(s);
  // --local starts Redis only when Redis is timed; the queue emulators below, only when asked for
  return withLocal({ ...a, local: a.local && wants('redis') }, (flags) =>
    withLocalQueues(a, async (q) => {
      const run = new Run({
        kind: 'ops',
        command: 'ops',
        a,
        leaveNote: 'no service had finished, and the teardown of the one under way did not run',
      });
      // a stop ends the operation under way; the teardown still runs
      const ac = new AbortController();
      run.on('stop', () => ac.abort());
      try {
        const conn = connectionFrom(flags);
        const name = `rqbench-ops-${process.pid}-${Date.now()}`;
        /** @type {Record<string, string>} */
        const targets = {};
        if (wants('redis')) targets.redis = `${describeConnection(conn)}${conn.cluster ? ' (cluster)' : ''}`;
        const drivers = opsDrivers().filter((d) => wants(d.name));
        /** where each driver's operations go: the emulator started for it, or what the flags name */
        const whereOf = new Map(
          drivers.map((d) => [
            d,
            /** @type {import('../../transports/queue-driver.js').QueueOps} */ (d.ops).where(a, q.get(d.emulator) ?? null),
          ]),
        );
        for (const d of drivers) targets[d.name] = d.ops.shown(whereOf.get(d));
        const t0 = Date.now();
        run.open({
          name: a.name || `ops-${a.only.join('-')}`,
          t0,
          facts: { targets },
          packages: ['ioredis'],
          description: `Latency of single operations (${a.only.join(', ')}), ${a.warmup} s warm-up and ${a.duration} s measured per operation.`,
        });
        const dir = /** @type {string} */ (run.dir);
        const services = [];
        /** @param {'SIGINT'|'SIGTERM'|false} interrupted */
        const summaryOf = (interrupted) => ({
          warmupS: a.warmup,
          durationS: a.duration,
          targets,
          interrupted,
          services: services.map((s) => ({
            service: s.service,
            error: s.error ?? null,
            ops: s.ops.map(({ hist, overheadHist, ...op }) => op),
          })),
        });
        const time = async (svc) => {
          if (run.stopping) return;
          const s = await timeService(svc, a, flags.quiet, ac.signal);
          services.push(s);
          writeHlogs(dir, t0, a.duration, s);
          // the services so far: what a run cut short by a second Ctrl-C still has
          const sofar = { ...summaryOf(false), incomplete: true };
          run.keep(sofar, renderOps(sofar));
        };
        if (wants('redis')) await time(await redisService(conn));
        for (const d of drivers) {
          if (run.stopping) break;
          // each driver loads its SDK only here, when asked for
          await time(await d.ops.open(whereOf.get(d), name));
        }
        const summary = summaryOf(run.interrupted);
        const failed = services.some((s) => s.error || s.ops.some((op) => op.error && !op.notEmulated));
        return run.save(summary, renderOps(summary), { exitCode: run.interrupted ? signalExitCode(run.interrupted) : failed ? 1 : 0 });
      } catch (e) {
        run.failed(e);
        throw e;
      } finally {
        run.close();
      }
    }),
  );
}

/**
 * The file an operation's warm calls are kept in: `redis-get.hlog`, `pubsub-publish.hlog`; their
 * client overhead, where measured, in `redis-get.overhead.hlog`.
 * @param {string} service as the table names it ('Redis', 'Pub/Sub')
 * @param {string} op 'GET', 'Publish'
 * @param {boolean} [overhead]
 */
export function opHlogName(service, op, overhead = false) {
  return `${service.toLowerCase().replace(/[^a-z0-9]+/g, '')}-${op.toLowerCase()}${overhead ? '.overhead' : ''}.hlog`;
}

/**
 * One .hlog per operation of a service, written once the service is done.
 * @param {string} dir
 * @param {number} t0
 * @param {number} durationS
 * @param {{ service: string, ops: Array<{ name: string, hist?: any, overheadHist?: any }> }} s
 */
function writeHlogs(dir, t0, durationS, s) {
  for (const op of s.ops) {
    for (const [h, overhead] of [
      [op.hist, false],
      [op.overheadHist, true],
    ]) {
      if (!h) continue;
      const file = opHlogName(s.service, op.name, overhead);
      const what = overhead ? "the client's overhead in each warm call (the call less its time on the wire)" : 'warm calls one at a time';
      const w = new HlogWriter(path.join(dir, file), {
        startTimeMs: t0,
        comment: `rqbench ops ${s.service} ${op.name}, microseconds, ${what}`,
      });
      w.writeInterval(h, { tag: overhead ? 'overhead' : 'warm', startSec: 0, endSec: durationS });
      w.close();
    }
  }
}

/**
 * With --local, the emulators the chosen services need and no flag points elsewhere (one for
 * services that share it: SQS and SNS share fauxqs), each stopped after the run.
 * @template T
 * @param {Record<string, any>} a
 * @param {(q: Map<QueueEmulator|undefined, { endpoint: string, region?: string }>) => Promise<T>} fn
 *   gets the emulators started, by the driver's emulator
 * @returns {Promise<T>}
 */
async function withLocalQueues(a, fn) {
  /** @type {Map<QueueEmulator|undefined, { endpoint: string, region?: string, stop: () => Promise<void> }>} */
  const started = new Map();
  const say = (line) => {
    if (!a.quiet) writeErr(`rqbench: ${line}\n`);
  };
  try {
    for (const d of opsDrivers()) {
      const emu = d.emulator;
      const pointed = a[/** @type {import('../../transports/queue-driver.js').QueueOps} */ (d.ops).endpointKey];
      if (!a.local || !emu || !a.only.includes(d.name) || pointed || started.has(emu)) continue;
      const s = await emu.start();
      started.set(emu, s);
      const how = [emu.tool, emu.inProcess ? 'in this process' : s.pid && `pid ${s.pid}`].filter(Boolean).join(', ');
      say(`started a local ${emu.label} emulator${how ? ` (${how})` : ''} at ${s.endpoint}`);
    }
    return await fn(started);
  } finally {
    for (const s of [...started.values()].reverse()) await s.stop();
  }
}

/** Redis: the node that serves the operations' slot; each operation on a fresh connection. */
async function redisService(conn) {
  const router = new RedisRouter(conn);
  await router.open();
  const addr = router.addrFor(OPS_SLOT);
  router.close();
  const cut = addr.lastIndexOf(':');
  const connect = () => openPipe(conn, addr.slice(0, cut), Number(addr.slice(cut + 1)));
  const admin = (cmds) => async () => {
    const pipe = await connect();
    try {
      for (const cmd of cmds) await pipe.call(cmd);
    } catch (e) {
      // without --cluster, a MOVED reply means the target is a node of a Redis Cluster whose
      // operations' slot another node serves: said as that, not as the bare reply
      if (!conn.cluster && /^MOVED /.test(e?.message ?? ''))
        throw new Error(
          `${describeConnection(conn)} answered ${e.message}: it is a node of a Redis Cluster, and this run spoke to it as a standalone server (run again with --cluster)`,
          { cause: e },
        );
      throw e;
    } finally {
      pipe.close();
    }
  };
  return {
    service: 'Redis',
    setup: admin(setupCommands()),
    teardown: admin(teardownCommands()),
    ops: REDIS_OPS.map((op) => ({
      name: op.name,
      what: OP_NOTES[op.name],
      open: async () => {
        const pipe = await connect();
        let overhead = null;
        return {
          call: async () => {
            overhead = await timedCall(pipe, op.args);
          },
          overhead: () => overhead,
          close: () => pipe.close(),
        };
      },
    })),
  };
}

/**
 * One service: setup, each operation timed, teardown whatever happened (an interrupt included).
 * @param {{ service: string, setup: () => Promise<void>, teardown: () => Promise<void>, ops: Array<{ name: string, what: string, open: () => Promise<import('./time-op.js').OpSession> }> }} svc
 */
async function timeService(svc, a, quiet, signal) {
  const out = { service: svc.service, ops: [] };
  try {
    await svc.setup();
    for (const op of svc.ops) {
      if (signal.aborted) break;
      if (!quiet) writeErr(`${svc.service} ${op.name}: ${a.warmup} s warm-up, ${a.duration} s measured…\n`);
      try {
        const r = await timeOp({ open: op.open, warmupMs: a.warmup * 1000, durationMs: a.duration * 1000, signal });
        // an operation cut short is not measured: it is left out, as the ones not started
        if (signal.aborted) break;
        out.ops.push({
          name: op.name,
          what: op.what,
          ...(r.detail && { detail: r.detail }),
          connectMs: round(r.connectMs, 3),
          firstMs: round(r.firstMs, 3),
          stats: stats(r.hist),
          overhead: r.overheadHist ? stats(r.overheadHist) : null,
          hist: r.hist,
          overheadHist: r.overheadHist,
        });
      } catch (e) {
        if (signal.aborted) break;
        // an operation the endpoint lacks is a row that says so, not a failure of the run
        out.ops.push({
          name: op.name,
          what: op.what,
          connectMs: null,
          firstMs: null,
          stats: null,
          error: redactString(e.message),
          ...(e.notEmulated && { notEmulated: true }),
        });
      }
    }
  } catch (e) {
    out.error = redactString(e.message);
  } finally {
    try {
      await svc.teardown();
    } catch (e) {
      out.error ??= `teardown: ${redactString(e.message)}`;
    }
  }
  return out;
}

/** summary.md: the seed's table, then connect / first / warm, then what each operation did. */
function renderOps(s) {
  const NAMES = { redis: 'Redis', ...Object.fromEntries(opsDrivers().map((d) => [d.name, d.ops?.service])) };
  const where = Object.entries(s.targets)
    .map(([k, v]) => `${NAMES[k]} at ${v}`)
    .join(', ');
  const out = ['# rqbench ops', ''];
  out.push(
    `Against ${where}; each operation on a fresh connection: connect, one first call, ${s.warmupS} s of warm-up calls (not recorded), then ${s.durationS} s of calls one after another, each timed from send to reply.`,
    '',
  );
  out.push(
    "The client's overhead in each warm call, as seed 003 defines it: the call less its time on the wire.",
    '',
    overheadTable(s.services),
    '',
    OVERHEAD_HOW,
    '',
  );
  out.push('Whole warm calls, from send to reply:', '', latencyTable(s.services), '');
  out.push(phasesTable(s.services), '');
  for (const svc of s.services) {
    for (const op of svc.ops)
      out.push(
        `- ${svc.service} ${op.name}: ${op.what}${op.detail ? `; ${op.detail}` : ''}${op.error ? ` — **${op.notEmulated ? 'not emulated' : 'failed'}**: ${op.error}` : ''}.`,
      );
    if (svc.error) out.push(`- ${svc.service}: **${svc.error}**.`);
  }
  if (s.interrupted)
    out.push(
      '',
      `**Interrupted** (${s.interrupted}): the operations above finished; the one under way was stopped and the rest did not run. Every service set up was torn down.`,
    );
  out.push('');
  return out.join('\n');
}
