// The live metrics held to a real Prometheus (the Debian package's 2.42), scraping every second:
// a Redis producer with 2 writers beside a Redis consumer, then a queue publisher and a queue
// consumer on the SQS emulator. What Prometheus answers must be what the run directories say:
// counters equal to the runs' totals, histogram_quantile within 10% of the runs' own HdrHistogram
// figures at p50, p99 and p999, the run's labels on every series, and every query of the
// dashboard in deploy/grafana/ answered with series.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import YAML from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSqs } from '../src/local/sqs-emulator.js';
import { mergeHlogFiles } from '../src/results/hlog.js';
import { useLocalRedis } from './helpers/local-server.js';
import { ROOT, freePort, produce, readRun, runNode, tempDir } from './helpers/producer-run.js';
import { CONSUMER } from './helpers/consumer-run.js';
import { describePrometheus, startPrometheus } from './helpers/prometheus.js';

const LINGER = '3';
const JOBS = ['producer', 'consumer', 'publisher', 'queue-consumer'];

describePrometheus('live metrics, scraped by a real Prometheus', () => {
  const redis = useLocalRedis({ replicas: 1 });
  /** @type {Record<string, number>} */ const ports = {};
  /** @type {import('./helpers/prometheus.js').TestPrometheus} */ let prom;
  let sqs;
  /** @type {Record<string, { code: number|null, stderr: string, dir: string|null, summary: any, runId: string }>} */ const runs = {};
  let startS = 0;
  let endS = 0;

  beforeAll(async () => {
    for (const job of JOBS) ports[job] = await freePort();
    [prom, sqs] = await Promise.all([startPrometheus(ports), startSqs()]);
    startS = Date.now() / 1000;
    const metrics = (job) => ['--metrics-port', String(ports[job]), '--metrics-linger', LINGER, '--run-id', `${job}-${process.pid}`];
    // a producer with 2 writers and a consumer on the same items, as an experiment's step runs them
    const [p, c] = await Promise.all([
      produce({ port: redis.server.port, q: 4000, d: 8, extra: ['-t', '2', '-c', '50', '--name', 'prom-producer', ...metrics('producer')] }),
      inOut([CONSUMER, '--host', '127.0.0.1', '--port', String(redis.server.port), '-d', '8', '--warmup', '0', '--ttl', '30', '--name', 'prom-consumer', ...metrics('consumer')]),
    ]);
    Object.assign(runs, { producer: { ...p, runId: `producer-${process.pid}` }, consumer: { ...c, runId: `consumer-${process.pid}` } });
    const q = ['--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', 'prom'];
    // the queue consumer reads while the publisher publishes, once the publisher has made the queue (its run has begun)
    const pubOut = tempDir('rqbench-prom-run-');
    const publishing = inOut(['src/producer.js', ...q, '--create', '--rate', '50', '--batch-size', '100', '-d', '4', '--publisher-id', 'pub-1', '--name', 'prom-publisher', ...metrics('publisher')], pubOut);
    for (const until = Date.now() + 30_000; !fs.readdirSync(pubOut).length && Date.now() < until;) await new Promise((r) => setTimeout(r, 100));
    runs['queue-consumer'] = { ...(await inOut(['src/consumer.js', ...q, '--until-complete', '-d', '30', '--wait-seconds', '1', '--name', 'prom-queue-consumer', ...metrics('queue-consumer')])), runId: `queue-consumer-${process.pid}` };
    runs.publisher = { ...(await publishing), runId: `publisher-${process.pid}` };
    endS = Date.now() / 1000;
  }, 180_000);

  afterAll(async () => {
    await prom?.stop();
    await sqs?.stop();
  });

  /** The latest value of a query over the whole test: the runs are over, their endpoints gone. */
  const last = async (q) => (await prom.query(`last_over_time((${q})[5m:1s])`)).map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  const one = async (q) => {
    const r = await last(q);
    expect(r, q).toHaveLength(1);
    return r[0].value;
  };

  it('every run exited 0 and lingered: its last scrape saw it ended', async () => {
    for (const job of JOBS) {
      expect(runs[job].code, `${job}: ${runs[job].stderr}`).toBe(0);
      expect(await one(`rqbench_run_ended{job="${job}"}`), job).toBe(1);
    }
  });

  it("every series carries the run's labels; the writers and the publisher are named", async () => {
    const names = { producer: 'prom-producer', consumer: 'prom-consumer', publisher: 'prom-publisher', 'queue-consumer': 'prom-queue-consumer' };
    for (const job of JOBS) {
      const all = await last(`{job="${job}", __name__!~"up|scrape_.*"}`);
      expect(all.length, job).toBeGreaterThan(50);
      const unlabelled = all.filter((s) => s.metric.run_id !== runs[job].runId || s.metric.run_name !== names[job] || !s.metric.host);
      expect(unlabelled.map((s) => s.metric.__name__), job).toEqual([]);
    }
    expect(new Set((await last('{job="producer", __name__!~"up|scrape_.*"}')).map((s) => s.metric.writer))).toEqual(new Set(['1-2']));
    expect(new Set((await last('{job="publisher", __name__!~"up|scrape_.*"}')).map((s) => s.metric.publisher))).toEqual(new Set(['pub-1']));
    // prom-client's process metrics are there too, labelled the same
    expect(await one('process_cpu_seconds_total{job="producer"}')).toBeGreaterThan(0);
  });

  it("counters equal the runs' totals", async () => {
    const p = timelineSums(runs.producer.dir);
    expect(p.acked).toBe(4000 * 8);
    for (const [col, metric] of [['intended', 'rqbench_items_intended_total'], ['sent', 'rqbench_items_sent_total'], ['acked', 'rqbench_items_acknowledged_total'], ['failed', 'rqbench_items_failed_total']]) {
      expect(await one(`${metric}{job="producer"}`), metric).toBe(p[col]);
    }
    expect(runs.producer.summary.totals).toMatchObject({ intended: p.intended, sent: p.sent, acked: p.acked });
    const c = timelineSums(runs.consumer.dir);
    expect(await one('rqbench_cycles_total{job="consumer"}')).toBe(c.cycles);
    expect(await one('rqbench_cycle_overruns_total{job="consumer"}')).toBe(c.overruns);
    expect(await one('rqbench_items_read_total{job="consumer"}')).toBe(c.items);
    const pub = runs.publisher.summary.messages;
    expect(await one('rqbench_items_acknowledged_total{job="publisher"}')).toBe(pub.acked);
    expect(await one('rqbench_items_intended_total{job="publisher"}')).toBe(pub.intended);
    const qc = runs['queue-consumer'].summary.counts;
    expect(qc.messages).toBe(200);
    // the seed's own counters, under its names
    expect(await one('RealtimeTotalRowsUpdated{job="queue-consumer"}')).toBe(qc.rows);
    expect(await one('EventStatus{job="queue-consumer", event="RealtimeTotalRowsUpdated"}')).toBe(qc.rows);
    expect(await one('rqbench_messages_received_total{job="queue-consumer"}')).toBe(qc.messages);
    expect(await one('ReceivedLowLatencyNotificationsE2E_count{job="queue-consumer"}')).toBe(qc.messages);
  });

  it("histogram_quantile lands within 10% of the run directory's HdrHistogram at p50, p99 and p999", async () => {
    const checks = [
      ['producer', 'rqbench_latency_seconds', 'op="batch", from="intended"', 'batch.hlog', 'intended', 1e6],
      ['producer', 'rqbench_latency_seconds', 'op="batch", from="sent"', 'batch.hlog', 'sent', 1e6],
      ['producer', 'rqbench_schedule_lag_seconds', '', 'lag.hlog', 'lag', 1e6],
      ['consumer', 'rqbench_latency_seconds', 'op="cycle", from="sent"', 'cycle.hlog', 'sent', 1e6],
      ['publisher', 'rqbench_latency_seconds', 'op="publish", from="intended"', 'publish.hlog', 'intended', 1e6],
      // the seed's metrics keep its units: E2E in µs, server side processing in ns
      ['queue-consumer', 'ReceivedLowLatencyNotificationsE2E', '', 'e2e.hlog', 'sent', 1],
      ['queue-consumer', 'ReceivedLowLatencyNotificationsE2EIntended', '', 'e2e.hlog', 'intended', 1],
      ['queue-consumer', 'Latency', 'event="ReceivedLowLatencyNotifications"', 'processing.hlog', 'processing', 1e-3],
    ];
    const seen = [];
    for (const [job, metric, labels, file, tag, perUs] of checks) {
      const hdr = mergeHlogFiles([path.join(runs[job].dir, file)], { tag });
      expect(hdr.totalCount, `${job} ${file} ${tag}`).toBeGreaterThan(0);
      for (const q of [0.5, 0.99, 0.999]) {
        const got = await one(`histogram_quantile(${q}, sum by (le) (${metric}_bucket{job="${job}"${labels ? `, ${labels}` : ''}}))`);
        const exact = hdr.getValueAtPercentile(q * 100) / perUs;
        const off = (got - exact) / exact;
        seen.push(`${job} ${metric}${labels ? `{${labels}}` : ''} p${q * 100}: ${got.toPrecision(4)} vs ${exact.toPrecision(4)} (${(off * 100).toFixed(2)}%, n=${hdr.totalCount})`);
        expect(Math.abs(off), seen.at(-1)).toBeLessThan(0.1);
      }
    }
    process.stderr.write(`\nPrometheus histogram_quantile against the run directories' HdrHistograms:\n  ${seen.join('\n  ')}\n`);
  });

  it("every query of deploy/grafana's dashboard returns series from these runs", async () => {
    const dash = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/rqbench-dashboard.json'), 'utf8'));
    const panels = dash.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThanOrEqual(10);
    // a quantile over several hosts' buckets is one quantile only when the buckets are summed by le
    // first (else one line per host and pod): every histogram_quantile of the dashboard does
    const quantiles = panels.flatMap((p) => p.targets.map((t) => t.expr)).filter((e) => e.includes('histogram_quantile'));
    expect(quantiles.length).toBeGreaterThan(6);
    for (const e of quantiles) expect(e).toMatch(/^histogram_quantile\([\d.]+, sum by \(le\b/);
    const variables = dash.templating.list.map((v) => v.name);
    expect(variables).toEqual(expect.arrayContaining(['datasource', 'run_id']));
    // the run_id variable's query (label_values over the dashboard's time range) offers every run
    const ids = await prom.queryRange('group by (run_id) (rqbench_run_info)', Math.floor(startS), Math.ceil(endS));
    expect(new Set(ids.map((r) => r.metric.run_id))).toEqual(new Set(JOBS.map((j) => runs[j].runId)));
    const empty = [];
    for (const p of panels) {
      expect(p.targets.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets) {
        // what Grafana would send: every run picked, a rate window of a few scrapes
        const expr = t.expr.replaceAll('$run_id', '.+').replaceAll('$__rate_interval', '4s');
        const series = await prom.queryRange(expr, Math.floor(startS), Math.ceil(endS));
        if (!series.length) empty.push(`${p.title}: ${t.expr}`);
      }
    }
    expect(empty).toEqual([]);
  });

  it("deploy/grafana's scrape configs: the local one passes promtool, the Kubernetes ones find the Job's pods at its metrics port", () => {
    const dir = path.join(ROOT, 'deploy/grafana');
    execFileSync('promtool', ['check', 'config', path.join(dir, 'prometheus-local.yml')], { stdio: 'pipe' });
    const local = YAML.parse(fs.readFileSync(path.join(dir, 'prometheus-local.yml'), 'utf8'));
    expect(local.scrape_configs[0].static_configs[0].targets).toContain('127.0.0.1:9100');
    const job = YAML.parse(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8')).spec.template;
    const port = job.spec.containers[0].ports.find((p) => p.name === 'metrics');
    expect(job.metadata.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(port.containerPort), 'prometheus.io/path': '/metrics' });
    // Debian's Prometheus is built without Kubernetes discovery: the file is read, not loaded
    const k8s = YAML.parse(fs.readFileSync(path.join(dir, 'prometheus-k8s.yml'), 'utf8')).scrape_configs[0];
    expect(k8s.kubernetes_sd_configs).toEqual([{ role: 'pod' }]);
    const keep = k8s.relabel_configs.filter((r) => r.action === 'keep').map((r) => [r.source_labels[0], r.regex]);
    expect(keep).toEqual([['__meta_kubernetes_pod_annotation_prometheus_io_scrape', 'true'], ['__meta_kubernetes_pod_label_app_kubernetes_io_name', job.metadata.labels['app.kubernetes.io/name']]]);
    const monitor = YAML.parse(fs.readFileSync(path.join(dir, 'podmonitor.yaml'), 'utf8'));
    expect(monitor.spec.selector.matchLabels).toEqual(job.metadata.labels);
    expect(monitor.spec.podMetricsEndpoints[0]).toMatchObject({ port: port.name, path: '/metrics' });
  });
});

/**
 * `node <args>` with --json --quiet into a fresh --out; never rejects on a non-zero exit.
 * @param {string[]} args
 * @param {string} [out]
 */
async function inOut(args, out = tempDir('rqbench-prom-run-')) {
  const r = await runNode([...args, '--json', '--quiet', '--out', out], { timeoutMs: 90_000 });
  return { ...r, ...readRun(out, r.stdout) };
}

/** Every column of a run's timeline.csv, summed. */
function timelineSums(dir) {
  const [head, ...rows] = fs.readFileSync(path.join(dir, 'timeline.csv'), 'utf8').trim().split('\n');
  const cols = head.split(',');
  /** @type {Record<string, number>} */
  const sums = {};
  for (const r of rows) r.split(',').forEach((v, i) => { sums[cols[i]] = (sums[cols[i]] || 0) + (Number(v) || 0); });
  return sums;
}
