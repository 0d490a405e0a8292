// `rqbench k8s` (issue 26, point 3): the manifests it renders for several shapes are valid against
// the Kubernetes API's OpenAPI schemas (kubernetes-models) and the Prometheus Operator's CRD schema
// (@kubernetes-models/prometheus-operator), offline; the committed deploy/ files are the renderer's
// output; the validator does reject a bad one; bad input is one line, exit 2, nothing written.
// rqbench k8s runs in this process. The run's invariants (one pod per index, disjoint writer slices
// covering 1..N*W, one run id and start, the URL from the Secret) need each pod's container script
// run under sh, and the type check needs tsc: test/integration/k8s-processes.test.js.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { rqbench } from '../helpers/in-process.js';
import { docs, renderK8s, validate } from '../helpers/k8s-schemas.js';

afterAll(() => removeTempDirs());

describe.each([
  [1, 1],
  [3, 2],
  [8, 1],
])('%i pods × %i writers', (pods, perPod) => {
  it('renders a Job and a PodMonitor that the API schemas accept', async () => {
    const r = await renderK8s(pods, perPod);
    expect(r.code, r.stderr).toBe(0);
    const all = docs(r.stdout);
    expect(all.map((d) => d.kind)).toEqual(['Job', 'PodMonitor']);
    for (const d of all) expect(() => validate(d), d.kind).not.toThrow();
    expect(r.stderr).toMatch(
      new RegExp(`^rqbench k8s: ${pods} pod\\(s\\) × ${perPod} writer\\(s\\), run k8s-\\d{8}-\\d{6}, start \\S+Z \\(in 90 s\\)\\n$`),
    );
  });
});

