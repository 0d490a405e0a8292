/**
 * Command errors in the middle of a run are counted and reported, never a crash; a cluster node
 * spoken to without --cluster (MOVED) is said as it happens, once, and the run is not a success.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startRedis } from '../../src/local/local-redis.js';
import { runNode } from '../helpers/run.js';
import { readRunDir } from '../../src/report/read/run-dirs.js';
import { histogramName, mergeHistograms } from '../../src/report/merge-runs.js';
import { describeRun, produce } from '../helpers/producer-run.js';
import { clusterWithLiveItems, consume, describeConsumer } from '../helpers/consumer-run.js';
import { OPS_SLOT } from '../../src/workloads/single-ops/redis-ops.js';

let server;
let out;

beforeAll(async () => {
  server = await startRedis();
  out = mkdtempSync(path.join(os.tmpdir(), 'rqbench-errors-'));
}, 30_000);

afterAll(async () => {
  await server?.stop();
  if (out) rmSync(out, { recursive: true, force: true });
});

describe("the seed's crashes and hangs", () => {
  it('writes 300k members in one ZADD per period without a stack overflow (the seed needed --stack-size=2000)', async () => {
    const dir = mkdtempSync(path.join(out, 'big-'));
    const r = await runNode(
      'src/producer.js',
      [
        '--port',
        String(server.port),
        '-q',
        '300000',
        '-c',
        '1',
        '-d',
        '2',
        '--warmup',
        '0',
        '--ttl',
        '30',
        '--out',
        dir,
        '--json',
        '--quiet',
      ],
      { timeoutMs: 90_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.totals.failed).toBe(0);
    // every ZADD of the run, from its .hlog (the summary's latency counts replies inside its window;
    // one whose reply lands after the last second is still an acknowledged period of 300k items)
    const [runDir] = readdirSync(dir).map((d) => path.join(dir, d));
    const zadds = mergeHistograms([readRunDir(runDir)], { fromSec: 0, toSec: Infinity, ops: ['zadd'] }).get(histogramName('zadd', 'sent'));
    expect(zadds.totalCount).toBe(s.totals.acked / 300000);
    expect(s.totals.acked).toBe(600000);
    const admin = new Redis({ host: '127.0.0.1', port: server.port });
    expect(await admin.zcard('latest-ids')).toBe(300000);
    await admin.flushall();
    await admin.quit();
  }, 120_000);

  it('terminates with more chunks than items (the seed looped forever): one item per chunk', async () => {
    const dir = mkdtempSync(path.join(out, 'chunks-'));
    const r = await runNode('src/producer.js', [
      '--port',
      String(server.port),
      '-q',
      '10',
      '-c',
      '1000',
      '-d',
      '2',
      '--warmup',
      '0',
      '--out',
      dir,
      '--json',
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.totals.acked).toBe(20);
    expect(s.latency.batch.intended.count).toBe(20);
  }, 30_000);
});

describe('errors mid-run', () => {
  it('counts WRONGTYPE replies as failed items, names them, and still writes the run directory', async () => {
    const admin = new Redis({ host: '127.0.0.1', port: server.port });
    await admin.set('latest-ids', 'not a sorted set'); // every ZADD now fails
    const r = await runNode('src/producer.js', [
      '--port',
      String(server.port),
      '-q',
      '500',
      '-d',
      '3',
      '--warmup',
      '0',
      '--out',
      out,
      '--json',
      '--quiet',
    ]);
    await admin.quit();
    // the run did not do what was asked (write the items): exit 1, and the summary says why
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toMatch(/Unhandled|TypeError|at .*\.js:\d+/);
    const s = JSON.parse(r.stdout);
    expect(s.outcome).toEqual({ exitCode: 1, problems: ['1500 items failed'] });
    expect(s.totals.sent).toBe(1500);
    expect(s.totals.failed).toBe(1500); // the SETEX landed but the index did not: the item is not fully written
    expect(s.totals.acked).toBe(0);
    expect(s.errorKinds.WRONGTYPE).toBe(4); // 3 ZADDs and the purge (ZREMRANGEBYSCORE) at the start
    expect(s.verdict).toMatch(/failed/);
    const dir = path.join(out, readdirSync(out)[0]);
    expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).toMatch(/failed 1,500.*WRONGTYPE 4/s);
  }, 30_000);

  it('keeps its schedule when the server dies mid-run: the rest fails, is counted, and every second is in the timeline', async () => {
    const doomed = await startRedis();
    const dir = mkdtempSync(path.join(out, 'kill-'));
    const run = runNode('src/producer.js', [
      '--port',
      String(doomed.port),
      '-q',
      '1000',
      '-d',
      '5',
      '--warmup',
      '0',
      '--out',
      dir,
      '--json',
      '--quiet',
    ]);
    // the server dies 2.5 s into the run: counted from t0 (in the manifest), not from the spawn,
    // which on a busy machine can take seconds to connect
    const t0 = await new Promise((resolve, reject) => {
      const giveUp = Date.now() + 20_000;
      const poll = setInterval(() => {
        const run0 = readdirSync(dir)[0];
        const file = run0 && path.join(dir, run0, 'manifest.json');
        if (file && existsSync(file)) {
          clearInterval(poll);
          resolve(JSON.parse(readFileSync(file, 'utf8')).t0);
        } else if (Date.now() > giveUp) {
          clearInterval(poll);
          reject(new Error('the producer never started its run'));
        }
      }, 50);
    });
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + 2500 - Date.now())));
    await doomed.stop();
    const r = await run;
    expect(r.code, r.stderr).toBe(1);
    // said as it happened, even with --quiet
    expect(r.stderr).toMatch(/no node of redis:\/\/127\.0\.0\.1:\d+ has answered for \d+\.\d s, retrying/);
    const s = JSON.parse(r.stdout);
    expect(s.outcome.problems.join('; ')).toMatch(/items failed/);
    expect(s.totals.sent).toBe(5000);
    expect(s.totals.acked + s.totals.failed + (s.totals.unacked || 0)).toBe(5000);
    expect(s.totals.failed).toBeGreaterThanOrEqual(2000);
    expect(s.errorKinds.CONNECTION).toBeGreaterThan(0);
    // seconds 0-4 hold the schedule; later rows (if any) are the drain, while lost connections
    // were retried with backoff until they counted as failed: nothing due there
    const [head, ...rows] = readFileSync(path.join(dir, readdirSync(dir)[0], 'timeline.csv'), 'utf8')
      .trim()
      .split('\n');
    const cols = head.split(',');
    const cell = (row, name) => Number(row.split(',')[cols.indexOf(name)]);
    expect(rows.slice(0, 5).map((r) => [cell(r, 'second'), cell(r, 'intended')])).toEqual([0, 1, 2, 3, 4].map((i) => [i, 1000]));
    expect(
      rows
        .slice(5)
        .map((r) => cell(r, 'intended'))
        .every((n) => n === 0),
    ).toBe(true);
    expect(rows.map((r) => cell(r, 'second'))).toEqual(rows.map((_, i) => i));
    expect(rows.reduce((n, r) => n + cell(r, 'failed'), 0)).toBe(s.totals.failed);
  }, 30_000);
});

describe('a cluster node spoken to as a standalone server (no --cluster)', () => {
  /** @type {import('../../src/local/local-redis.js').LocalRedis|undefined} */
  let clu;
  beforeAll(async () => {
    clu = await clusterWithLiveItems();
  }, 60_000);
  afterAll(async () => {
    await clu?.stop();
  });

  /** the line said on the first MOVED, even with --quiet */
  const HINT = /answered MOVED: it is a node of a Redis Cluster, and this run speaks to it as a standalone server: give --cluster/g;
  const PROBLEM = /^redis:\/\/127\.0\.0\.1:\d+ answered MOVED: it is a node of a Redis Cluster, .*\(run again with --cluster\)$/;

  it('the producer says so once, on its first MOVED, and the run does not end as a success', async () => {
    const p = await produce({ port: /** @type {any} */ (clu).port, q: 2000, d: 2, extra: ['-t', '2'] });
    expect(p.code, describeRun(p)).toBe(1);
    expect(p.stderr.match(HINT)?.length, p.stderr).toBe(1);
    expect(p.summary.outcome.problems, describeRun(p)).toEqual(expect.arrayContaining([expect.stringMatching(PROBLEM)]));
  }, 60_000);

  it("ops says so, not as the bare MOVED reply, when the node it was given does not serve the operations' slot", async () => {
    const c = /** @type {any} */ (clu);
    // a master that does not serve the slot the operations' keys live in
    const admin = new Redis({ host: '127.0.0.1', port: c.port });
    /** @type {Array<[number, number, [string, number]]>} */
    const slots = /** @type {any} */ (await admin.call('CLUSTER', 'SLOTS'));
    admin.disconnect();
    const other = slots.find(([from, to]) => OPS_SLOT < from || OPS_SLOT > to);
    const port = /** @type {any} */ (other)[2][1];
    const dir = mkdtempSync(path.join(out, 'ops-moved-'));
    const r = await runNode('src/cli.js', [
      'ops',
      '--port',
      String(port),
      '--only',
      'redis',
      '--warmup',
      '0',
      '-d',
      '0.2',
      '--out',
      dir,
      '--json',
    ]);
    expect(r.code, describeRun(r)).toBe(1);
    const [s] = JSON.parse(r.stdout).services;
    expect(s.error).toMatch(
      /^redis:\/\/127\.0\.0\.1:\d+ answered MOVED \d+ [\d.:]+: it is a node of a Redis Cluster, and this run spoke to it as a standalone server \(run again with --cluster\)$/,
    );
  }, 60_000);

  it('the consumer says so once, on its first MOVED, and the run does not end as a success', async () => {
    const c = await consume({ port: /** @type {any} */ (clu).port, d: 3, warmup: 0, ttl: 300 });
    expect(c.code, describeConsumer(c)).toBe(1);
    expect(c.stderr.match(HINT)?.length, c.stderr).toBe(1);
    expect(c.summary.outcome.problems, describeConsumer(c)).toEqual(expect.arrayContaining([expect.stringMatching(PROBLEM)]));
  }, 60_000);
});

describe('a shared --start-at this process could not keep (a host too busy to start its workers in time)', () => {
  // before: 0 items/s (or twice the target) and exit 0, its seconds before it was ready missing
  it('ready a second or more after it: nothing run, one line naming --start-at, exit 1, no run directory', async () => {
    for (const script of ['src/producer.js', 'src/consumer.js']) {
      const dir = mkdtempSync(path.join(out, 'late-'));
      const args = [
        '--port',
        String(server.port),
        '-d',
        '5',
        '--warmup',
        '1',
        '--start-at',
        String(Date.now() - 1500),
        '--out',
        dir,
        '--json',
        '--quiet',
      ];
      const r = await runNode(script, script.endsWith('producer.js') ? [...args, '-q', '100', '-t', '1'] : args);
      expect(r.code, `${script}: ${r.stderr}`).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /--start-at: the (writers|readers) were ready [\d.]+ s after the shared start, too late to keep its schedule \(ready within 1 s of it, or not at all\): nothing was run; give a later --start-at/,
      );
      expect(r.stdout).toBe('');
      expect(readdirSync(dir)).toEqual([]);
    }
  }, 60_000);
});
