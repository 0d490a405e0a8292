// `rqbench k8s` (issue 26, point 3): the manifests it renders for several shapes are valid against
// the Kubernetes API's OpenAPI schemas (kubernetes-models) and the Prometheus Operator's CRD schema
// (@kubernetes-models/prometheus-operator), offline; they hold the run's invariants (one pod per
// index, disjoint writer slices covering 1..N*W, one run id and start, the URL from the Secret);
// the committed deploy/ files are the renderer's output; and the validator does reject a bad one.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

afterAll(() => removeTempDirs());

/** Every document of a YAML stream. */
const docs = (text) => YAML.parseAllDocuments(text).map((d) => d.toJSON());

/** Validates one document by its kind; throws the schema's first complaints. */
function validate(doc) {
  if (doc.kind === 'Job') new Job(doc).validate();
  else if (doc.kind === 'PodMonitor') new PodMonitor(doc).validate();
  else throw new Error(`no schema for kind ${doc.kind}`);
}

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
  return Array.from({ length: job.spec.completions }, (_, i) => execFileSync('sh', ['-c', c.args[0]], {
    env: { ...env, PATH: `${bin}:/usr/bin:/bin`, REDIS_URL: 'redis://from-the-secret:6379', JOB_COMPLETION_INDEX: String(i) }, encoding: 'utf8',
  }).trim().split('\n').map((l) => l.split(' ')));
}

/** The value of a flag in one writer's argv. */
const flag = (argv, f) => argv[argv.indexOf(f) + 1];

