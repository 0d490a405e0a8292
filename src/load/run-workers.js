/**
 * What producer and consumer runs share: start the workers on one schedule, merge their
 * seconds with the server's CPU on the same one-second grid, write the run directory as the
 * run goes, handle Ctrl-C (flush, mark interrupted; a second one leaves at once), and stop
 * early, saying why, when the target stops answering altogether or the disk fills up.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ChildPool } from './process-pool.js';
import { IntervalMerger } from '../measure/aggregate.js';
import { ServerSampler } from '../measure/server-sampler.js';
import { createRunDir, isFsError, outputError, placeholderSummary, writeJson } from '../results/run-dir.js';
import { describeConnection } from '../targets/redis.js';
import { Reachability } from './reachability.js';
import { signalExitCode } from '../results/outcome.js';
import { RunRecorder } from '../results/run-recorder.js';
import { StatusLine } from '../results/status-line.js';
import { settings } from '../settings.js';
import { scheduleActions } from './run-actions.js';

/**
 * @param {object} p
 * @param {Record<string, any>} p.a parsed flags (warmup, duration, out, quiet, startAt)
 * @param {import('../targets/redis.js').RedisConn} p.conn
 * @param {{ nodes: import('../targets/redis.js').RedisNode[] }} p.topo
 * @param {import('./process-pool.js').WorkerSpec[]} p.specs
 * @param {string} p.name run name
 * @param {(facts: { dir: string, t0: number }) => object} p.manifest manifest.json's content
 * @param {string[]} p.columns timeline columns of this command
 * @param {(iv: import('../measure/aggregate.js').MergedInterval) => Record<string, unknown>} p.rowOf
 * @param {(iv: import('../measure/aggregate.js').MergedInterval, cpu: object[]) => string} p.statusOf live status text
 * @param {(iv: import('../measure/aggregate.js').MergedInterval) => boolean} p.progressOf the second shows the target answering
 * @param {(iv: import('../measure/aggregate.js').MergedInterval) => void} [p.onSecond] told of every merged second
 * @param {import('../local/redis.js').LocalRedis} [p.local] the local cluster --at actions act on
 * @returns {Promise<{ dir: string, t0: number, manifest: object, recorder: RunRecorder, interrupted: false|string, errors: string[],
 *   durationS: number, ackedIds: Array<[number, number]>, actionResults: object[], unreachable: null|{ silentS: number },
 *   writeError: NodeJS.ErrnoException|null }>} durationS: the window's end (the planned end, or the second the run was stopped in)
 */
