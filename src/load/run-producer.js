/**
 * A producer run from flags to files: check the flags, reach the target, start the writers on
 * one shared schedule, merge their seconds with the server's CPU, write the run directory.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { checkConnection } from '../options/connection.js';
import { checkProducer, storeConfigOf, storeModeOf } from '../options/producer.js';
import { connectionFrom, describeConnection, parseInfo } from '../targets/redis.js';
import { RedisRouter } from '../targets/redis-router.js';
import { idRange } from './schedule.js';
import { ChildWriters } from './writer-pool.js';
import { IntervalMerger } from '../measure/aggregate.js';
import { ServerSampler } from '../measure/server-sampler.js';
import { createRunDir, writeJson, writeText } from '../results/run-dir.js';
import { RunRecorder } from '../results/run-recorder.js';
import { summarize } from '../results/summary.js';
import { renderSummaryMd } from '../results/summary-md.js';
import { StatusLine } from '../results/status-line.js';
import { runFacts } from '../results/manifest.js';
import { startLocalFor } from '../local/for-run.js';
import { settings } from '../settings.js';

/**
 * @param {Record<string, any>} a parsed flags
 * @returns {Promise<{ dir: string, summary: object, exitCode: number }>}
 */
export async function runProducer(a) {
  checkConnection(a);
  checkProducer(a);
  const mode = storeModeOf(a);
  const storeCfg = storeConfigOf(a);
  const local = a.local ? await startLocalFor(a) : null;
  try {
    return await runAgainst(local ? { ...a, host: local.host, port: local.port } : a, mode, storeCfg, local);
  } finally {
    await local?.stop();
  }
}

async function runAgainst(a, mode, storeCfg, local) {
  const conn = connectionFrom(a);
  const topo = await discoverTopology(conn);
  const writerNumbers = a.writer ? [a.writer] : Array.from({ length: a.writers }, (_, i) => i + 1);
  const basePlan = { q: a.quantity, t: a.writers, periodMs: a.period, chunks: a.chunks, durationMs: a.duration * 1000, t0: 0 };
  const specs = writerNumbers.map((n) => ({ flags: flagsForChild(a), mode, storeCfg, plan: { ...basePlan, a: n } }));
  const targetRate = writerNumbers.reduce((s, n) => s + idRange(a.quantity, a.writers, n).count, 0) * 1000 / a.period;

  const merged = new Map();
  const cpu = new Map();
  let recorder;
  let next = 0;
  let status;
  const flush = (final) => {
    while (merged.has(next) && (cpu.has(next) || final)) {
      const iv = merged.get(next);
      const sample = cpu.get(next) ?? [];
      recorder.second(iv, sample);
      status?.update(iv, sample);
      merged.delete(next);
      cpu.delete(next);
      next++;
    }
  };
  const merger = new IntervalMerger(specs.length, (iv) => { merged.set(iv.index, iv); flush(false); });
  const pool = new ChildWriters(specs, (s, iv) => merger.add(s, iv), (s) => merger.finish(s));

  let interrupted = false;
  const onSignal = (sig) => {
    if (interrupted) process.exit(sig === 'SIGTERM' ? 143 : 130); // second Ctrl-C: leave at once
    interrupted = sig;
    pool.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await pool.ready();
    if (interrupted) throw Object.assign(new Error('interrupted before the first send: nothing measured'), { exitCode: 130 });
    const sampler = await new ServerSampler(conn, topo.nodes).start();
    const name = a.name || defaultName(a, mode);
    const dir = createRunDir(a.out, name);
    const t0 = a.startAt ?? Math.ceil(Date.now() + 100);
    const facts = runFacts({ a, mode, storeCfg, topo, writers: writerNumbers, t0, dir, local });
    writeJson(path.join(dir, 'manifest.json'), facts);
    recorder = new RunRecorder({ dir, t0, nodes: topo.nodes, warmupS: a.warmup });
    status = a.quiet || !process.stderr.isTTY ? null : new StatusLine(targetRate, a.duration);

    // server CPU on the same one-second grid as the writers' intervals
    let tick = 0;
    let samplerTimer;
    const sampleNext = () => {
      const i = tick++;
      samplerTimer = setTimeout(async () => {
        cpu.set(i, await sampler.sample());
        flush(false);
        sampleNext();
      }, Math.max(0, t0 - performance.timeOrigin + (i + 1) * settings.sampleIntervalMs - performance.now()));
    };
    sampleNext();
    await pool.start(t0);
    clearTimeout(samplerTimer);
    flush(true);
    status?.end();
    sampler.close();
    recorder.close();

    const durationS = interrupted ? Math.floor((Date.now() - t0) / 1000) : a.duration || Math.floor((Date.now() - t0) / 1000);
    const summary = summarize({
      rows: recorder.rows, totals: recorder.totals, ackedDue: recorder.ackedDue, warmupS: a.warmup, durationS, targetRate,
      writers: writerNumbers.length, totalCounts: recorder.counts, errorKinds: recorder.errorKinds,
    });
    Object.assign(summary, { name, mode, interrupted: !!interrupted, writerErrors: pool.errors, itemsPerWriterPerSecTarget: targetRate / writerNumbers.length });
    writeJson(path.join(dir, 'summary.json'), summary);
    const md = renderSummaryMd({ name, description: facts.description, interrupted: !!interrupted }, summary);
    writeText(path.join(dir, 'summary.md'), md);
    return { dir, summary, md, exitCode: interrupted ? (interrupted === 'SIGTERM' ? 143 : 130) : pool.errors.length ? 1 : 0 };
  } catch (e) {
    pool.kill(); // writers must not outlive a run that failed
    if (interrupted && !e.exitCode) throw Object.assign(new Error('interrupted before the first send: nothing measured'), { exitCode: 130 });
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Nodes, roles, shards and the server version; fails within the connect timeout naming host:port. */
async function discoverTopology(conn) {
  const router = new RedisRouter(conn);
  try {
    await router.open();
    const seed = router.ready(`${conn.host}:${conn.port}`);
    const info = parseInfo(await seed.call(['INFO', 'server']));
    return { nodes: router.nodes, redisVersion: info.redis_version, target: describeConnection(conn), cluster: conn.cluster };
  } finally {
    router.close();
  }
}

/** What a child needs to rebuild the connection; it stays in memory, never on disk. */
function flagsForChild(a) {
  const keep = ['url', 'host', 'port', 'user', 'password', 'tls', 'tlsCa', 'tlsInsecure', 'cluster'];
  return Object.fromEntries(keep.filter((k) => a[k] !== undefined).map((k) => [k, a[k]]));
}

function defaultName(a, mode) {
  const parts = [`produce-${mode}`, `q${a.quantity}`, `t${a.writers}`];
  if (a.writer) parts.push(`a${a.writer}`);
  if (a.chunks > 1) parts.push(`c${a.chunks}`);
  if (a.ns > 1) parts.push(`ns${a.ns}`);
  if (a.sameSlot) parts.push('same-slot');
  if (a.actualValue) parts.push('values');
  if (a.cluster) parts.push('cluster');
  return parts.join('-');
}
