// The Job `rqbench k8s` renders, simulated: its container's very `args` script runs under `sh` as
// N local pods (JOB_COMPLETION_INDEX = 0 … N-1, the manifest's env, the Secret's URL a local
// cluster's), each running its W writers, and `rqbench report` merges their run directories:
// every count is the sum of the writers'.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { k8sPlan, PLACEHOLDER } from '../../src/plans/k8s-plan.js';
import { renderManifests } from '../../src/plans/k8s-manifests.js';
import { CLI, ROOT, freePort, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

/** pods × writers per pod */
const N = 2;
const W = 2;
/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let redis;

beforeAll(async () => {
  redis = await startRedis({ cluster: true, replicas: 0 });
}, 60_000);

afterAll(async () => {
  await redis?.stop();
  removeTempDirs();
});

/** Runs `sh -c <script>` with env; resolves with its exit code and stderr. */
function sh(script, env) {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', script], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, err });
    });
  });
}

/** A port p with p+1 … p+n-1 free too: a pod's W writers serve on consecutive ports. */
async function freeRun(n, taken) {
  for (;;) {
    const p = await freePort();
    const run = Array.from({ length: n }, (_, k) => p + k);
    if (run.some((x) => taken.has(x) || x > 65535)) continue;
    const free = await Promise.all(
      run.map(
        (x) =>
          new Promise((resolve) => {
            const srv = net.createServer().once('error', () => resolve(false));
            srv.listen({ host: '127.0.0.1', port: x }, () => srv.close(() => resolve(true)));
          }),
      ),
    );
    if (free.every(Boolean)) {
      run.forEach((x) => taken.add(x));
      return p;
    }
  }
}

it(`the rendered Indexed Job's pods, as ${N} local pods of ${W} writers, merge into one run whose counts are the sums`, async () => {
  const plan = k8sPlan({
    pods: N,
    writersPerPod: W,
    flags: '--cluster --warmup 0 -q 4000 -d 3',
    image: 'rqbench:0.1.0',
    jobName: 'rqbench-producers',
    secret: 'rqbench-redis',
    claim: 'rqbench-results',
    startIn: 90,
    template: true,
  });
  const job = YAML.parse(renderManifests(plan)[0].text);
  expect(job.spec.completionMode).toBe('Indexed');
  expect(job.spec.completions).toBe(job.spec.parallelism);
  const container = job.spec.template.spec.containers[0];
  const env = Object.fromEntries(container.env.filter((e) => 'value' in e).map((e) => [e.name, e.value]));
  expect(Number(env.WRITERS)).toBe(job.spec.completions * W);
  expect(container.command).toEqual(['sh', '-c']);
  expect(env).toMatchObject({ RUN_ID: PLACEHOLDER.runId, START_AT: PLACEHOLDER.startAt, METRICS_PORT: '9100', METRICS_HOST: '0.0.0.0' });
  expect(job.spec.template.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': env.METRICS_PORT });

  const out = tempDir('rqbench-k8s-');
  const runId = `k8s-sim-${process.pid}`;
  // every process is up well before the shared start: a loaded 2-core machine needs seconds (in a
  // suite run 8 s were not enough for one of the 4 writers, which then sent nothing: now an exit 1)
  const startAt = Date.now() + 15_000;
  // what `sed` fills in at apply time, the Secret's URL, and what differs between a pod and a local process
  const local = {
    ...env,
    RUN_ID: runId,
    START_AT: String(startAt),
    REDIS_URL: redis.url,
    REDIS_PASSWORD: '',
    OUT: out,
    // each pod has an address of its own; here every process needs a port of its own, on loopback
    METRICS_HOST: '127.0.0.1',
    METRICS_LINGER: '0',
  };
  const taken = new Set();
  const ports = [];
  for (let i = 0; i < N; i++) ports.push(await freeRun(W, taken));
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      sh(container.args[0], {
        ...process.env,
        ...local,
        JOB_COMPLETION_INDEX: String(i),
        METRICS_PORT: String(ports[i]),
      }),
    ),
  );
  for (const r of results) expect(r.code, r.err).toBe(0);

  const dirs = fs
    .readdirSync(path.join(out, runId))
    .map((d) => path.join(out, runId, d))
    .sort((a, b) => Number(a.split('-').pop()) - Number(b.split('-').pop()));
  expect(dirs.map((d) => d.replace(/.*-(writer-\d+)$/, '$1'))).toEqual(Array.from({ length: N * W }, (_, i) => `writer-${i + 1}`));
  const each = dirs.map((d) => JSON.parse(fs.readFileSync(path.join(d, 'summary.json'), 'utf8')));
  const manifests = dirs.map((d) => JSON.parse(fs.readFileSync(path.join(d, 'manifest.json'), 'utf8')));
  expect(new Set(manifests.map((m) => m.runId))).toEqual(new Set([runId]));
  expect(new Set(manifests.map((m) => m.t0))).toEqual(new Set([startAt]));
  for (const s of each) expect(s.totals.failed).toBe(0);

  const r = await runNode([CLI, 'report', ...dirs, '--format', 'json'], { timeoutMs: 30_000 });
  expect(r.code, r.stderr).toBe(0);
  const merged = JSON.parse(r.stdout);
  for (const k of ['sent', 'acked', 'failed', 'intended']) {
    expect(merged.totals[k], k).toBe(each.reduce((s, x) => s + x.totals[k], 0));
  }
  expect(merged.writers).toBe(N * W);
  expect(merged.totals.acked).toBe(4000 * 3);
  expect(merged.latency.batch.intended.count).toBe(each.reduce((s, x) => s + x.latency.batch.intended.count, 0));
}, 90_000);
