/**
 * What Redis producer and consumer runs do on the harness: start the workers on one schedule,
 * merge their seconds with the server's CPU on the same one-second grid (the harness's clock),
 * record each second as it comes, and stop early, saying why, when the target stops answering
 * altogether or the disk fills up. The run directory, manifest, Ctrl-C (flush, mark interrupted;
 * a second one leaves at once) and status line are the harness's (src/harness/).
 */
import { performance } from 'node:perf_hooks';
import { ChildPool } from './process-pool.js';
import { IntervalMerger } from '../../measure/aggregate.js';
import { ServerSampler } from '../../measure/server-sampler.js';
import { isFsError, outputError } from '../../record/run-dir.js';
import { describeConnection } from '../../transports/redis.js';
import { signalExitCode } from '../../record/outcome.js';
import { lateStart, lateStartError } from './late-start.js';
import { RunRecorder } from '../../record/run-recorder.js';
import { Run } from '../../harness/harness.js';
import { IntervalClock } from '../../harness/clock.js';
import { Silence } from '../../harness/silence.js';
import { redisFacts } from '../../harness/manifest.js';
import { settings } from '../../settings.js';
import { scheduleActions } from './run-actions.js';

/**
 * @typedef {{ harness: Run, dir: string, t0: number, manifest: Record<string, any>, recorder: RunRecorder, interrupted: false|string, errors: string[],
 *   durationS: number, ackedIds: Array<[number, number]>, actionResults: object[], unreachable: null|{ silentS: number },
 *   writeError: NodeJS.ErrnoException|null, drops: WorkerDrop[], starts: Map<string, import('../../measure/server-sampler.js').NodeStart>,
 *   notCluster: string|null, warnings: string[] }} WorkersRun durationS: the window's end (the planned end, or the second the run was stopped in);
 *   drops: connections the workers lost, in the order they were reported; starts: each node's first reading (memory, keys), before the run;
 *   notCluster: a run without --cluster that was answered MOVED, in words (the server is a cluster node), or null;
 *   warnings: what the workers found wrong before their first cycle, by worker
 */

/**
 * A connection a worker lost (transports/conn-drops.js), as the summary names it.
 * @typedef {{ worker: string, node: string, atS: number, reconnectMs: number|null }} WorkerDrop
 */

/** A silence this long is said on stderr (then the run goes on, retrying). */
const WARN_AFTER_MS = 3000;

/**
 * @param {object} p
 * @param {Readonly<Record<string, any>>} p.a the run's plan (warmup, duration, out, quiet, startAt), frozen
 * @param {'produce'|'consume'|'kv'} p.command
 * @param {string} p.description one sentence: what ran against what
 * @param {string} p.mode data model
 * @param {object} p.storeCfg
 * @param {number[]} p.workers writer or reader numbers run here
 * @param {import('../../transports/redis.js').RedisConn} p.conn
 * @param {{ nodes: import('../../transports/redis.js').RedisNode[], target: string, redisVersion: string }} p.topo
 * @param {import('./process-pool.js').WorkerSpec[]} p.specs
 * @param {string} p.name run name
 * @param {string[]} p.columns timeline columns of this command
 * @param {(iv: import('../../measure/aggregate.js').MergedInterval) => Record<string, unknown>} p.rowOf
 * @param {(iv: import('../../measure/aggregate.js').MergedInterval, cpu: object[]) => string} p.statusOf live status text
 * @param {(iv: import('../../measure/aggregate.js').MergedInterval) => boolean} p.progressOf the second shows the target answering
 * @param {(iv: import('../../measure/aggregate.js').MergedInterval) => void} [p.onSecond] told of every merged second
 * @param {import('../../local/local-redis.js').LocalRedis} [p.local] the local cluster --at actions act on
 * @param {import('../../harness/live-endpoint.js').LiveMetrics|null} [p.live] --metrics-port: follows the merged seconds
 * @param {{ start: () => unknown, end: () => unknown, leadMs?: number }} [p.windowHooks] told when the window starts
 *   (after the warm-up; leadMs before it, so that a send due at its first instant is not raced) and when it ends (its
 *   planned end, or when the run stops or its workers finish), once each
 * @param {(sofar: WorkersRun) => { summary: Record<string, any>, md: string }} [p.lastWords] the summary of what was
 *   measured so far, built synchronously when a second Ctrl-C leaves at once (the run's last merged second ends its window)
 * @returns {Promise<WorkersRun>} the caller saves the summary through `harness`
 */
