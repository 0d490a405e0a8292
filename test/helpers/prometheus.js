/**
 * A real Prometheus for tests: the Debian package's binary (apt-get install prometheus), started
 * on 127.0.0.1 with a 1 s scrape of the given targets and a storage directory of its own, stopped
 * by its PID. Tests that need it are skipped with a visible message when it is not installed,
 * except under CI=true (.ci/run installs it), where they run and fail.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe } from 'vitest';
import { freePort, tempDir } from './producer-run.js';

/** The prometheus binary on PATH, or null. */
export const PROMETHEUS = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v prometheus'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
})();

/**
 * describe() for tests that need Prometheus.
 * @param {string} name
 * @param {() => void} fn
 */
export function describePrometheus(name, fn) {
  const run = !!PROMETHEUS || process.env.CI === 'true';
  if (run) return describe(name, fn);
  process.stderr.write(`\nSKIPPED "${name}": Prometheus is not installed (apt-get install prometheus)\n`);
  return describe.skipIf(!run)(`${name} (SKIPPED: prometheus not installed)`, fn);
}

/**
 * @typedef {object} TestPrometheus
 * @property {string} url
 * @property {(query: string, time?: number) => Promise<Array<{ metric: Record<string, string>, value: [number, string] }>>} query instant query (time: epoch s)
 * @property {(query: string, start: number, end: number) => Promise<Array<{ metric: Record<string, string>, values: Array<[number, string]> }>>} queryRange 1 s steps
 * @property {() => Promise<void>} stop
 */

/**
 * @param {Record<string, number|number[]>} jobs job name → the port its target serves on, or its targets' ports (127.0.0.1)
 * @returns {Promise<TestPrometheus>}
 */
export async function startPrometheus(jobs) {
  const dir = tempDir('rqbench-prom-');
  const port = await freePort();
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    ...Object.entries(jobs).flatMap(([job, p]) => [
      `  - job_name: ${job}`,
      '    static_configs:',
      `      - targets: [${[p]
        .flat()
        .map((one) => `"127.0.0.1:${one}"`)
        .join(', ')}]`,
    ]),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), `${config}\n`);
  const child = spawn(
    /** @type {string} */ (PROMETHEUS),
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr.on('data', (d) => {
    log = (log + d).slice(-4000);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}): ${log}`);
    if (
      await fetch(`${url}/-/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prometheus was not ready in 30 s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const api = async (what, params) => {
    const r = await fetch(`${url}/api/v1/${what}?${new URLSearchParams(params)}`);
    const body = await r.json();
    if (body.status !== 'success') throw new Error(`${params.query}: ${body.error}`);
    return body.data.result;
  };
  return {
    url,
    query: (query, time) => api('query', { query, ...(time && { time: String(time) }) }),
    queryRange: (query, start, end) => api('query_range', { query, start: String(start), end: String(end), step: '1' }),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
