// --metrics-buckets (issue 25, point 5): every command that serves metrics takes the bucket layout,
// records it in manifest.json's flags and serves its histograms in it; a runner's hub hands its
// layout to the children that relay to it (relayArgs), so the one endpoint serves every step in the
// runner's layout. Real processes and a real Redis; prometheus.test.js holds the layouts' figures to
// a real Prometheus, and test/unit/metrics-flags.test.js refuses a bad layout.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MetricsHub } from '../../src/harness/metrics-hub.js';
import { Stopper, relayArgs, runChild } from '../../src/experiments/children.js';
import { layoutOf } from '../../src/measure/prom-buckets.js';
import { useLocalRedis } from '../helpers/local-server.js';
import { PRODUCER, freePort, runNode, tempDir } from '../helpers/producer-run.js';

const SLOW = { timeout: 60_000 };
const redis = useLocalRedis();

/** Buckets per series of a histogram in an exposition (+Inf included), by metric name and its labels but le. */
function bucketsPerSeries(text, name) {
  /** @type {Map<string, number>} */
  const per = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}_bucket{`)) continue;
    const key = line.slice(0, line.lastIndexOf(' ')).replace(/,?le="[^"]*"/, '');
    per.set(key, (per.get(key) ?? 0) + 1);
  }
  return [...per.values()];
}

describe('--metrics-buckets: what a run serves and records', () => {
  /** A producer run scraped while it lingers; its manifest's flags. */
  async function produceAndScrape(extra) {
    const port = await freePort();
    const out = tempDir('rqbench-buckets-run-');
    const running = runNode(
      [
        PRODUCER,
        '--host',
        '127.0.0.1',
        '--port',
        String(redis.server.port),
        '-q',
        '500',
        '-d',
        '1',
        '--warmup',
        '0',
        '--quiet',
        '--out',
        out,
        '--metrics-port',
        String(port),
        '--metrics-linger',
        '2',
        ...extra,
      ],
      { timeoutMs: 30_000 },
    );
    let text = '';
    for (const until = Date.now() + 25_000; !/^rqbench_run_ended\{[^}]*\} 1$/m.test(text) && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 200));
      text = await fetch(`http://127.0.0.1:${port}/metrics`).then(
        (r) => r.text(),
        () => '',
      );
    }
    const r = await running;
    expect(r.code, r.stderr).toBe(0);
    const [dir] = fs.readdirSync(out);
    return { text, flags: JSON.parse(fs.readFileSync(path.join(out, dir, 'manifest.json'), 'utf8')).flags };
  }

  it("coarse by default, fine when asked: the histograms have the layout's buckets, manifest.json records it", SLOW, async () => {
    const [byDefault, fine] = await Promise.all([produceAndScrape([]), produceAndScrape(['--metrics-buckets', 'fine'])]);
    expect(byDefault.flags.metricsBuckets).toBe('coarse');
    expect(fine.flags.metricsBuckets).toBe('fine');
    for (const [{ text }, layout] of [
      [byDefault, 'coarse'],
      [fine, 'fine'],
    ]) {
      for (const name of ['rqbench_latency_seconds', 'rqbench_schedule_lag_seconds']) {
        const per = bucketsPerSeries(text, name);
        expect(per.length, `${layout} ${name}`).toBeGreaterThan(0);
        expect(new Set(per), `${layout} ${name}`).toEqual(new Set([layoutOf(layout).us.length + 1]));
      }
    }
  });

  it("a runner's hub: its children relay in the runner's layout (relayArgs), and the hub serves them as they are", SLOW, async () => {
    const stopper = new Stopper(() => {});
    try {
      for (const layout of ['fine', 'coarse']) {
        const port = await freePort();
        const hub = await MetricsHub.open({
          port,
          lingerS: 0,
          keepS: 30,
          labels: { run_id: 'exp-b', run_name: 'experiment' },
          buckets: layout,
          quiet: true,
        });
        try {
          const argv = [
            PRODUCER,
            '--host',
            '127.0.0.1',
            '--port',
            String(redis.server.port),
            '-q',
            '500',
            '-d',
            '1',
            '--warmup',
            '0',
            '--quiet',
            '--out',
            tempDir('rqbench-buckets-hub-'),
            '--name',
            'producer',
          ];
          const child = await runChild([...argv, ...relayArgs({ hub, runId: 'exp-b' }, 's1')], stopper, { hub });
          expect(child.code, child.lastLine).toBe(0);
          const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
          const per = bucketsPerSeries(text, 'rqbench_latency_seconds');
          expect(per.length, layout).toBeGreaterThan(0);
          expect(new Set(per), layout).toEqual(new Set([layoutOf(layout).us.length + 1]));
          expect(text).toMatch(/^rqbench_latency_seconds_bucket\{[^}]*step="s1"[^}]*\} \d+$/m);
        } finally {
          await hub.close();
        }
      }
    } finally {
      stopper.dispose();
    }
  });
});
