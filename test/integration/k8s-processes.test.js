// `rqbench k8s` (issue 26, point 3), the parts that run a process: each pod's container script
// under sh holds the run's invariants (one pod per index, disjoint writer slices covering 1..N*W,
// one run id and start, the URL from the Secret), and tsc holds the renderer to the API types where
// the schemas do not. The render itself runs in this process; test/unit/k8s-manifests.test.js
// checks the manifests against the schemas.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { docs, renderK8s, validate } from '../helpers/k8s-schemas.js';

afterAll(() => removeTempDirs());

/**
 * The writers each pod runs: its container's script under `sh` with the manifest's env, `node`
 * a stub that prints its arguments (one line per writer it would start).
 * @returns {string[][]} per pod, each writer's argv
 */
function podArgv(job) {
  const bin = tempDir('rqbench-k8s-bin-');
  fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\necho "$@"\n', { mode: 0o755 });
  const c = job.spec.template.spec.containers[0];
  const env = Object.fromEntries(c.env.filter((e) => 'value' in e).map((e) => [e.name, e.value]));
  return Array.from({ length: job.spec.completions }, (_, i) =>
    execFileSync('sh', ['-c', c.args[0]], {
      env: { ...env, PATH: `${bin}:/usr/bin:/bin`, REDIS_URL: 'redis://from-the-secret:6379', JOB_COMPLETION_INDEX: String(i) },
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .map((l) => l.split(' ')),
  );
}

/** The value of a flag in one writer's argv. */
const flag = (argv, f) => argv[argv.indexOf(f) + 1];

describe.each([
  [1, 1],
  [3, 2],
  [8, 1],
])('%i pods × %i writers', (pods, perPod) => {
  let text = '';
  const before = Date.now();
  // the first render loads the k8s command's modules: more than the default 10 s on a busy host
  beforeAll(async () => {
    const r = await renderK8s(pods, perPod);
    expect(r.code, r.stderr).toBe(0);
    text = r.stdout;
  }, 60_000);

  it("holds the run's invariants: completions = parallelism = pods, disjoint slices covering 1..N*W, one run and start", () => {
    const [job, monitor] = docs(text);
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: pods, parallelism: pods, backoffLimit: 0 });
    const argv = podArgv(job);
    expect(argv.map((p) => p.length)).toEqual(Array(pods).fill(perPod));
    const slices = argv.flat().map((w) => Number(flag(w, '-a')));
    expect(new Set(slices).size).toBe(slices.length);
    expect([...slices].sort((a, b) => a - b)).toEqual(Array.from({ length: pods * perPod }, (_, i) => i + 1));
    expect(new Set(argv.flat().map((w) => flag(w, '-t')))).toEqual(new Set([String(pods * perPod)]));
    // one run id and one start for every writer of every pod, the start ~90 s after rendering
    expect(new Set(argv.flat().map((w) => flag(w, '--run-id'))).size).toBe(1);
    const starts = new Set(argv.flat().map((w) => flag(w, '--start-at')));
    expect(starts.size).toBe(1);
    expect(Number([...starts][0]) - before).toBeGreaterThanOrEqual(90_000);
    expect(Number([...starts][0]) - Date.now()).toBeLessThanOrEqual(90_000);
    // each writer of a pod has a metrics port of its own, and the pod and PodMonitor name each one
    for (const p of argv) expect(new Set(p.map((w) => flag(w, '--metrics-port'))).size).toBe(perPod);
    const ports = job.spec.template.spec.containers[0].ports;
    expect(ports.map((p) => p.containerPort)).toEqual(Array.from({ length: perPod }, (_, k) => 9100 + k));
    expect(monitor.spec.podMetricsEndpoints.map((e) => e.port)).toEqual(ports.map((p) => p.name));
    expect(monitor.spec.selector.matchLabels).toEqual(job.spec.template.metadata.labels);
    expect([job.metadata.namespace, monitor.metadata.namespace]).toEqual(['bench', 'bench']);
    // the URL only from the Secret: a secretKeyRef, and no redis:// anywhere in the text
    const env = job.spec.template.spec.containers[0].env;
    expect(env.find((e) => e.name === 'REDIS_URL')).toEqual({
      name: 'REDIS_URL',
      valueFrom: { secretKeyRef: { name: 'rqbench-redis', key: 'url' } },
    });
    expect(env.find((e) => e.name === 'REDIS_PASSWORD').valueFrom.secretKeyRef).toEqual({
      name: 'rqbench-redis',
      key: 'password',
      optional: true,
    });
    expect(text).not.toMatch(/rediss?:\/\//);
    expect(argv.flat().every((w) => flag(w, '--url') === 'redis://from-the-secret:6379')).toBe(true);
  });
});

describe('what the schemas leave to the type check', () => {
  it('a field Kubernetes does not have passes the OpenAPI schemas, so tsc holds the renderer to the API types', () => {
    // the API's schemas allow unknown fields (the server prunes or, strict, refuses them); the
    // renderer's objects are typed IJob / IPodMonitor, and `tsc -p jsconfig.json` refuses a typo
    const job = docs(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8'))[0];
    expect(() => validate({ ...job, spec: { ...job.spec, completionz: 8 } })).not.toThrow();
    const dir = tempDir('rqbench-k8s-tsc-');
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    fs.writeFileSync(
      path.join(dir, 'typo.js'),
      "/** @type {import('kubernetes-models/batch/v1/Job').IJob} */\nexport const job = { apiVersion: 'batch/v1', kind: 'Job', spec: { completionz: 8, template: {} } };\n",
    );
    let out = '';
    try {
      execFileSync(
        process.execPath,
        [
          path.join(ROOT, 'node_modules/typescript/bin/tsc'),
          '--allowJs',
          '--checkJs',
          '--noEmit',
          '--skipLibCheck',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--types',
          'node',
          'typo.js',
        ],
        { cwd: dir, encoding: 'utf8' },
      );
    } catch (e) {
      out = String(e.stdout);
    }
    expect(out).toMatch(/'completionz' does not exist in type 'IJobSpec'/);
  }, 60_000);
});
