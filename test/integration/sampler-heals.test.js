// The headline figure survives faults (issue 12, point 1): every client connection dropped from
// outside (CLIENT KILL), and a standalone server restarted on its port, in the middle of a run.
// Redis CPU keeps coming afterwards, a second without a sample is a counted gap, and a figure
// built from too few seconds is marked. Real redis-server processes on 127.0.0.1, stopped by PID.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { findRedisServer } from '../../src/local/local-redis.js';
import { readTimeline } from '../../src/record/timeline.js';
import { describeRun, freePort, produce, until } from '../helpers/producer-run.js';
import { useLocalRedis } from '../helpers/local-server.js';

const local = useLocalRedis();

/** Resolves at epoch ms `at`. */

/** The CPU cells of the run's only node, by second. */
function cpuCells(dir) {
  const tl = readTimeline(path.join(dir, 'timeline.csv'));
  expect(tl.nodes.length).toBe(1);
  return tl.rows.map((r) => [r.second, r[tl.nodes[0].column]]);
}

describe('the server CPU sampler heals', () => {
  it('after CLIENT KILL TYPE normal drops every connection, CPU is sampled again the next second', async () => {
    let killed;
    const run = produce({
      port: local.server.port,
      q: 4000,
      d: 10,
      extra: ['-c', '10'],
      onT0: (t0) => {
        killed = until(t0 + 3500).then(async () => {
          const admin = new Redis({ host: '127.0.0.1', port: local.server.port });
          // every normal client but this one: the writer's and the sampler's connections
          const n = await admin.client('KILL', 'TYPE', 'normal');
          await admin.quit();
          return n;
        });
      },
    });
    const r = await run;
    expect(await killed, 'the writer and the sampler were connected').toBeGreaterThanOrEqual(2);
    expect(r.code, describeRun(r)).toBe(0);
    const cells = cpuCells(r.dir);
    // from two seconds after the kill to the end, every second has a figure
    const after = cells.filter(([sec]) => sec >= 5 && sec < 10);
    expect(after.length).toBe(5);
    expect(
      after.every(([, v]) => typeof v === 'number'),
      JSON.stringify(cells),
    ).toBe(true);
    const node = r.summary.cpu.nodes[0];
    expect(node.coverage, JSON.stringify(node)).toBeGreaterThanOrEqual(0.9);
    expect(r.summary.cpu.partial.master).toEqual([]);
    // the writer lost its connection too: it reconnected and lost nothing
    expect(r.summary.totals.acked).toBe(40_000);
    expect(r.summary.totals.failed).toBe(0);
  }, 60_000);

  it('a standalone server restarted on its port: gaps while it was down are counted, the figure is marked, sampling resumes', async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-restart-'));
    const start = () =>
      new Promise((resolve, reject) => {
        const child = spawn(
          findRedisServer(),
          ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
          { stdio: ['ignore', 'pipe', 'ignore'] },
        );
        child.stdout.on('data', (d) => {
          if (/Ready to accept connections/.test(String(d))) resolve(child);
        });
        child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
      });
    let server = await start();
    let restarted;
    try {
      const run = produce({
        port,
        q: 2000,
        d: 12,
        extra: ['-c', '10'],
        onT0: (t0) => {
          restarted = until(t0 + 3000).then(async () => {
            const gone = new Promise((r) => server.once('exit', r));
            server.kill('SIGKILL');
            await gone;
            // down for about three seconds, then back on the same port, empty
            await until(t0 + 6200);
            server = await start();
          });
        },
      });
      const r = await run;
      await restarted;
      expect(r.code, describeRun(r)).toBe(0);
      const cells = cpuCells(r.dir);
      const gaps = cells.filter(([sec, v]) => sec >= 1 && sec < 12 && v === null).map(([sec]) => sec);
      expect(gaps.length, `gaps at ${gaps}: ${JSON.stringify(cells)}`).toBeGreaterThanOrEqual(2);
      // sampled again within two seconds of the restart, to the end
      expect(
        cells.filter(([sec]) => sec >= 8 && sec < 12).every(([, v]) => typeof v === 'number'),
        JSON.stringify(cells),
      ).toBe(true);
      const node = r.summary.cpu.nodes[0];
      expect(node.gaps).toBe(gaps.length);
      expect(node.coverage).toBeLessThan(0.9);
      expect(r.summary.cpu.partial.master).toEqual([node.addr]);
      const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
      expect(md).toMatch(/\| 1 \| 2k \| [\d.]+† \|/);
      expect(md).toMatch(new RegExp(`† built from less than 90% of the window's seconds for ${node.addr} \\(master\\)`));
      // the writes of the seconds it was down were retried until it came back: none failed
      expect(r.summary.totals.failed, describeRun(r)).toBe(0);
      expect(r.summary.totals.connRetries ?? r.summary.totals.retries).toBeGreaterThan(0);
      // and the episode is in the summary, not only in the timeline
      // the outage's episode covers second 4 (a busy machine can add a slow second of its own nearby, which then joins it)
      const ep = r.summary.disturbances.find((e) => e.fromS <= 4 && e.toS >= 4);
      expect(ep, JSON.stringify(r.summary.disturbances)).toBeTruthy();
      expect(ep.counts.conn_retries).toBeGreaterThan(0);
      expect(ep.events.join(' '), 'the sampler saw it go').toMatch(/is not answering/);
    } finally {
      const gone = new Promise((res) => server.once('exit', res));
      server.kill('SIGTERM');
      await gone;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
