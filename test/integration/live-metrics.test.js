// The live endpoint's edges, without Prometheus (prometheus.test.js holds the numbers to a real
// one): a port in use and --metrics-relay without a parent refused in one line, exit 2, nothing
// written (the other bad --metrics-* values: test/unit/metrics-flags.test.js);
// the final values served for --metrics-linger after the summary is out, a Ctrl-C ending the
// wait at once and a second one during a run still leaving at once; `rqbench load`'s cells; and
// a runner's hub serving its children's steps (--metrics-relay) on one endpoint.
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsHub } from '../../src/harness/metrics-hub.js';
import { useLocalRedis } from '../helpers/local-server.js';
import { CONSUMER } from '../helpers/consumer-run.js';
import { CLI, PRODUCER, ROOT, freePort, listTree, runNode, tempDir } from '../helpers/producer-run.js';
import { rqbench, seedScript } from '../helpers/in-process.js';

const SLOW = { timeout: 60_000 };
const redis = useLocalRedis();

/** Sample lines of an exposition, by name and labels as written, without the run's labels. */
async function scrape(url) {
  const text = await (await fetch(url)).text();
  const out = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(
      line
        .slice(0, i)
        .replace(/,?(run_id|run_name|host|writer)="[^"]*"/g, '')
        .replace('{,', '{')
        .replace('{}', ''),
      Number(line.slice(i + 1)),
    );
  }
  return out;
}

/** Spawns `node args…`; resolves once stderr matches `re` (the child keeps running). */
function startUntil(args, re, opts = {}) {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const closed = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, at: Date.now() })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ${re} in: ${stderr}`));
    }, 40_000);
    child.stderr.on('data', () => {
      if (re.test(stderr)) {
        clearTimeout(timer);
        resolve({ child, closed, out: () => ({ stdout, stderr }) });
      }
    });
  });
}

describe('bad values that need a listener or a process of their own: one line naming the flag, exit 2, nothing written', () => {
  /** @type {net.Server} */ let taken;
  let busy;
  let file;
  beforeAll(async () => {
    file = path.join(tempDir('rqbench-bad-metrics-file-'), 'delta.tsv');
    expect((await rqbench(['load', '--generate', file, '--records', '1000', '--quiet'])).code).toBe(0);
    busy = await freePort();
    taken = net.createServer();
    await new Promise((r) => taken.listen({ host: '127.0.0.1', port: busy }, r));
  });
  afterAll(() => taken?.close());

  /** Each refusal's checks; `written` is what its --out holds after. */
  function expectRefused(what, r, written, re) {
    expect(r.code, what).toBe(2);
    expect(r.stderr.trim().split('\n'), what).toHaveLength(1);
    expect(r.stderr, what).toMatch(re);
    expect(written, what).toEqual([]);
  }

  it(
    'a --metrics-port in use, on every command that serves metrics (in this process; the other values: test/unit/metrics-flags.test.js)',
    SLOW,
    async () => {
      const redisAt = ['--host', '127.0.0.1', '--port', String(redis.server.port), '-d', '1'];
      const commands = {
        producer: (argv) => seedScript('producer.js', [...redisAt, ...argv]),
        consumer: (argv) => seedScript('consumer.js', [...redisAt, ...argv]),
        'queue consumer': (argv) =>
          seedScript('consumer.js', ['--target', 'sqs', '--queue', 'q', '--endpoint', 'http://127.0.0.1:9', '-d', '1', ...argv]),
        load: (argv) => rqbench(['load', file, '--sink', 'noop', ...argv]),
      };
      for (const [name, run] of Object.entries(commands)) {
        const out = tempDir('rqbench-bad-metrics-');
        const r = await run(['--out', out, '--metrics-port', String(busy)]);
        expectRefused(
          `${name} --metrics-port ${busy}: ${r.stderr}`,
          r,
          listTree(out),
          new RegExp(`--metrics-port ${busy} is in use on 127\\.0\\.0\\.1`),
        );
      }
    },
  );

  it(
    '--metrics-relay with no parent to relay to: a process of its own (a test worker has an IPC channel, so it cannot run in this one)',
    SLOW,
    async () => {
      const out = tempDir('rqbench-bad-metrics-');
      const r = await runNode(
        [PRODUCER, '--host', '127.0.0.1', '--port', String(redis.server.port), '-d', '1', '--out', out, '--metrics-relay'],
        { timeoutMs: 30_000 },
      );
      expectRefused(
        `producer --metrics-relay: ${r.stderr}`,
        r,
        listTree(out),
        /--metrics-relay must be used by a parent process that spawned this one with an IPC channel/,
      );
    },
  );
});

describe('the end of a run', () => {
  const base = () => [
    PRODUCER,
    '--host',
    '127.0.0.1',
    '--port',
    String(redis.server.port),
    '-q',
    '1000',
    '-t',
    '2',
    '--warmup',
    '0',
    '--json',
    '--out',
    tempDir('rqbench-linger-'),
  ];

  it('the summary is out first, then the final values stay up --metrics-linger seconds, then the process exits', SLOW, async () => {
    const port = await freePort();
    const run = await startUntil(
      [...base(), '-d', '2', '--metrics-port', String(port), '--metrics-linger', '3'],
      /the final values stay on \S+ for 3 s/,
    );
    const m = await scrape(`http://127.0.0.1:${port}/metrics`);
    const summary = JSON.parse(run.out().stdout);
    expect(m.get('rqbench_run_ended')).toBe(1);
    expect(m.get('rqbench_items_acknowledged_total')).toBe(summary.totals.acked);
    expect(m.get('rqbench_items_intended_total')).toBe(summary.totals.intended);
    const lingerFrom = Date.now();
    const end = await run.closed;
    expect(end.code).toBe(0);
    expect(end.at - lingerFrom).toBeGreaterThan(2000);
    expect(end.at - lingerFrom).toBeLessThan(6000);
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it("a Ctrl-C during the linger leaves at once, with the run's exit code", SLOW, async () => {
    const port = await freePort();
    const run = await startUntil(
      [...base(), '-d', '1', '--metrics-port', String(port), '--metrics-linger', '60'],
      /the final values stay on/,
    );
    const at = Date.now();
    run.child.kill('SIGINT');
    const end = await run.closed;
    expect(end.code).toBe(0);
    expect(end.at - at).toBeLessThan(3000);
  });

  it('Ctrl-C twice during a run still leaves at once: the first stops it (and it lingers), the second leaves', SLOW, async () => {
    const port = await freePort();
    const run = await startUntil(
      [...base(), '-d', '30', '--metrics-port', String(port), '--metrics-linger', '60'],
      /run directory|metrics: http/,
    );
    await new Promise((r) => setTimeout(r, 2500));
    run.child.kill('SIGINT');
    for (const until = Date.now() + 20_000; !/the final values stay on/.test(run.out().stderr) && Date.now() < until;)
      await new Promise((r) => setTimeout(r, 100));
    expect((await scrape(`http://127.0.0.1:${port}/metrics`)).get('rqbench_run_ended')).toBe(1);
    const at = Date.now();
    run.child.kill('SIGINT');
    const end = await run.closed;
    expect(end.code).toBe(130);
    expect(end.at - at).toBeLessThan(3000);
    expect(JSON.parse(run.out().stdout).interrupted).toBe(true);
  });
});

