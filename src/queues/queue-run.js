/**
 * What a queue run (publisher or consumer) does around its work: a fresh run directory with
 * manifest.json, one recorded second at a time (.hlog intervals and a timeline.csv row through
 * results/run-recorder.js), a status line on stderr, a watch on the service, and how the work
 * stops: at the end of --duration, on Ctrl-C or SIGTERM (a second one leaves at once), when the
 * service has not answered for longer than the bound, or when the run directory cannot be
 * written any more. Then the summary (run-end.js says what the exit code is).
 *
 * The summary's rates, latency and counts cover the same seconds, its window: from --warmup to
 * the end of --duration, or to the second the work was stopped in (that second and the drain
 * after it are in the files, not in the figures), or to the end when the work finished earlier.
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRunDir, isFsError, outputError, writeJson } from '../results/run-dir.js';
import { RunRecorder } from '../results/run-recorder.js';
import { cleanFlags, gitSha, packageVersion } from '../results/manifest.js';
import { ClientSampler } from '../measure/client-sampler.js';
import { endRun, placeholderSummary, signalExitCode } from './run-end.js';

/**
 * @typedef {object} QueueSecond what the work hands over once a second
 * @property {Map<string, import('hdr-histogram-js').Histogram>} hist by name ('op.tag' or 'op')
 * @property {Record<string, number>} counters
 * @property {number} [intended]
 */

/**
 * @typedef {object} QueueRunInfo what a summary is made from
 * @property {string} dir
 * @property {RunRecorder} recorder its totals cover the window
 * @property {{ fromS: number, toS: number, seconds: number }} window
 * @property {Record<string, number>} inWindow the counters summed over the window's seconds
 * @property {number} durationS the whole run, drain included
 * @property {'SIGINT'|'SIGTERM'|false} interrupted
 * @property {string|null} stoppedBy 'SIGINT', 'SIGTERM', 'unreachable', 'write' or null (it ended by itself)
 * @property {Record<string, any>} manifest
 */

/**
 * @param {object} p
 * @param {Record<string, any>} p.a parsed flags
 * @param {'produce'|'consume'} p.command
 * @param {string} p.name run name
 * @param {string} p.description
 * @param {Record<string, unknown>} p.facts target facts for the manifest (no secrets)
 * @param {string[]} p.columns timeline columns
 * @param {(iv: any) => Record<string, unknown>} p.rowOf
 * @param {(signal: AbortSignal, t0: number) => Promise<void>} p.work runs until done or until
 *   signal aborts; t0 is performance.now() of second 0 (schedules start there)
 * @param {() => QueueSecond} p.take this second's numbers
 * @param {(iv: any) => string} p.status one status line
 * @param {{ check: () => string|null }} p.contact the service's watch (contact.js)
 * @param {(run: QueueRunInfo) => Promise<{ summary: object, md: string, ok: boolean }>} p.summarize
 * @returns {Promise<{ dir: string, summary: object, md: string, exitCode: number }>}
 */
