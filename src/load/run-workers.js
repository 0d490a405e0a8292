/**
 * What producer and consumer runs share: start the workers on one schedule, merge their
 * seconds with the server's CPU on the same one-second grid, write the run directory as the
 * run goes, handle Ctrl-C (flush, mark interrupted; a second one leaves at once).
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ChildPool } from './process-pool.js';
import { IntervalMerger } from '../measure/aggregate.js';
import { ServerSampler } from '../measure/server-sampler.js';
import { createRunDir, writeJson, writeText } from '../results/run-dir.js';
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
 * @param {import('../local/redis.js').LocalRedis} [p.local] the local cluster --at actions act on
 * @returns {Promise<{ dir: string, t0: number, manifest: object, recorder: RunRecorder, interrupted: false|string, errors: string[], durationS: number, exitCode: number, ackedIds: Array<[number, number]> }>}
 */
export async function runWorkers({ a, conn, topo, specs, name, manifest, columns, rowOf, statusOf, local }) {
  const merged = new Map();
  const cpu = new Map();
  let recorder;
  let status;
  let next = 0;
  const flush = (final) => {
    while (merged.has(next) && (cpu.has(next) || final)) {
      const iv = merged.get(next);
      const sample = cpu.get(next) ?? [];
      recorder.second(iv, sample);
      status?.show(iv.index, statusOf(iv, sample));
      merged.delete(next);
      cpu.delete(next);
      next++;
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

  let interrupted = false;
  let actions = null;
  let dir = null;
  const onSignal = (sig) => {
    if (interrupted) {
      // second Ctrl-C: leave at once, but never with a run directory that has no summary
      if (dir) placeholderSummary(dir, { interrupted: sig, note: `a second ${sig} ended the run at once: timeline.csv and the .hlog files hold what was measured` });
      process.exit(sig === 'SIGTERM' ? 143 : 130);
    }
    interrupted = sig;
    actions?.abort();
    pool.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await pool.ready();
    if (interrupted) throw Object.assign(new Error('interrupted before the first operation: nothing measured'), { exitCode: 130 });
    const sampler = await new ServerSampler(conn, topo.nodes).start();
    dir = createRunDir(a.out, name);
    const t0 = a.startAt ?? Math.ceil(Date.now() + 100);
    const facts = manifest({ dir, t0 });
    writeJson(path.join(dir, 'manifest.json'), facts);
    // --at actions and anything else worth a mark on the timeline, by the second it happened in
    const events = new Map();
    const onEvent = (atMs, text) => {
      const second = Math.max(0, Math.floor((atMs - t0) / 1000));
      events.set(second, [...(events.get(second) ?? []), text]);
      // an action changed the cluster: the CPU columns follow it now, not at the next periodic read
      sampler.refreshSoon();
      if (!a.quiet) process.stderr.write(`${status ? '\n' : ''}[+${((atMs - t0) / 1000).toFixed(1)} s] ${text}\n`);
    };
    recorder = new RunRecorder({
      dir, t0, nodes: topo.nodes, warmupS: a.warmup, columns,
      rowOf: (iv) => ({ ...rowOf(iv), events: (events.get(iv.index) ?? []).join('; ') }),
    });
    if (a.actions?.length) actions = scheduleActions({ actions: a.actions, t0, conn, local, onEvent });
    status = a.quiet || !process.stderr.isTTY ? null : new StatusLine(a.duration);

    // server CPU on the same one-second grid as the workers' intervals
    let tick = 0;
    let samplerTimer;
    let sampling = true;
    const sampleNext = () => {
      const i = tick++;
      samplerTimer = setTimeout(async () => {
        const rows = await sampler.sample();
        // the run may have ended while INFO was in flight: no new timer, or the process never exits
        if (!sampling) return;
        cpu.set(i, rows);
        flush(false);
        sampleNext();
      }, Math.max(0, t0 - performance.timeOrigin + (i + 1) * settings.sampleIntervalMs - performance.now()));
    };
    sampleNext();
    await pool.start(t0);
    // a cluster action still running finishes before the run is summarized (and verified)
    const actionResults = actions ? (await actions.finish(), actions.results) : [];
    sampling = false;
    clearTimeout(samplerTimer);
    flush(true);
    status?.end();
    sampler.close();
    recorder.close();
    const elapsedS = Math.floor((Date.now() - t0) / 1000);
    const durationS = interrupted || !a.duration ? elapsedS : a.duration;
    const exitCode = interrupted ? (interrupted === 'SIGTERM' ? 143 : 130) : pool.errors.length ? 1 : 0;
    return { dir, t0, manifest: facts, recorder, interrupted, errors: pool.errors, durationS, exitCode, ackedIds, actionResults };
  } catch (e) {
    pool.kill(); // workers must not outlive a run that failed
    // nor may cluster actions still waiting for their second
    actions?.abort();
    actions?.finish();
    if (dir) placeholderSummary(dir, { interrupted: interrupted || false, failed: e.message });
    if (interrupted && !e.exitCode) throw Object.assign(new Error('interrupted before the first operation: nothing measured'), { exitCode: 130 });
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * What a child needs to rebuild the connection; it stays in memory, never on disk.
 * @param {Record<string, any>} a
 */
export function connectionFlags(a) {
  const keep = ['url', 'host', 'port', 'user', 'password', 'tls', 'tlsCa', 'tlsInsecure', 'cluster'];
  return Object.fromEntries(keep.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
}

/**
 * summary.json and summary.md for a run that could not be summarized (it failed, or a second
 * Ctrl-C cut it short), so no run directory is left without one.
 * @param {string} dir
 * @param {{ interrupted: string|false, failed?: string, note?: string }} why
 */
export function placeholderSummary(dir, why) {
  const summary = { incomplete: true, ...why };
  writeJson(path.join(dir, 'summary.json'), summary);
  writeText(path.join(dir, 'summary.md'), `# Incomplete run\n\n${why.failed ? `The run failed: ${why.failed}.` : why.note}\n`);
}