export async function runWorkers({ a, conn, topo, specs, name, manifest, columns, rowOf, statusOf, progressOf, onSecond, local }) {
  const merged = new Map();
  const cpu = new Map();
  let recorder;
  let status;
  let reach;
  let next = 0;
  /** why the run stopped early: a signal, or the run's own decision */
  let stopped = null;
  const flush = (final) => {
    while (merged.has(next) && (cpu.has(next) || final)) {
      const iv = merged.get(next);
      const sample = cpu.get(next) ?? [];
      recorder.second(iv, sample);
      if (progressOf(iv)) reach?.progress();
      onSecond?.(iv);
      status?.show(iv.index, statusOf(iv, sample));
      merged.delete(next);
      cpu.delete(next);
      next++;
      // the disk filled up (or the directory went): measuring on would be for nothing
      if (recorder.writeError && !stopped) stop('output', settings.unreachableDrainMs);
    }
  };
  const merger = new IntervalMerger(specs.length, (iv) => { merged.set(iv.index, iv); flush(false); });
  // --verify: each writer's last interval carries the ids it had acknowledged
  const ackedIds = [];
  const onInterval = (s, iv) => {
    if (iv.ackedIds) {
      for (const run of iv.ackedIds) ackedIds.push(run);
      delete iv.ackedIds;
    }
    merger.add(s, iv);
  };
  const pool = new ChildPool(specs, onInterval, (s) => merger.finish(s));

  let actions = null;
  let dir = null;
  let sampler = null;
  let t0 = 0;
  /** The run stops now: the window ends with the last whole second before this moment. */
  const stop = (why, drainMs) => {
    stopped = why;
    if (t0) recorder?.endWindowAt(Math.floor((Date.now() - t0) / 1000));
    actions?.abort();
    pool.stop(drainMs);
  };
  const onSignal = (sig) => {
    if (interruptedBy(stopped)) {
      // second Ctrl-C: leave at once, but never with a run directory that has no summary
      if (dir) placeholderSummary(dir, { interrupted: sig, note: `a second ${sig} ended the run at once: timeline.csv and the .hlog files hold what was measured` });
      process.exit(signalExitCode(sig));
    }
    stop(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let samplerTimer;
  try {
    await pool.ready();
    if (stopped) throw Object.assign(new Error('interrupted before the first operation: nothing measured'), { exitCode: signalExitCode(stopped) });
    // the directory first: a sampler started before a directory that cannot be made kept the process alive
    dir = createRunDir(a.out, name);
    t0 = a.startAt ?? Math.ceil(Date.now() + 100);
    const facts = manifest({ dir, t0 });
    writeJson(path.join(dir, 'manifest.json'), facts);
    // --at actions, topology changes and anything else worth a mark on the timeline, by the second it happened in
    const events = new Map();
    const note = (atMs, text, { refresh = false, always = false } = {}) => {
      const second = Math.max(0, Math.floor((atMs - t0) / 1000));
      events.set(second, [...(events.get(second) ?? []), text]);
      // an action changed the cluster: the CPU columns follow it now, not at the next periodic read
      if (refresh) sampler?.refreshSoon();
      if (!a.quiet || always) process.stderr.write(`${status ? '\n' : ''}[+${((atMs - t0) / 1000).toFixed(1)} s] ${text}\n`);
    };
    sampler = await new ServerSampler(conn, topo.nodes, { onChange: (text) => note(Date.now(), text) }).start();
    recorder = new RunRecorder({
      dir, t0, nodes: topo.nodes, warmupS: a.warmup, columns,
      rowOf: (iv) => ({ ...rowOf(iv), events: (events.get(iv.index) ?? []).join('; ') }),
    });
    if (a.duration) recorder.endWindowAt(a.duration);
    if (a.actions?.length) actions = scheduleActions({ actions: a.actions, t0, conn, local, onEvent: (atMs, text) => note(atMs, text, { refresh: true }) });
    status = a.quiet || !process.stderr.isTTY ? null : new StatusLine(a.duration);
    // said even with --quiet: a target that went away is not a status, it is what the run is about
    reach = new Reachability({
      sampler, target: describeConnection(conn), stopAfterMs: settings.unreachableStopMs,
      say: (text) => note(Date.now(), text, { always: true }),
      onStop: () => stop('unreachable', settings.unreachableDrainMs),
    });

    // server CPU on the same one-second grid as the workers' intervals
    let tick = 0;
    let sampled = -1;
    /** @type {((i: number) => void)|null} */
    let lastSample = null;
    let sampling = true;
    const sampleNext = () => {
      const i = tick++;
      samplerTimer = setTimeout(async () => {
        const rows = await sampler.sample();
        // the run may have ended while INFO was in flight: no new timer, or the process never exits
        if (!sampling) return;
        cpu.set(i, rows);
        sampled = i;
        lastSample?.(i);
        if (Date.now() >= t0) reach.check();
        flush(false);
        sampleNext();
      }, Math.max(0, t0 - performance.timeOrigin + (i + 1) * settings.sampleIntervalMs - performance.now()));
    };
    sampleNext();
    await pool.start(t0);
    // a cluster action still running finishes before the run is summarized (and verified)
    const actionResults = actions ? (await actions.finish(), actions.results) : [];
    // the workers' last send can go out early in the window's last second: its CPU sample is a moment away
    const lastInWindow = Math.min(recorder.windowEnd, Math.floor((Date.now() - t0) / 1000) + 1) - 1;
    if (!stopped && sampled < lastInWindow) {
      await new Promise((resolve) => {
        const giveUp = setTimeout(resolve, settings.sampleIntervalMs * 2);
        lastSample = (i) => { if (i >= lastInWindow) { clearTimeout(giveUp); resolve(undefined); } };
      });
    }
    sampling = false;
    clearTimeout(samplerTimer);
    // an open-ended run that ended by itself (every worker failed): the window ends here; a run
    // with a duration ends its window there, even when its last send went out early in the last second
    if (!a.duration) recorder.endWindowAt(Math.floor((Date.now() - t0) / 1000));
    flush(true);
    status?.end();
    sampler.close();
    recorder.close();
    const interrupted = interruptedBy(stopped);
    return {
      dir, t0, manifest: facts, recorder, interrupted, errors: pool.errors, durationS: recorder.windowEnd, ackedIds, actionResults,
      unreachable: reach.stopped, writeError: recorder.writeError,
    };
  } catch (e) {
    pool.kill(); // workers must not outlive a run that failed
    clearTimeout(samplerTimer);
    sampler?.close();
    recorder?.close();
    // nor may cluster actions still waiting for their second
    actions?.abort();
    actions?.finish();
    const interrupted = interruptedBy(stopped);
    if (dir) placeholderSummary(dir, { interrupted, failed: e.message });
    if (isFsError(e)) throw outputError(/** @type {NodeJS.ErrnoException} */ (e), dir ?? a.out);
    if (interrupted && !e.exitCode) throw Object.assign(new Error('interrupted before the first operation: nothing measured'), { exitCode: signalExitCode(interrupted) });
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * The signal that stopped a run, or false when it stopped (or ran) for another reason.
 * @param {string|null} stopped
 * @returns {'SIGINT'|'SIGTERM'|false}
 */
function interruptedBy(stopped) {
  return stopped === 'SIGINT' || stopped === 'SIGTERM' ? stopped : false;
}

/**
 * What a child needs to rebuild the connection; it stays in memory, never on disk.
 * @param {Record<string, any>} a
 */
export function connectionFlags(a) {
  const keep = ['url', 'host', 'port', 'user', 'password', 'tls', 'tlsCa', 'tlsInsecure', 'cluster'];
  return Object.fromEntries(keep.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
}