export async function queueRun({ a, command, name, description, facts, columns, rowOf, work, take, status, contact, summarize }) {
  let dir = a.out;
  let recorder;
  let manifest;
  let start = 0;
  try {
    dir = createRunDir(a.out, name);
    const versions = {
      rqbench: packageVersion('rqbench'), node: process.version, 'hdr-histogram-js': packageVersion('hdr-histogram-js'),
      '@aws-sdk/client-sqs': packageVersion('@aws-sdk/client-sqs'), '@aws-sdk/client-sns': packageVersion('@aws-sdk/client-sns'),
      '@google-cloud/pubsub': packageVersion('@google-cloud/pubsub'), fauxqs: packageVersion('fauxqs'),
    };
    const git = gitSha();
    // second 0 starts once the slow part of the setup is over: a schedule starting there is not late from its first message
    start = performance.now();
    const t0 = Math.round(performance.timeOrigin + start);
    manifest = {
      tool: 'rqbench', command, runId: a.runId ?? null, dir, description, startedAt: new Date(t0).toISOString(), t0,
      flags: cleanFlags(a), target: facts, versions, git,
      host: { hostname: os.hostname(), platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length },
    };
    writeJson(path.join(dir, 'manifest.json'), manifest);
    recorder = new RunRecorder({ dir, t0: manifest.t0, nodes: [], warmupS: a.warmup ?? 0, columns, rowOf });
  } catch (e) {
    const failed = isFsError(e) ? outputError(/** @type {NodeJS.ErrnoException} */ (e), dir) : e;
    if (dir !== a.out) placeholderSummary(dir, { interrupted: false, failed: failed.message });
    throw failed;
  }
  const rec = recorder;
  if (a.duration > 0) rec.endWindowAt(Math.ceil(a.duration));
  const sampler = new ClientSampler();
  const ac = new AbortController();
  const elapsedS = () => (performance.now() - start) / 1000;
  /** @type {{ by: string|null, line: string|null, interrupted: 'SIGINT'|'SIGTERM'|false, summarized: boolean }} */
  const state = { by: null, line: null, interrupted: false, summarized: false };
  /** Stops the work; the window ends with the last whole second before now. */
  const stop = (by, line = null) => {
    if (state.by) return;
    Object.assign(state, { by, line });
    rec.endWindowAt(Math.floor(elapsedS()));
    ac.abort();
  };
  /** @param {'SIGINT'|'SIGTERM'} sig */
  const onSignal = (sig) => {
    if (state.interrupted) {
      // a second Ctrl-C: leave now, but never with a run directory that has no summary
      if (!state.summarized) placeholderSummary(dir, { interrupted: sig, note: `a second ${sig} ended the run at once` });
      process.exit(signalExitCode(sig));
    }
    state.interrupted = sig;
    stop(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let index = 0;
  const tick = (last = false) => {
    const s = take();
    const c = sampler.sample();
    const iv = { index: index++, hist: s.hist, counters: s.counters, intended: s.intended ?? 0, errorKinds: {}, ackedDue: {}, client: { ...c, cpuPctMax: c.cpuPct } };
    rec.second(iv, []);
    // a full disk stops the work as Ctrl-C would: measuring on without recording is pointless
    if (rec.writeError) stop('write');
    // the last second comes after the work: nothing is left to stop
    const lost = last ? null : contact.check();
    if (lost) stop('unreachable', lost);
    if (!a.quiet) process.stderr.write(`\r${`[${iv.index + 1}s] ${status(iv)}`.padEnd(100)}`);
  };
  // one tick per second on the grid from the start, whatever the work does
  let timer;
  const schedule = () => { timer = setTimeout(() => { tick(); schedule(); }, start + (index + 1) * 1000 - performance.now()); };
  try {
    schedule();
    try {
      await work(ac.signal, start);
    } finally {
      clearTimeout(timer);
      tick(true); // the last (partial) second
      rec.close();
      if (!a.quiet) process.stderr.write('\n');
    }
    const durationS = elapsedS();
    const fromS = rec.warmupS;
    // stopped: the window ended at the stop; otherwise at the end of --duration, or earlier when the work was done
    const toS = state.by ? rec.windowEnd : Math.min(rec.windowEnd, durationS);
    const run = {
      dir, recorder: rec, window: { fromS, toS, seconds: Math.max(0, toS - fromS) }, inWindow: sumInWindow(rec), durationS,
      interrupted: state.interrupted, stoppedBy: state.by, manifest,
    };
    const { summary, md, ok } = await summarize(run);
    // from here the summary is written (or cannot be): no placeholder may replace it
    state.summarized = true;
    return endRun({ dir, summary, md, ok, interrupted: state.interrupted, unreachable: state.by === 'unreachable' ? state.line : null, writeError: rec.writeError });
  } catch (e) {
    if (!state.summarized) placeholderSummary(dir, { interrupted: state.interrupted, failed: String(/** @type {any} */ (e)?.message ?? e).split('\n')[0] });
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * The counters of the seconds in the window (the ones the recorder's totals hold).
 * @param {RunRecorder} rec
 * @returns {Record<string, number>}
 */
function sumInWindow(rec) {
  /** @type {Record<string, number>} */
  const sum = {};
  for (const r of rec.rows) {
    if (r.index < rec.warmupS || r.index >= rec.windowEnd) continue;
    for (const [k, v] of Object.entries(r.counters)) sum[k] = (sum[k] || 0) + v;
  }
  return sum;
}

const STOPPED = { SIGINT: 'interrupted (SIGINT)', SIGTERM: 'interrupted (SIGTERM)', unreachable: 'stopped: the service did not answer', write: 'stopped: the run directory could not be written' };

/**
 * The sentence that says which seconds a summary's figures cover.
 * @param {{ fromS: number, toS: number, seconds: number }} w
 * @param {number} durationS the whole run
 * @param {string|null} stoppedBy
 */
export function windowText(w, durationS, stoppedBy) {
  const to = Number.isInteger(w.toS) ? String(w.toS) : w.toS.toFixed(1);
  const how = stoppedBy ? ` The run was ${STOPPED[stoppedBy] ?? stoppedBy} in its second ${to}; that second and the rest are left out.` : '';
  const after = durationS - w.toS > 0.05 ? ` It took ${durationS.toFixed(1)} s in all: what came after (the drain of what was in flight) is in timeline.csv and the .hlog files, not in these figures.` : '';
  return `Rates, latency and counts cover seconds ${w.fromS} to ${to} of the run (${w.seconds.toFixed(1)} s${w.fromS ? ', after the warm-up' : ''}).${how}${after}`;
}