it('rqbench load: the records stored and every cell of the grid', SLOW, async () => {
  const file = path.join(tempDir('rqbench-load-metrics-'), 'delta.tsv');
  expect((await runNode([CLI, 'load', '--generate', file, '--records', '20000', '--quiet'])).code).toBe(0);
  const port = await freePort();
  const run = await startUntil(
    [
      CLI,
      'load',
      file,
      '--sink',
      'noop',
      '--reader-threads',
      '1,2',
      '--connections',
      '2',
      '--out',
      tempDir('rqbench-load-metrics-'),
      '--metrics-port',
      String(port),
      '--metrics-linger',
      '2',
    ],
    /metrics: http/,
  );
  let ended = false;
  for (const until = Date.now() + 30_000; !ended && Date.now() < until;) {
    const m = await scrape(`http://127.0.0.1:${port}/metrics`);
    if (m.get('rqbench_run_ended') === 1) {
      ended = true;
      expect(m.get('rqbench_load_cells_finished_total')).toBe(2);
      expect(m.get('rqbench_load_records_stored_total')).toBe(40_000);
      expect(m.get('rqbench_load_cell_records_per_second{threads="2",connections="2"}')).toBeGreaterThan(0);
      expect(m.get('rqbench_run_info{kind="load"}')).toBe(1);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(ended).toBe(true);
  expect((await run.closed).code).toBe(0);
});

it(
  "rqbench kv: operations due, sent and answered, each node's share, latency per operation, as summary.json counts them",
  SLOW,
  async () => {
    const port = await freePort();
    const run = await startUntil(
      [
        CLI,
        'kv',
        '--host',
        '127.0.0.1',
        '--port',
        String(redis.server.port),
        '--mix',
        'get:80,set:20',
        '--rate',
        '2000',
        '-d',
        '2',
        '--warmup',
        '0',
        '--json',
        '--out',
        tempDir('rqbench-kv-metrics-'),
        '--metrics-port',
        String(port),
        '--metrics-linger',
        '2',
      ],
      /metrics: http/,
    );
    let final = null;
    for (const until = Date.now() + 30_000; !final && Date.now() < until;) {
      const m = await scrape(`http://127.0.0.1:${port}/metrics`);
      if (m.get('rqbench_run_ended') === 1) final = m;
      else await new Promise((r) => setTimeout(r, 200));
    }
    expect(final).not.toBeNull();
    const m = /** @type {Map<string, number>} */ (final);
    const closed = await run.closed;
    expect(closed.code).toBe(0);
    const s = JSON.parse(run.out().stdout);
    expect(m.get('rqbench_run_info{kind="kv"}')).toBe(1);
    expect(m.get('rqbench_operations_answered_total')).toBe(s.totals.acked);
    expect(m.get('rqbench_operations_sent_total')).toBe(s.totals.sent);
    expect(m.get('rqbench_operations_intended_total')).toBe(s.totals.intended);
    expect(m.get(`rqbench_operations_by_node_total{node="127.0.0.1:${redis.server.port}"}`)).toBe(s.totals.sent);
    // every answer is in a histogram, the drain's too (summary.json's percentiles keep to the window)
    const answered = (/** @type {string} */ op) => m.get(`rqbench_latency_seconds_count{op="${op}",from="intended"}`) ?? 0;
    expect(answered('all')).toBe(s.totals.acked);
    expect(answered('get') + answered('set')).toBe(s.totals.acked);
    expect(answered('get')).toBeGreaterThan(answered('set'));
  },
);

it("a runner's hub: children relay their steps (a producer beside a consumer) to one endpoint", SLOW, async () => {
  const port = await freePort();
  const hub = await MetricsHub.open({ port, lingerS: 0, keepS: 30, labels: { run_id: 'exp-1', run_name: 'experiment' }, quiet: true });
  try {
    const child = (script, step, extra) =>
      new Promise((resolve) => {
        const c = spawn(
          process.execPath,
          [
            script,
            '--host',
            '127.0.0.1',
            '--port',
            String(redis.server.port),
            '-d',
            '2',
            '--warmup',
            '0',
            '--quiet',
            '--json',
            '--out',
            tempDir('rqbench-hub-'),
            '--run-id',
            'exp-1',
            '--metrics-relay',
            '--metrics-label',
            `step=${step}`,
            ...extra,
          ],
          { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
        );
        let stdout = '';
        c.stdout.on('data', (d) => {
          stdout += d;
        });
        hub.attach(c);
        c.once('close', (code) => resolve({ code, summary: JSON.parse(stdout || 'null') }));
      });
    const step = (name) =>
      Promise.all([child(PRODUCER, name, ['-q', '500', '--name', 'producer']), child(CONSUMER, name, ['--name', 'consumer'])]);
    const [[p1, c1], [p2]] = [await step('s1'), await step('s2')];
    expect([p1.code, c1.code, p2.code]).toEqual([0, 0, 0]);
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const acked = (s) =>
      Number(
        new RegExp(`^rqbench_items_acknowledged_total\\{[^}]*run_name="producer"[^}]*step="${s}"[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1],
      );
    expect(acked('s1')).toBe(p1.summary.totals.acked);
    expect(acked('s2')).toBe(p2.summary.totals.acked);
    expect(text).toMatch(/^rqbench_cycles_total\{[^}]*run_name="consumer"[^}]*step="s1"[^}]*\} \d+$/m);
    // the runner's own process, and each child's, side by side
    expect(text).toMatch(/^process_cpu_seconds_total\{[^}]*run_id="exp-1",run_name="experiment"\} /m);
    expect(text).toMatch(/^process_cpu_seconds_total\{[^}]*run_name="producer"[^}]*step="s2"[^}]*\} /m);
    // one family each: no HELP line twice
    const helps = text.split('\n').filter((l) => l.startsWith('# HELP'));
    expect(new Set(helps).size).toBe(helps.length);
  } finally {
    await hub.close();
  }
});
