// The live metrics held to a real Prometheus (the Debian package's 2.42), scraping every second:
// a Redis producer with 2 writers beside a Redis consumer, then a queue publisher and a queue
// consumer on the SQS emulator, all in the default bucket layout; beside the queue runs, one run
// of two writer processes (two "hosts": -t 2 -a 1 and -a 2, one --run-id and --start-at, an
// endpoint each) in the fine layout. What Prometheus answers must be what the run directories
// say: counters equal to the runs' totals, histogram_quantile within the layout's stated bound of
// the runs' own HdrHistogram figures at p50, p99 and p999, the run's labels on every series,
// every query of the dashboard in deploy/grafana/ answered with series, its quantiles one line
// per run however many hosts ran it, and the series a scrape carries in each layout (the figures
// README.md "Live metrics" states).
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import YAML from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { mergeHlogFiles } from '../../src/record/hlog.js';
import { useLocalRedis } from '../helpers/local-server.js';
import { ROOT, freePort, produce, readRun, runNode, tempDir } from '../helpers/producer-run.js';
import { CONSUMER } from '../helpers/consumer-run.js';
import { describePrometheus, startPrometheus } from '../helpers/prometheus.js';
import { layoutOf } from '../../src/measure/prom-buckets.js';
import { settings } from '../../src/settings.js';

const LINGER = '3';
const JOBS = ['producer', 'consumer', 'publisher', 'queue-consumer'];
/** The two writer processes of one run, one Prometheus job with a target each (as pods are). */
const HOSTS = 'hosts';
/** Their layout: the one the other runs (the default) do not use. */
const HOSTS_LAYOUT = 'fine';
/**
 * What README.md "Live metrics" states, per layout: histogram_quantile within the widest
 * bucket's width of the HdrHistogram's figure (the rank's bucket holds both; prom-buckets.js),
 * and the series a scrape carries (this test's own figures, from Prometheus's
 * scrape_samples_scraped: prom-client's default metrics of the serving process vary by a few).
 */
const STATED = {
  coarse: { within: 0.125, producerSeries: 2262, queueConsumerSeries: 1535 },
  fine: { within: 0.0625, producerSeries: 4251, queueConsumerSeries: 2861 },
};
/** How far a scrape's series may be from the stated figure: prom-client's GC and heap-space series come and go. */
const SERIES_SLACK = 40;

