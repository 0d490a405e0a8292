// A standalone server restarted under a running producer and consumer (issue 38, point 5): each
// summary reports the drop and when the connections were open again. Before, the consumer's said
// "not reconnected before the end" while its reader read on for the rest of the run: a server that
// reads its data back when it starts answers LOADING for a while, the reader's new connection could
// not load its script then, and was kept anyway, never counted as open again. The server is killed
// by its PID from outside and started again on the same port, in the same directory: empty, or
// reading back the dump.rdb it saved before the runs (a million keys: LOADING for about a second).
// Real redis-server processes on 127.0.0.1.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { findRedisServer } from '../../src/local/local-redis.js';
import { readTimeline } from '../../src/record/timeline.js';
import { describeRun, freePort, produce, removeTempDirs, until } from '../helpers/producer-run.js';
import { consume, describeConsumer } from '../helpers/consumer-run.js';
import { standaloneClient } from '../helpers/redis-check.js';

afterAll(() => removeTempDirs());

/** The consumer's seconds at which the server is killed and started again. */
const KILL_AT = 3;
const BACK_AT = 5;

/**
 * redis-server in the foreground on `port`, in `dir`; resolves once it accepts connections.
 * @param {number} port
 * @param {string} dir
 * @returns {Promise<import('node:child_process').ChildProcess>}
 */
function startServer(port, dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      /** @type {string} */ (findRedisServer()),
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--enable-debug-command', 'local'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    // it accepts connections (and answers LOADING) before its data is read back
    child.stdout.on('data', (d) => {
      if (/Ready to accept connections|Loading RDB/.test(String(d))) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
}

it.each([
  ['empty', false],
  ['reading its data back (LOADING for about a second)', true],
])(
  'the server killed and started again mid-run, %s: both summaries report the drop and the reconnection, with its time',
  async (_how, persist) => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-restart-'));
    let server = await startServer(port, dir);
    if (persist) {
      // a dataset that takes the restarted server about a second to read back, answering LOADING meanwhile
      const admin = await standaloneClient(port);
      await admin.call('DEBUG', 'POPULATE', '1000000', 'filler', '100');
      // saved now, not at the kill: a SAVE of a million keys blocks the server, and on a busy host
      // it took 4 s, which put the kill at the reader's seventh second and the end of LOADING after
      // its last (the runs' items written meanwhile are not in the dump, and nothing here asks them back)
      await admin.save();
      admin.disconnect();
    }
    let restarted = Promise.resolve({ downMs: 0, backS: 0, servesMs: 0 });
    try {
      /** @type {(t0: number) => void} */ let started = () => {};
      const producerT0 = new Promise((resolve) => {
        started = resolve;
      });
      const [p, c] = await Promise.all([
        produce({ port, q: 2000, d: 16, ttl: 60, extra: ['-c', '10'], onT0: started }),
        producerT0.then(async (t0) => {
          await until(t0 + 1500);
          return consume({
            port,
            d: 12,
            warmup: 0,
            ttl: 60,
            extra: ['-p', '250'],
            onT0: (ct0) => {
              restarted = until(ct0 + KILL_AT * 1000).then(async () => {
                const gone = new Promise((r) => server.once('exit', r));
                const at = Date.now();
                process.kill(/** @type {number} */ (server.pid), 'SIGKILL');
                await gone;
                // down a second at least, whenever the kill came
                await until(Math.max(ct0 + BACK_AT * 1000, at + 1000));
                server = await startServer(port, dir);
                const back = { downMs: Date.now() - at, backS: (Date.now() - ct0) / 1000 };
                // ioredis's ready check waits out LOADING: the server serves again from here (a million keys read
                // back took over 3 s beside a busy CI pool)
                const probe = await standaloneClient(port);
                probe.disconnect();
                return { ...back, servesMs: Date.now() - at };
              });
            },
          });
        }),
      ]);
      const { downMs, backS, servesMs } = await restarted;
      expect(downMs, 'the server was down').toBeGreaterThan(500);
      const addr = `127.0.0.1:${port}`;
      const runs = [
        ['writer 1', p, describeRun(p), 'writer'],
        ['reader 1', c, describeConsumer(c), 'reader'],
      ];
      for (const [who, r, brief, role] of runs) {
        const why = `${who}: ${brief}; drops ${JSON.stringify(r.summary?.connectionDrops)}`;
        const drops = r.summary.connectionDrops.filter((d) => d.node === addr);
        expect(drops.length, why).toBeGreaterThanOrEqual(1);
        for (const d of drops) {
          expect(d[role], why).toBe(who);
          expect(d.reconnectMs, `${why}: reconnected before the end`).not.toBeNull();
        }
        // the drop that the restart made: about when it was killed, over about when it was back
        const restart = drops.find((d) => d.reconnectMs >= 500);
        expect(restart, why).toBeTruthy();
        expect(restart.reconnectMs, why).toBeLessThan(servesMs + 3000);
        // in summary.json (what was printed is the same) and in summary.md
        const onDisk = JSON.parse(fs.readFileSync(path.join(r.dir, 'summary.json'), 'utf8'));
        expect(onDisk.connectionDrops, why).toEqual(r.summary.connectionDrops);
        const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
        expect(md, why).toMatch(new RegExp(`${addr} at \\+[\\d.]+ s \\(${who}\\), reconnected after [\\d,]+ ms`));
        expect(md, why).not.toContain('not reconnected before the end');
        // and the timeline's events say it in the second it happened
        const events = readTimeline(path.join(r.dir, 'timeline.csv'))
          .rows.map((x) => String(x.events ?? ''))
          .join('\n');
        expect(events, why).toMatch(new RegExp(`${who}: reconnected to ${addr} after \\d+ ms`));
      }
      // the reader read again once the server was back: its last seconds read items
      const tl = readTimeline(path.join(c.dir, 'timeline.csv'));
      const after = tl.rows.filter((x) => Number(x.second) >= Math.ceil(backS) + 2);
      expect(
        after.some((x) => Number(x.items) > 0),
        JSON.stringify(after.map((x) => [x.second, x.items])),
      ).toBe(true);
    } finally {
      const gone = new Promise((res) => server.once('exit', res));
      server.kill('SIGTERM');
      await gone;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
  90_000,
);