describe('the committed manifests', () => {
  it('deploy/k8s/job.yaml and deploy/grafana/podmonitor.yaml are what `rqbench k8s --template --podmonitor` renders', async () => {
    const out = tempDir('rqbench-k8s-out-');
    const r = await rqbench(['k8s', '--template', '--podmonitor', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${path.join(out, 'job.yaml')}\n${path.join(out, 'podmonitor.yaml')}\n`);
    expect(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8')).toBe(fs.readFileSync(path.join(out, 'job.yaml'), 'utf8'));
    expect(fs.readFileSync(path.join(ROOT, 'deploy/grafana/podmonitor.yaml'), 'utf8')).toBe(
      fs.readFileSync(path.join(out, 'podmonitor.yaml'), 'utf8'),
    );
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
    [
      'completions of the wrong type',
      (j) => {
        j.spec.completions = 'eight';
      },
      /spec\/completions must be integer/,
    ],
    [
      'a completionMode Kubernetes does not have',
      (j) => {
        j.spec.completionMode = 'Indexd';
      },
      /completionMode must be equal to one of the allowed values/,
    ],
    [
      'a container without its name',
      (j) => {
        delete j.spec.template.spec.containers[0].name;
      },
      /containers\/0 must have required property name$/,
    ],
    [
      'a secretKeyRef without its key',
      (j) => {
        delete j.spec.template.spec.containers[0].env.find((e) => e.valueFrom).valueFrom.secretKeyRef.key;
      },
      /secretKeyRef must have required property key$/,
    ],
    [
      'a Job without its pod template',
      (j) => {
        delete j.spec.template;
      },
      /spec must have required property template$/,
    ],
  ])('rejects a Job with %s', (_what, spoil, message) => {
    const job = docs(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8'))[0];
    spoil(job);
    expect(() => validate(job)).toThrow(message);
  });

  it.each([
    [
      'a scrape interval that is no duration',
      (m) => {
        m.spec.podMetricsEndpoints[0].interval = 'five';
      },
      /interval must match pattern/,
    ],
    [
      'a selector of the wrong shape',
      (m) => {
        m.spec.selector = ['app.kubernetes.io/name=rqbench'];
      },
      /selector must be object/,
    ],
  ])('rejects a PodMonitor with %s', (_what, spoil, message) => {
    const monitor = docs(fs.readFileSync(path.join(ROOT, 'deploy/grafana/podmonitor.yaml'), 'utf8'))[0];
    spoil(monitor);
    expect(() => validate(monitor)).toThrow(message);
  });
});

describe('what the schemas leave to the renderer', () => {
  it('a negative count passes the schemas too (the API server refuses it): --pods is checked here', async () => {
    const job = docs(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8'))[0];
    expect(() => validate({ ...job, spec: { ...job.spec, completions: -1 } })).not.toThrow();
    const r = await rqbench(['k8s', '--pods', '-1']);
    expect([r.code, r.stderr]).toEqual([2, 'rqbench k8s: --pods must be an integer from 1 to 1024 (got -1)\n']);
  });
});

describe('bad input', () => {
  it.each([
    [['--pods', '0'], 'rqbench k8s: --pods must be an integer from 1 to 1024 (got 0)'],
    [
      ['--pods', '2', '--', '--cluster', '-t', '4'],
      'rqbench k8s: --flags must not hold "-t": the manifest sets it: --pods × --writers-per-pod',
    ],
    [
      ['--', '--url', 'redis://10.0.0.5:6379'],
      'rqbench k8s: --flags must not hold "--url": the URL comes from the Secret (--secret, key url)',
    ],
    // the refusal names the flag, never the password it was given
    [
      ['--pods', '2', '--', '--password=s3cr3tPW', '-q', '100'],
      'rqbench k8s: --flags must not hold "--password=***": the password comes from the Secret (key password)',
    ],
    // every value the producer would refuse in each pod is refused here, by the producer's own checks
    [['--', '-q', '100', '--ttl', 'abc'], 'rqbench k8s: --flags: --ttl needs a number (got "abc")'],
    [['--', '-q', '100', '-d', '-5'], /^rqbench k8s: --flags: --duration must be a number of seconds from 0 to 604800/],
    [['--', '-q', '100', '-p', '0'], 'rqbench k8s: --flags: -p must be an integer from 1 to 3600000 (got 0)'],
    [['--', '-q', '100', '--value-size', '0'], 'rqbench k8s: --flags: --value-size must be an integer from 16 to 67108864 (got 0)'],
    [['--', '-q', '100', '--metrics-buckets', 'bogus'], 'rqbench k8s: --flags: --metrics-buckets must be coarse or fine (got "bogus")'],
    [['--', '--clusterr'], 'rqbench k8s: --flags must be producer flags (rqbench produce --help): unknown producer flag(s) --clusterr'],
    [
      ['--pods', '4', '-w', '2', '--', '-q', '7'],
      'rqbench k8s: --flags: -q must be at least the writers, pods × writers per pod (8), so every writer has an item (got 7)',
    ],
    [
      ['--namespace', 'Bench'],
      'rqbench k8s: --namespace must be a Kubernetes name: lower-case letters, digits and \'-\', at most 63 characters (got "Bench")',
    ],
    // a value that starts with "-" is read as a flag: the line says how to give it
    [
      ['--flags', '--cluster -q 100'],
      'rqbench: --flags needs a value (the next word, "--cluster -q 100", starts with "-" and is read as a flag): give it as --flags="--cluster -q 100", or put the producer flags after -- (rqbench k8s --pods 3 -- --cluster -q 300000)',
    ],
  ])('%j: one line, exit 2, nothing written', async (args, line) => {
    const out = path.join(tempDir('rqbench-k8s-bad-'), 'k8s');
    const r = await rqbench(['k8s', '--out', out, ...args]);
    expect(r.code).toBe(2);
    if (line instanceof RegExp) expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(line)]);
    else expect(r.stderr).toBe(`${line}\n`);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(out)).toBe(false);
  });

  it('--out that is not a directory: refused before anything is said or written, in one line naming --out', async () => {
    const r = await rqbench(['k8s', '--out', '/dev/null', '--', '-q', '100']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('rqbench k8s: --out must be a directory rqbench can write ("/dev/null" is not a directory)\n');
  });
});