describe.each([[1, 1], [3, 2], [8, 1]])('%i pods × %i writers', (pods, perPod) => {
  let text = '';
  const before = Date.now();

  it('renders a Job and a PodMonitor that the API schemas accept', async () => {
    const r = await runNode([CLI, 'k8s', '--pods', String(pods), '-w', String(perPod), '--podmonitor', '--namespace', 'bench', '--', '--cluster', '-q', '300000', '--ns', '10', '-d', '60']);
    expect(r.code, r.stderr).toBe(0);
    text = r.stdout;
    const all = docs(text);
    expect(all.map((d) => d.kind)).toEqual(['Job', 'PodMonitor']);
    for (const d of all) expect(() => validate(d), d.kind).not.toThrow();
    expect(r.stderr).toMatch(new RegExp(`^rqbench k8s: ${pods} pod\\(s\\) × ${perPod} writer\\(s\\), run k8s-\\d{8}-\\d{6}, start \\S+Z \\(in 90 s\\)\\n$`));
  });

  it('holds the run\'s invariants: completions = parallelism = pods, disjoint slices covering 1..N*W, one run and start', () => {
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
    expect(env.find((e) => e.name === 'REDIS_URL')).toEqual({ name: 'REDIS_URL', valueFrom: { secretKeyRef: { name: 'rqbench-redis', key: 'url' } } });
    expect(env.find((e) => e.name === 'REDIS_PASSWORD').valueFrom.secretKeyRef).toEqual({ name: 'rqbench-redis', key: 'password', optional: true });
    expect(text).not.toMatch(/rediss?:\/\//);
    expect(argv.flat().every((w) => flag(w, '--url') === 'redis://from-the-secret:6379')).toBe(true);
  });
});

describe('the committed manifests', () => {
  it('deploy/k8s/job.yaml and deploy/grafana/podmonitor.yaml are what `rqbench k8s --template --podmonitor` renders', async () => {
    const out = tempDir('rqbench-k8s-out-');
    const r = await runNode([CLI, 'k8s', '--template', '--podmonitor', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${path.join(out, 'job.yaml')}\n${path.join(out, 'podmonitor.yaml')}\n`);
    expect(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8')).toBe(fs.readFileSync(path.join(out, 'job.yaml'), 'utf8'));
    expect(fs.readFileSync(path.join(ROOT, 'deploy/grafana/podmonitor.yaml'), 'utf8')).toBe(fs.readFileSync(path.join(out, 'podmonitor.yaml'), 'utf8'));
    for (const f of ['deploy/k8s/job.yaml', 'deploy/grafana/podmonitor.yaml']) {
      for (const d of docs(fs.readFileSync(path.join(ROOT, f), 'utf8'))) expect(() => validate(d), f).not.toThrow();
    }
    const env = docs(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8'))[0].spec.template.spec.containers[0].env;
    expect(env.find((e) => e.name === 'START_AT').value).toBe('@START_AT@');
    expect(env.find((e) => e.name === 'RUN_ID').value).toBe('@RUN_ID@');
  });
});

describe('the validator can fail', () => {
  it.each([
    ['completions of the wrong type', (j) => { j.spec.completions = 'eight'; }, /spec\/completions must be integer/],
    ['a completionMode Kubernetes does not have', (j) => { j.spec.completionMode = 'Indexd'; }, /completionMode must be equal to one of the allowed values/],
    ['a container without its name', (j) => { delete j.spec.template.spec.containers[0].name; }, /containers\/0 must have required property name$/],
    ['a secretKeyRef without its key', (j) => { delete j.spec.template.spec.containers[0].env.find((e) => e.valueFrom).valueFrom.secretKeyRef.key; }, /secretKeyRef must have required property key$/],
    ['a Job without its pod template', (j) => { delete j.spec.template; }, /spec must have required property template$/],
  ])('rejects a Job with %s', (_what, spoil, message) => {
    const job = docs(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8'))[0];
    spoil(job);
    expect(() => validate(job)).toThrow(message);
  });

  it.each([
    ['a scrape interval that is no duration', (m) => { m.spec.podMetricsEndpoints[0].interval = 'five'; }, /interval must match pattern/],
    ['a selector of the wrong shape', (m) => { m.spec.selector = ['app.kubernetes.io/name=rqbench']; }, /selector must be object/],
  ])('rejects a PodMonitor with %s', (_what, spoil, message) => {
    const monitor = docs(fs.readFileSync(path.join(ROOT, 'deploy/grafana/podmonitor.yaml'), 'utf8'))[0];
    spoil(monitor);
    expect(() => validate(monitor)).toThrow(message);
  });
});

describe('what the schemas leave to the renderer and the type check', () => {
  it('a field Kubernetes does not have passes the OpenAPI schemas, so tsc holds the renderer to the API types', () => {
    // the API's schemas allow unknown fields (the server prunes or, strict, refuses them); the
    // renderer's objects are typed IJob / IPodMonitor, and `tsc -p jsconfig.json` refuses a typo
    const job = docs(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8'))[0];
    expect(() => validate({ ...job, spec: { ...job.spec, completionz: 8 } })).not.toThrow();
    const dir = tempDir('rqbench-k8s-tsc-');
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    fs.writeFileSync(path.join(dir, 'typo.js'), "/** @type {import('kubernetes-models/batch/v1/Job').IJob} */\nexport const job = { apiVersion: 'batch/v1', kind: 'Job', spec: { completionz: 8, template: {} } };\n");
    let out = '';
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '--allowJs', '--checkJs', '--noEmit', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', 'typo.js'], { cwd: dir, encoding: 'utf8' });
    } catch (e) {
      out = String(e.stdout);
    }
    expect(out).toMatch(/'completionz' does not exist in type 'IJobSpec'/);
  }, 60_000);

  it('a negative count passes the schemas too (the API server refuses it): --pods is checked here', async () => {
    const job = docs(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8'))[0];
    expect(() => validate({ ...job, spec: { ...job.spec, completions: -1 } })).not.toThrow();
    const r = await runNode([CLI, 'k8s', '--pods', '-1']);
    expect([r.code, r.stderr]).toEqual([2, 'rqbench k8s: --pods must be an integer from 1 to 1024 (got -1)\n']);
  });
});

describe('bad input', () => {
  it.each([
    [['--pods', '0'], 'rqbench k8s: --pods must be an integer from 1 to 1024 (got 0)'],
    [['--pods', '2', '--', '--cluster', '-t', '4'], 'rqbench k8s: --flags must not hold "-t": the manifest sets it: --pods × --writers-per-pod'],
    [['--', '--url', 'redis://10.0.0.5:6379'], 'rqbench k8s: --flags must not hold "--url": the URL comes from the Secret (--secret, key url)'],
    [['--', '--clusterr'], 'rqbench k8s: --flags must be producer flags (rqbench produce --help): unknown producer flag(s) --clusterr'],
    [['--pods', '4', '-w', '2', '--', '-q', '7'], 'rqbench k8s: --flags: -q must be at least the writers, pods × writers per pod (8), so every writer has an item (got 7)'],
    [['--namespace', 'Bench'], 'rqbench k8s: --namespace must be a Kubernetes name: lower-case letters, digits and \'-\', at most 63 characters (got "Bench")'],
  ])('%j: one line, exit 2, nothing written', async (args, line) => {
    const out = path.join(tempDir('rqbench-k8s-bad-'), 'k8s');
    const r = await runNode([CLI, 'k8s', '--out', out, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`${line}\n`);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(out)).toBe(false);
  });
});