export async function runWorkers({
  a,
  command,
  description,
  mode,
  storeCfg,
  workers,
  conn,
  topo,
  specs,
  name,
  columns,
  rowOf,
  statusOf,
  progressOf,
  onSecond,
  local,
  live = null,
  lastWords,
  windowHooks,
}) {
  const run = new Run({ kind: command, command, a, live });
  const merged = new Map();
  const cpu = new Map();
  /** @type {RunRecorder|undefined} */
  let recorder;
  /** @type {Silence|undefined} */
  let reach;
  let next = 0;
  /** @type {((atMs: number, text: string, o?: { always?: boolean }) => void)|null} marks the timeline (set once the run has its t0) */
  let mark = null;
  /** @type {WorkerDrop[]} */
  const drops = [];
  const flush = (final) => {
    while (merged.has(next) && (cpu.has(next) || final)) {
      const iv = merged.get(next);
      const sample = cpu.get(next) ?? [];
      /** @type {RunRecorder} */ (recorder).second(iv, sample);
      if (progressOf(iv)) reach?.answered();
      onSecond?.(iv);
      run.second(iv.index, statusOf(iv, sample), { iv, cpu: sample });
      merged.delete(next);
      cpu.delete(next);
      next++;
      // the disk filled up (or the directory went): measuring on would be for nothing
      if (recorder?.writeError && !run.stopping) run.stop('output', { drainMs: settings.unreachableDrainMs });
    }
  };
  const merger = new IntervalMerger(specs.length, (iv) => {
    merged.set(iv.index, iv);
    flush(false);
  });
  // --verify: each writer's last interval carries the ids it had acknowledged
  const ackedIds = [];
  /** @type {string[]} */
  const warnings = [];
  // without --cluster, a MOVED reply means the server is a node of a cluster: every command of a
  // slot it does not serve is redirected (rqbench's clients follow it, each time, at the cost of a
  // second round trip; ioredis's fail), so the run measures something else than was asked. Said
  // once, as it happens, and the run does not end as a success.
  const target = describeConnection(conn);
  let movedSeen = false;
  const notCluster = () =>
    movedSeen
      ? `${target} answered MOVED: it is a node of a Redis Cluster, and this run spoke to it as a standalone server (run again with --cluster)`
      : null;
  const onInterval = (s, iv) => {
    // a writer counts the MOVED it followed, a reader hands them over (iv.moved); a command that
    // failed on one (ioredis throws them) is in errorKinds. The totals and errorKinds say how many.
    if (!conn.cluster && !movedSeen && (iv.counters?.moved || iv.moved || iv.counters?.errorKinds?.MOVED)) {
      movedSeen = true;
      mark?.(
        Date.now(),
        `${target} answered MOVED: it is a node of a Redis Cluster, and this run speaks to it as a standalone server: give --cluster`,
        { always: true },
      );
    }
    if (iv.ackedIds) {
      for (const r of iv.ackedIds) ackedIds.push(r);
      delete iv.ackedIds;
    }
    // what a worker saw of its connections: events of the timeline (before the second is merged
    // and written), and the drops for the summary
    const { label } = specs[s];
    for (const e of iv.events ?? []) {
      mark?.(e.atMs, `${label}: ${e.text}`);
      // what a worker found wrong before its first cycle (a replica it cannot read) is the summary's too
      if (e.warn) warnings.push(`${label}: ${e.text}`);
    }
    for (const d of iv.drops ?? [])
      drops.push({ worker: label, node: d.node, atS: Math.round((d.atMs - t0) / 10) / 100, reconnectMs: d.reconnectMs });
    delete iv.events;
    delete iv.drops;
    delete iv.moved;
    merger.add(s, iv);
  };
  const pool = new ChildPool(specs, onInterval, (s) => merger.finish(s));

  let actions = null;
  let sampler = null;
  /** @type {IntervalClock|null} */
  let clock = null;
  let t0 = 0;
  // the run stops now: the window ends with the last whole second before this moment
  /** @type {ReturnType<typeof setTimeout>[]} */
  let windowTimers = [];
  const windowEnds = () => {
    windowTimers.forEach(clearTimeout);
    windowHooks?.end();
  };
  run.on('stop', (_why, { drainMs }) => {
    if (t0) recorder?.endWindowAt(Math.floor((Date.now() - t0) / 1000));
    windowEnds();
    actions?.abort();
    pool.stop(drainMs);
  });
  try {
    await pool.ready();
    if (run.interrupted)
      throw Object.assign(new Error('interrupted before the first operation: nothing measured'), {
        exitCode: signalExitCode(run.interrupted),
      });
    // a shared start that passed before this process's workers were ready (a host too busy to start
    // them in time): a second or more late, it does not run (late-start.js)
    const late = lateStart(a.startAt, Date.now());
    if (late.refuse) throw lateStartError(workerNoun(command), late.lateMs);
    // the directory first: a sampler started before a directory that cannot be made kept the process alive
    t0 = a.startAt ?? Math.ceil(Date.now() + 100);
    const facts = run.open({
      name,
      t0,
      description,
      facts: redisFacts({ command, mode, storeCfg, topo, workers }),
      packages: ['ioredis', 'hdr-histogram-js'],
      versions: { redis: topo.redisVersion },
    });
    const dir = /** @type {string} */ (run.dir);
    // --at actions, topology changes and anything else worth a mark on the timeline, by the second it happened in
    const events = new Map();
    const note = (atMs, text, { refresh = false, always = false } = {}) => {
      // a second already written cannot take it: the next one does
      const second = Math.max(next, Math.floor((atMs - t0) / 1000));
      events.set(second, [...(events.get(second) ?? []), text]);
      // an action changed the cluster: the CPU columns follow it now, not at the next periodic read
      if (refresh) sampler?.refreshSoon();
      run.say(`${run.listenerCount('second') ? '\n' : ''}[+${((atMs - t0) / 1000).toFixed(1)} s] ${text}`, { always });
    };
    mark = note;
    if (late.say)
      note(
        Date.now(),
        `the ${workerNoun(command)} were ready ${(late.lateMs / 1000).toFixed(1)} s after --start-at: what was due before then started late (timed from when it was due)`,
        { always: true },
      );
    sampler = await new ServerSampler(conn, topo.nodes, { onChange: (text) => note(Date.now(), text) }).start();
    const rec = new RunRecorder({
      dir,
      t0,
      nodes: topo.nodes,
      warmupS: a.warmup,
      columns,
      rowOf: (iv) => ({ ...rowOf(iv), events: (events.get(iv.index) ?? []).join('; ') }),
    });
    recorder = rec;
    if (a.duration) rec.endWindowAt(a.duration);
    if (a.actions?.length)
      actions = scheduleActions({ actions: a.actions, t0, conn, local, onEvent: (atMs, text) => note(atMs, text, { refresh: true }) });
    // only on a terminal: in a log, the lines that matter (the target went away) stand alone
    run.showStatus({ durationS: a.duration });
    // said even with --quiet: a target that went away is not a status, it is what the run is about
    const silence = new Silence({
      boundMs: settings.unreachableStopMs,
      heardMs: () => sampler.silentForMs(),
      warnAfterMs: WARN_AFTER_MS,
      say: (text) => note(Date.now(), text, { always: true }),
      words: {
        warn: (s, bound) => `no node of ${target} has answered for ${s} s, retrying for up to ${(bound / 1000).toFixed(1)} s`,
        back: () => `${target} answers again`,
        stop: (s, bound) =>
          `no node of ${target} has answered for ${s} s, longer than the retry budget (${(bound / 1000).toFixed(1)} s): stopping the run`,
      },
    });
    reach = silence;
    // a second Ctrl-C: what the recorder holds is the run; seconds not merged yet are not in it
    const sofar = () => ({
      harness: run,
      dir,
      t0,
      manifest: facts,
      recorder: rec,
      interrupted: run.interrupted,
      errors: pool.errors,
      durationS: Math.min(rec.windowEnd, rec.rows.length),
      ackedIds,
      actionResults: actions?.results ?? [],
      unreachable: silence.stopped,
      writeError: rec.writeError,
      drops,
      starts: sampler.starts(),
      notCluster: notCluster(),
      warnings,
    });
    if (lastWords) run.lastWords = () => lastWords(sofar());

    // server CPU on the same one-second grid as the workers' intervals
    let sampled = -1;
    /** @type {((i: number) => void)|null} */
    let lastSample = null;
    clock = new IntervalClock(t0 - performance.timeOrigin, async (i) => {
      const rows = await sampler.sample();
      // the run may have ended while INFO was in flight
      if (clock?.stopped) return;
      cpu.set(i, rows);
      sampled = i;
      lastSample?.(i);
      if (Date.now() >= t0) {
        const lost = silence.check();
        if (lost) {
          note(Date.now(), lost.line, { always: true });
          run.stop('unreachable', { drainMs: settings.unreachableDrainMs });
        }
      }
      flush(false);
    });
    clock.start();
    if (windowHooks) {
      const at = (s, f) => setTimeout(f, Math.max(0, t0 + s * 1000 - Date.now()));
      windowTimers = [
        at(a.warmup - (windowHooks.leadMs ?? 0) / 1000, () => windowHooks.start()),
        ...(a.duration ? [at(a.duration, windowEnds)] : []),
      ];
    }
    await pool.start(t0);
    windowEnds();
    // a cluster action still running finishes before the run is summarized (and verified)
    const actionResults = actions ? (await actions.finish(), actions.results) : [];
    // the workers' last send can go out early in the window's last second: its CPU sample is a moment away
    const lastInWindow = Math.min(rec.windowEnd, Math.floor((Date.now() - t0) / 1000) + 1) - 1;
    if (!run.stopping && sampled < lastInWindow) {
      await new Promise((resolve) => {
        const giveUp = setTimeout(resolve, settings.sampleIntervalMs * 2);
        lastSample = (i) => {
          if (i >= lastInWindow) {
            clearTimeout(giveUp);
            resolve(undefined);
          }
        };
      });
    }
    clock.stop();
    // an open-ended run that ended by itself (every worker failed): the window ends here; a run
    // with a duration ends its window there, even when its last send went out early in the last second
    if (!a.duration) rec.endWindowAt(Math.floor((Date.now() - t0) / 1000));
    flush(true);
    sampler.close();
    rec.close();
    // signals go back to their defaults, as the work is over: a Ctrl-C during --verify's read-back leaves
    // (the summary is saved before it starts)
    run.close();
    return { ...sofar(), durationS: rec.windowEnd, actionResults };
  } catch (e) {
    pool.kill(); // workers must not outlive a run that failed
    windowTimers.forEach(clearTimeout);
    clock?.stop();
    sampler?.close();
    recorder?.close();
    // nor may cluster actions still waiting for their second
    actions?.abort();
    actions?.finish();
    run.failed(e);
    run.close();
    if (isFsError(e)) throw outputError(/** @type {NodeJS.ErrnoException} */ (e), run.dir ?? a.out);
    if (run.interrupted && !e.exitCode)
      throw Object.assign(new Error('interrupted before the first operation: nothing measured'), {
        exitCode: signalExitCode(run.interrupted),
      });
    throw e;
  }
}

/** @param {'produce'|'consume'|'kv'} command */
const workerNoun = (command) => (command === 'consume' ? 'readers' : command === 'kv' ? 'clients' : 'writers');

/**
 * What a child needs to rebuild the connection; it stays in memory, never on disk.
 * @param {Record<string, any>} a
 */
export function connectionFlags(a) {
  const keep = ['url', 'host', 'port', 'user', 'password', 'tls', 'tlsCa', 'tlsInsecure', 'cluster'];
  return Object.fromEntries(keep.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
}
