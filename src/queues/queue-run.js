/**
 * What a queue run (publisher or consumer) does around its work: a fresh run directory with
 * manifest.json, one recorded second at a time (.hlog intervals and a timeline.csv row through
 * results/run-recorder.js), a status line on stderr, and Ctrl-C ending the work cleanly.
 */
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRunDir, writeJson } from '../results/run-dir.js';
import { RunRecorder } from '../results/run-recorder.js';
import { cleanFlags, gitSha, packageVersion } from '../results/manifest.js';
import { ClientSampler } from '../measure/client-sampler.js';

/**
 * @typedef {object} QueueSecond what the work hands over once a second
 * @property {Map<string, import('hdr-histogram-js').Histogram>} hist by name ('op.tag' or 'op')
 * @property {Record<string, number>} counters
 * @property {number} [intended]
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
 * @param {(signal: AbortSignal) => Promise<void>} p.work runs until done or until signal aborts
 * @param {() => QueueSecond} p.take this second's numbers
 * @param {(iv: any) => string} p.status one status line
 * @returns {Promise<{ dir: string, recorder: RunRecorder, t0: number, durationS: number, interrupted: boolean, manifest: object }>}
 */
export async function queueRun({ a, command, name, description, facts, columns, rowOf, work, take, status }) {
  const t0 = Date.now();
  const dir = createRunDir(a.out, name, new Date(t0));
  const manifest = {
    tool: 'rqbench', command, runId: a.runId ?? null, dir, description, startedAt: new Date(t0).toISOString(), t0,
    flags: cleanFlags(a), target: facts,
    versions: {
      rqbench: packageVersion('rqbench'), node: process.version, 'hdr-histogram-js': packageVersion('hdr-histogram-js'),
      '@aws-sdk/client-sqs': packageVersion('@aws-sdk/client-sqs'), '@aws-sdk/client-sns': packageVersion('@aws-sdk/client-sns'),
      '@google-cloud/pubsub': packageVersion('@google-cloud/pubsub'), fauxqs: packageVersion('fauxqs'),
    },
    git: gitSha(),
    host: { hostname: os.hostname(), platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length },
  };
  writeJson(path.join(dir, 'manifest.json'), manifest);
  const recorder = new RunRecorder({ dir, t0, nodes: [], warmupS: a.warmup ?? 0, columns, rowOf });
  const sampler = new ClientSampler();
  const ac = new AbortController();
  let interrupted = false;
  const onSignal = () => { interrupted = true; ac.abort(); };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const start = performance.now();
  let index = 0;
  const tick = () => {
    const s = take();
    const c = sampler.sample();
    const iv = { index: index++, hist: s.hist, counters: s.counters, intended: s.intended ?? 0, errorKinds: {}, ackedDue: {}, client: { ...c, cpuPctMax: c.cpuPct } };
    recorder.second(iv, []);
    if (!a.quiet) process.stderr.write(`\r${`[${iv.index + 1}s] ${status(iv)}`.padEnd(100)}`);
  };
  // one tick per second on the grid from the start, whatever the work does
  let timer;
  const schedule = () => { timer = setTimeout(() => { tick(); schedule(); }, start + (index + 1) * 1000 - performance.now()); };
  schedule();
  try {
    await work(ac.signal);
  } finally {
    clearTimeout(timer);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    tick(); // the last (partial) second
    recorder.close();
    if (!a.quiet) process.stderr.write('\n');
  }
  return { dir, recorder, t0, durationS: (performance.now() - start) / 1000, interrupted, manifest };
}