describePrometheus('live metrics, scraped by a real Prometheus', () => {
  const redis = useLocalRedis({ replicas: 1 });
  /** @type {Record<string, number>} */ const ports = {};
  /** @type {import('../helpers/prometheus.js').TestPrometheus} */ let prom;
  let sqs;
  /** @type {Record<string, { code: number|null, stderr: string, dir: string|null, summary: any, runId: string }>} */ const runs = {};
  /** @type {Array<{ code: number|null, stderr: string, dir: string|null, summary: any, manifest: any }>} the two writer processes */
  let hosts = [];
  const hostsRunId = `hosts-${process.pid}`;
  let startS = 0;
  let endS = 0;

  beforeAll(async () => {
    for (const job of JOBS) ports[job] = await freePort();
    const hostPorts = [await freePort(), await freePort()];
    [prom, sqs] = await Promise.all([startPrometheus({ ...ports, [HOSTS]: hostPorts }), startSqs()]);
    startS = Date.now() / 1000;
    const metrics = (job) => ['--metrics-port', String(ports[job]), '--metrics-linger', LINGER, '--run-id', `${job}-${process.pid}`];
    // a producer with 2 writers and a consumer on the same items, as an experiment's step runs them
    const [p, c] = await Promise.all([
      produce({
        port: redis.server.port,
        q: 4000,
        d: 8,
        extra: ['-t', '2', '-c', '50', '--name', 'prom-producer', ...metrics('producer')],
      }),
      inOut([
        CONSUMER,
        '--host',
        '127.0.0.1',
        '--port',
        String(redis.server.port),
        '-d',
        '8',
        '--warmup',
        '0',
        '--ttl',
        '30',
        '--name',
        'prom-consumer',
        ...metrics('consumer'),
      ]),
    ]);
    Object.assign(runs, { producer: { ...p, runId: `producer-${process.pid}` }, consumer: { ...c, runId: `consumer-${process.pid}` } });
    // two writer processes of one run, as two hosts run them, while the queue runs go (they use no Redis)
    const startAt = Date.now() + 3000;
    const twoHosts = Promise.all(
      [1, 2].map((w, i) =>
        produce({
          port: redis.server.port,
          q: 4000,
          d: 2,
          extra: [
            '-t',
            '2',
            '-a',
            String(w),
            '-c',
            '50',
            '--start-at',
            String(startAt),
            '--metrics-buckets',
            HOSTS_LAYOUT,
            '--metrics-port',
            String(hostPorts[i]),
            '--metrics-linger',
            LINGER,
            '--run-id',
            hostsRunId,
          ],
        }),
      ),
    );
    const q = ['--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', 'prom'];
    // the queue consumer reads while the publisher publishes, once the publisher has made the queue (its run has begun)
    const pubOut = tempDir('rqbench-prom-run-');
    const publishing = inOut(
      [
        'src/producer.js',
        ...q,
        '--create',
        '--rate',
        '50',
        '--batch-size',
        '100',
        '-d',
        '4',
        '--publisher-id',
        'pub-1',
        '--name',
        'prom-publisher',
        ...metrics('publisher'),
      ],
      pubOut,
    );
    for (const until = Date.now() + 30_000; !fs.readdirSync(pubOut).length && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 100));
    runs['queue-consumer'] = {
      ...(await inOut([
        'src/consumer.js',
        ...q,
        '--until-complete',
        '-d',
        '30',
        '--wait-seconds',
        '1',
        '--name',
        'prom-queue-consumer',
        ...metrics('queue-consumer'),
      ])),
      runId: `queue-consumer-${process.pid}`,
    };
    runs.publisher = { ...(await publishing), runId: `publisher-${process.pid}` };
    hosts = await twoHosts;
    endS = Date.now() / 1000;
  }, 180_000);

  afterAll(async () => {
    await prom?.stop();
    await sqs?.stop();
  });

  /** The latest value of a query over the whole test: the runs are over, their endpoints gone. */
  const last = async (q) =>
    (await prom.query(`last_over_time((${q})[5m:1s])`)).map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
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
    const names = {
      producer: 'prom-producer',
      consumer: 'prom-consumer',
      publisher: 'prom-publisher',
      'queue-consumer': 'prom-queue-consumer',
    };
    for (const job of JOBS) {
      const all = await last(`{job="${job}", __name__!~"up|scrape_.*"}`);
      expect(all.length, job).toBeGreaterThan(50);
      const unlabelled = all.filter((s) => s.metric.run_id !== runs[job].runId || s.metric.run_name !== names[job] || !s.metric.host);
      expect(
        unlabelled.map((s) => s.metric.__name__),
        job,
      ).toEqual([]);
    }
    expect(new Set((await last('{job="producer", __name__!~"up|scrape_.*"}')).map((s) => s.metric.writer))).toEqual(new Set(['1-2']));
    expect(new Set((await last('{job="publisher", __name__!~"up|scrape_.*"}')).map((s) => s.metric.publisher))).toEqual(new Set(['pub-1']));
    // prom-client's process metrics are there too, labelled the same
    expect(await one('process_cpu_seconds_total{job="producer"}')).toBeGreaterThan(0);
  });

  it("counters equal the runs' totals", async () => {
    const p = timelineSums(runs.producer.dir);
    expect(p.acked).toBe(4000 * 8);
    for (const [col, metric] of [
      ['intended', 'rqbench_items_intended_total'],
      ['sent', 'rqbench_items_sent_total'],
      ['acked', 'rqbench_items_acknowledged_total'],
      ['failed', 'rqbench_items_failed_total'],
    ]) {
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

  it(`histogram_quantile lands within the default layout's bound (${settings.metricsBuckets}: ${STATED[settings.metricsBuckets].within * 100}%) of the run directory's HdrHistogram at p50, p99 and p999`, async () => {
    const within = STATED[settings.metricsBuckets].within;
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
        seen.push(
          `${job} ${metric}${labels ? `{${labels}}` : ''} p${q * 100}: ${got.toPrecision(4)} vs ${exact.toPrecision(4)} (${(off * 100).toFixed(2)}%, n=${hdr.totalCount})`,
        );
        expect(Math.abs(off), seen.at(-1)).toBeLessThan(within);
      }
    }
    process.stderr.write(
      `\nPrometheus histogram_quantile against the run directories' HdrHistograms (${settings.metricsBuckets} layout):\n  ${seen.join('\n  ')}\n`,
    );
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
    expect(new Set(ids.map((r) => r.metric.run_id))).toEqual(new Set([...JOBS.map((j) => runs[j].runId), hostsRunId]));
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

  /**
   * The last instant at which both writer processes served their final values (one scrape of
   * each saw rqbench_run_ended 1): what the two hosts' run directories hold, added up.
   */
  async function bothFinal() {
    const [r] = await prom.queryRange(`count(rqbench_run_ended{job="${HOSTS}"} == 1)`, Math.floor(startS), Math.ceil(endS) + 5);
    const both = (r?.values ?? []).filter(([, v]) => v === '2');
    expect(both.length, 'no scrape instant with both hosts ended').toBeGreaterThan(0);
    return both.at(-1)[0];
  }
  /** An instant query's one value. */
  const at = async (q, t) => {
    const r = await prom.query(q, t);
    expect(r, q).toHaveLength(1);
    return Number(r[0].value[1]);
  };

  it('two writer processes of one run (two hosts): both exited 0, one run_id, each its own run_name and endpoint', async () => {
    expect(hosts).toHaveLength(2);
    for (const h of hosts) {
      expect(h.code, h.stderr).toBe(0);
      expect(h.manifest.flags).toMatchObject({ metricsRunId: hostsRunId, metricsBuckets: HOSTS_LAYOUT });
    }
    expect(hosts.map((h) => h.summary.totals.acked)).toEqual([2000 * 2, 2000 * 2]);
    // their names differ (…-t2-a1, …-t2-a2): a panel that sums by run_name draws a line per host
    const names = await prom.queryRange(
      `group by (run_name, instance) (rqbench_run_info{run_id="${hostsRunId}"})`,
      Math.floor(startS),
      Math.ceil(endS),
    );
    expect(names).toHaveLength(2);
    expect(new Set(names.map((r) => r.metric.run_name)).size).toBe(2);
  });

  it('every quantile panel of the dashboard: one line per run_id (and op), not one per host or process', async () => {
    const dash = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/rqbench-dashboard.json'), 'utf8'));
    const quantiles = dash.panels
      .filter((p) => p.type !== 'row')
      .flatMap((p) => p.targets.map((t) => ({ title: p.title, expr: t.expr, legend: t.legendFormat })))
      .filter((t) => t.expr.includes('histogram_quantile'));
    const hostsSeen = [];
    for (const t of quantiles) {
      const expr = t.expr.replaceAll('$run_id', '.+').replaceAll('$__rate_interval', '4s');
      const series = await prom.queryRange(expr, Math.floor(startS), Math.ceil(endS));
      expect(series.length, `${t.title}: ${expr}`).toBeGreaterThan(0);
      const keys = series.map((r) => JSON.stringify(r.metric));
      // one line per run (per op where the panel splits by op): no label of a host or process left
      for (const r of series)
        expect(
          Object.keys(r.metric).filter((k) => !['run_id', 'op'].includes(k)),
          `${t.title}: ${expr}`,
        ).toEqual([]);
      expect(new Set(keys).size, `${t.title}: ${expr}`).toBe(keys.length);
      // and what the legend names is there: a label the sum dropped would print as nothing
      for (const name of [...t.legend.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]))
        expect(
          series.every((r) => r.metric[name]),
          `${t.title}: legend {{${name}}}`,
        ).toBe(true);
      if (series.some((r) => r.metric.run_id === hostsRunId)) hostsSeen.push(t.title);
    }
    // the latency and lag panels drew the two hosts' run
    expect(new Set(hostsSeen).size).toBeGreaterThanOrEqual(3);
  });

  it(`the two hosts' quantiles, summed by le, land within the ${HOSTS_LAYOUT} layout's bound (${STATED[HOSTS_LAYOUT].within * 100}%) of their merged HdrHistograms`, async () => {
    const t = await bothFinal();
    const seen = [];
    for (const [metric, labels, file, tag] of [
      ['rqbench_latency_seconds', ', op="batch", from="intended"', 'batch.hlog', 'intended'],
      ['rqbench_latency_seconds', ', op="batch", from="sent"', 'batch.hlog', 'sent'],
      ['rqbench_schedule_lag_seconds', '', 'lag.hlog', 'lag'],
    ]) {
      const hdr = mergeHlogFiles(
        hosts.map((h) => path.join(/** @type {string} */ (h.dir), file)),
        { tag },
      );
      expect(await at(`sum(${metric}_count{run_id="${hostsRunId}"${labels}})`, t)).toBe(hdr.totalCount);
      for (const q of [0.5, 0.99, 0.999]) {
        const got = await at(`histogram_quantile(${q}, sum by (le, run_id) (${metric}_bucket{run_id="${hostsRunId}"${labels}}))`, t);
        const exact = hdr.getValueAtPercentile(q * 100) / 1e6;
        const off = (got - exact) / exact;
        seen.push(
          `2 hosts ${metric}{${labels.slice(2)}} p${q * 100}: ${got.toPrecision(4)} vs ${exact.toPrecision(4)} (${(off * 100).toFixed(2)}%, n=${hdr.totalCount})`,
        );
        expect(Math.abs(off), seen.at(-1)).toBeLessThan(STATED[HOSTS_LAYOUT].within);
      }
    }
    process.stderr.write(`\nTwo hosts, ${HOSTS_LAYOUT} layout, against their merged .hlog files:\n  ${seen.join('\n  ')}\n`);
  });

  it("a counter panel's sum over the two hosts equals their run directories' totals", async () => {
    const dash = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/rqbench-dashboard.json'), 'utf8'));
    const panel = dash.panels.find((p) => p.targets?.some((x) => x.expr.includes('rqbench_items_acknowledged_total')));
    const t = await bothFinal();
    for (const [metric, total] of [
      ['rqbench_items_acknowledged_total', 'acked'],
      ['rqbench_items_intended_total', 'intended'],
      ['rqbench_items_sent_total', 'sent'],
    ]) {
      const target = panel.targets.find((x) => x.expr.includes(metric));
      if (!target) continue;
      const expr = target.expr.replaceAll('$run_id', hostsRunId);
      // the panel as Grafana draws it: one line for the run
      expect(await prom.queryRange(expr.replaceAll('$__rate_interval', '4s'), Math.floor(startS), Math.ceil(endS)), expr).toHaveLength(1);
      // the same sum over the counters themselves, not their rate, at the hosts' final values
      const counted = expr.replace(/rate\((\w+\{[^}]*\})\[\$__rate_interval\]\)/, '$1');
      expect(counted, 'the panel sums a rate of the counter').not.toBe(expr);
      expect(await at(counted, t), `${counted} at ${t}`).toBe(hosts[0].summary.totals[total] + hosts[1].summary.totals[total]);
    }
  });

  it('the series a scrape carries, per layout: what README.md states', async () => {
    const scraped = async (job) =>
      (await prom.query(`max by (instance) (max_over_time(scrape_samples_scraped{job="${job}"}[5m]))`)).map((r) => Number(r.value[1]));
    /** The histograms in a job's scrapes (every target's): their label sets (name and labels but le), each with its bucket count. */
    const histograms = async (job) => {
      const r = await fetch(
        `${prom.url}/api/v1/series?${new URLSearchParams({ 'match[]': `{job="${job}", le!=""}`, start: String(Math.floor(startS)), end: String(Math.ceil(endS) + 5) })}`,
      );
      /** @type {Map<string, number>} */
      const sets = new Map();
      for (const { le, ...labels } of (await r.json()).data) {
        const key = JSON.stringify(Object.entries(labels).sort());
        sets.set(key, (sets.get(key) ?? 0) + 1);
      }
      return [...sets.values()];
    };
    const coarse = layoutOf('coarse').us.length + 1;
    const fine = layoutOf('fine').us.length + 1;
    const figures = [];
    // the producer, default layout: rqbench_latency_seconds (batch and each command, intended and sent) and the schedule lag
    const [producer] = await scraped('producer');
    const producerSets = (await histograms('producer')).filter((n) => n === coarse).length;
    expect(producerSets).toBeGreaterThanOrEqual(3);
    // a writer process of the two hosts: the same histograms, fine (+Inf, _sum and _count are 3 more each)
    const hostScrapes = await scraped(HOSTS);
    expect(hostScrapes).toHaveLength(2);
    expect((await histograms(HOSTS)).filter((n) => n === fine).length).toBe(2 * producerSets);
    const producerFine = Math.max(...hostScrapes);
    figures.push(
      `producer endpoint: ${producer} series coarse (${producerSets} histograms of ${coarse} buckets), ${producerFine} fine (a writer process of the two hosts)`,
    );
    expect(producerFine - producer, 'the difference is the buckets, give or take the process metrics').toBeGreaterThan(
      producerSets * (fine - coarse) - SERIES_SLACK,
    );
    expect(producerFine - producer).toBeLessThan(producerSets * (fine - coarse) + SERIES_SLACK);
    // the queue consumer, default layout; fine: the same scrape with 221 more buckets in each of its histograms
    const [queueConsumer] = await scraped('queue-consumer');
    const queueSets = (await histograms('queue-consumer')).filter((n) => n === coarse).length;
    expect(queueSets).toBeGreaterThanOrEqual(4);
    const queueConsumerFine = queueConsumer + queueSets * (fine - coarse);
    figures.push(
      `queue consumer endpoint: ${queueConsumer} series coarse (${queueSets} histograms of ${coarse} buckets), ${queueConsumerFine} fine (computed: ${fine - coarse} more buckets each)`,
    );
    process.stderr.write(`\nSeries per scrape:\n  ${figures.join('\n  ')}\n`);
    for (const [got, stated, what] of [
      [producer, STATED.coarse.producerSeries, 'producer, coarse'],
      [producerFine, STATED.fine.producerSeries, 'producer, fine'],
      [queueConsumer, STATED.coarse.queueConsumerSeries, 'queue consumer, coarse'],
      [queueConsumerFine, STATED.fine.queueConsumerSeries, 'queue consumer, fine'],
    ]) {
      expect(Math.abs(got - stated), `${what}: ${got} series, README.md states ${stated}`).toBeLessThanOrEqual(SERIES_SLACK);
    }
    // the stated bounds are the layouts' widest buckets
    for (const [name, { within }] of Object.entries(STATED)) expect(within).toBe(1 / layoutOf(name).steps);
  });

  it("deploy/grafana's scrape configs: the local one passes promtool, the Kubernetes ones find the Job's pods at its metrics port", () => {
    const dir = path.join(ROOT, 'deploy/grafana');
    execFileSync('promtool', ['check', 'config', path.join(dir, 'prometheus-local.yml')], { stdio: 'pipe' });
    const local = YAML.parse(fs.readFileSync(path.join(dir, 'prometheus-local.yml'), 'utf8'));
    expect(local.scrape_configs[0].static_configs[0].targets).toContain('127.0.0.1:9100');
    const job = YAML.parse(fs.readFileSync(path.join(ROOT, 'deploy/k8s/job.yaml'), 'utf8')).spec.template;
    const port = job.spec.containers[0].ports.find((p) => p.name === 'metrics');
    expect(job.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(port.containerPort),
      'prometheus.io/path': '/metrics',
    });
    // Debian's Prometheus is built without Kubernetes discovery: the file is read, not loaded
    const k8s = YAML.parse(fs.readFileSync(path.join(dir, 'prometheus-k8s.yml'), 'utf8')).scrape_configs[0];
    expect(k8s.kubernetes_sd_configs).toEqual([{ role: 'pod' }]);
    const keep = k8s.relabel_configs.filter((r) => r.action === 'keep').map((r) => [r.source_labels[0], r.regex]);
    expect(keep).toEqual([
      ['__meta_kubernetes_pod_annotation_prometheus_io_scrape', 'true'],
      ['__meta_kubernetes_pod_label_app_kubernetes_io_name', job.metadata.labels['app.kubernetes.io/name']],
    ]);
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
  for (const r of rows)
    r.split(',').forEach((v, i) => {
      sums[cols[i]] = (sums[cols[i]] || 0) + (Number(v) || 0);
    });
  return sums;
}
