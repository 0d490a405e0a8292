// Runs the consumer (`node src/consumer.js …` or `node src/cli.js consume …`) as a child process
// and collects what it printed, its exit code and the run directory it wrote. No mocks.
import path from 'node:path';
import { startRedis } from '../../src/local/local-redis.js';
import { CLI, ROOT, describeRun, produce, readRun, runWatchingT0, tempDir } from './producer-run.js';

export const CONSUMER = path.join(ROOT, 'src/consumer.js');

/**
 * @typedef {object} ConsumeOptions
 * @property {number} [port]
 * @property {string} [url]          used instead of --host/--port
 * @property {boolean} [cluster]
 * @property {number} [ttl]          seconds (default 30)
 * @property {number} [d]            seconds (default 3)
 * @property {number} [warmup]       seconds (default 1)
 * @property {string[]} [extra]      more flags (must not repeat the ones above)
 * @property {boolean} [cli]         run `node src/cli.js consume` instead of `node src/consumer.js`
 * @property {number} [timeoutMs]
 * @property {(t0: number) => void} [onT0] called once manifest.json appears, with its t0
 */

/**
 * One consumer run with --json --quiet into a fresh --out directory.
 * @param {ConsumeOptions} o
 */
export async function consume(o) {
  const out = tempDir('rqbench-consume-');
  const target = o.url ? ['--url', o.url] : ['--host', '127.0.0.1', '--port', String(o.port)];
  const args = [
    ...(o.cli ? [CLI, 'consume'] : [CONSUMER]),
    ...target,
    ...(o.cluster ? ['--cluster'] : []),
    '--ttl',
    String(o.ttl ?? 30),
    '-d',
    String(o.d ?? 3),
    '--warmup',
    String(o.warmup ?? 1),
    '--out',
    out,
    '--json',
    '--quiet',
    ...(o.extra ?? []),
  ];
  const res = await runWatchingT0(args, out, o);
  const { summary, dir } = readRun(out, res.stdout);
  return { ...res, args, out, dir, summary };
}

/** Short description of a consumer run for assertion messages. */
export function describeConsumer(r) {
  const s = r.summary;
  const brief = s
    ? JSON.stringify({ perCycle: s.perCycle, cycles: s.cycles, totals: s.totals, errorKinds: s.errorKinds, readerErrors: s.readerErrors })
    : '(no summary)';
  return `${r.args.slice(1).join(' ')} → exit ${r.code}${r.signal ? ` (${r.signal})` : ''} after ${r.ms} ms; stderr: ${r.stderr.trim().slice(0, 400) || '(empty)'}; ${brief}`;
}

/**
 * A local 3x1 cluster holding live items for a whole test file (2 s of writes, 300 s TTL): what
 * consumers under faults read.
 * @returns {Promise<import('../../src/local/local-redis.js').LocalRedis>}
 */
export async function clusterWithLiveItems() {
  const clu = await startRedis({ cluster: true, masters: 3, replicas: 1 });
  const p = await produce({ port: clu.port, cluster: true, q: 2000, d: 2, ttl: 300 });
  if (p.code !== 0) {
    await clu.stop();
    throw new Error(describeRun(p));
  }
  return clu;
}
