// Issue 26 point 2: hosts as network namespaces. A server namespace holds a 3-master Redis Cluster
// (and, later, fauxqs) on 127.0.1.1; three host namespaces, 127.0.2.1-3, reach it over veth pairs
// and a bridge, each with a host name of its own, so that the run directories say which host wrote
// them. Every address is in 127.0.0.0/8 and nothing is routed out of the namespaces. Checked:
// writers on three hosts run one schedule (first sends within a few ms) and `report` merges them
// into their sums with nothing lost, as it does readers on two hosts; a writer SIGKILLed mid-run is
// named in the merged report, with the second it stopped in, and the report exits 1; SQS
// publishers and consumers on different hosts merge to their sums, nothing lost.
// Making namespaces needs root and iproute2: without them the tests are skipped with a message
// (under CI=true they fail instead).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachHlogInterval } from '../../src/record/hlog.js';
import { isAlive, sleep } from '../../src/local/process.js';
import { CLI, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { CLUSTER_PORTS, childrenOf, cliIn, makeHosts, netnsProblem, runIn, startClusterIn, startSqsIn } from '../helpers/netns.js';

const netnsWhy = netnsProblem();
if (netnsWhy) {
  if (process.env.CI === 'true') throw new Error(`the netns-hosts tests need network namespaces: ${netnsWhy}`);
  process.stderr.write(`\nSKIPPED the hosts-as-network-namespaces tests: ${netnsWhy}\n`);
}

/**
 * How far ahead the shared start lies: far enough for the last writer to start, or it starts late
 * and the first-send check below fails for the machine's sake, not the code's. Five CLIs start at
 * once in their namespaces, each forking its writer or reader, on 2 cores that other test files
 * share. One start-up is timed just before (`produce --help` on a host: about 0.3 s on a quiet
 * machine, 0.6-1.1 s at a load average of 4) and the lead is 10 of them, 4 to 16 s: at load 4 the
 * five were ready 4.5 and 5.8 start-ups after launch (2.9 s after a 0.65 s probe, 6.4 s after 1.1 s).
 */
async function leadMs() {
  const probe = await onHost(net.hosts[0], ['produce', '--help']);
  expect(probe.code, why(probe)).toBe(0);
  return Math.min(16_000, Math.max(4000, 10 * probe.ms));
}
/**
 * The first sends of the three writers lie within this of each other. All namespaces share one
 * kernel clock (time is not namespaced), so the spread is only each writer process's timer waking
 * at --start-at on its own event loop: about a millisecond on a quiet machine, a few under load
 * (5 writer and reader processes and 3 Redis nodes on 2 cores; measured here: 1 to 6 ms). 20 ms is
 * several times that, and far below the hundreds of ms by which a writer that started late is off.
 */
const SPREAD_MS = 20;
const T = 60_000;
const why = (r) => `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}; stderr: ${r.stderr.trim().slice(0, 600)}`;
const rq = (...args) => runNode([CLI, ...args], { timeoutMs: 30_000 });

/** @type {ReturnType<typeof makeHosts>} */ let net;
let url = '';

/** The one run directory a run wrote into `out`. */
function runDir(out) {
  const dirs = fs.readdirSync(out);
  expect(dirs, out).toHaveLength(1);
  return path.join(out, dirs[0]);
}

const readJson = (dir, f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));

/** Key by key sum of the runs' counters. */
function sums(records) {
  const out = {};
  for (const r of records) for (const [k, v] of Object.entries(r)) if (typeof v === 'number') out[k] = (out[k] ?? 0) + v;
  return out;
}

/** `rqbench <args>` on a host: node in its namespace, as that host. */
function onHost(host, args, o = {}) {
  return runIn(host, [process.execPath, CLI, ...args], net.pids, { timeoutMs: 40_000, ...o });
}

/**
 * The epoch ms of a writer's first send: its t0 plus the schedule lag of send 0, the largest of
 * second 0's (with -c 1 it is the only send of second 0, unless the writer started late and sent
 * the sends it owed at once: then send 0 waited longest).
 */
function firstSendMs(dir) {
  const t0 = readJson(dir, 'manifest.json').t0;
  let lagUs = null;
  eachHlogInterval(path.join(dir, 'lag.hlog'), (iv) => {
    if (lagUs === null && iv.startSec < 1) lagUs = iv.histogram.maxValue;
  });
  expect(lagUs, `${dir}: lag.hlog has second 0`).not.toBeNull();
  return t0 + /** @type {number} */ (lagUs) / 1000;
}

describe.skipIf(!!netnsWhy)(`hosts as network namespaces${netnsWhy ? ` (SKIPPED: ${netnsWhy})` : ''}`, () => {
  beforeAll(async () => {
    net = makeHosts(3);
    ({ url } = await startClusterIn(net.server, net.pids, tempDir('rqbench-netns-redis-')));
    for (const ns of [net.server, ...net.hosts].map((h) => h.ns)) {
      // loopback addresses only, and no way out: no default route
      const addrs = execFileSync('ip', ['-n', ns, '-4', '-o', 'addr', 'show'], { encoding: 'utf8' }).match(/inet \S+/g) ?? [];
      expect(addrs.length, ns).toBeGreaterThan(0);
      for (const a of addrs) expect(a, ns).toMatch(/^inet 127\.\d+\.\d+\.\d+\/32$/);
      expect(execFileSync('ip', ['-n', ns, 'route', 'show', 'default'], { encoding: 'utf8' }).trim(), ns).toBe('');
    }
    for (const h of net.hosts)
      expect(cliIn(h, net.server.addr, CLUSTER_PORTS[1], 'PING'), `${h.ns} reaches ${net.server.addr}`).toBe('PONG');
  }, 30_000);

  afterAll(async () => {
    await net?.remove();
    removeTempDirs();
  }, 20_000);

  it(
    'a writer per host on one schedule: first sends within 20 ms, merged totals the sums, nothing lost; readers on two hosts merge too',
    async () => {
      const start = Date.now() + (await leadMs());
      const shared = ['--cluster', '--url', url, '--ttl', '120', '--start-at', String(start), '--json', '--quiet'];
      const outs = net.hosts.map(() => tempDir('rqbench-netns-w-'));
      const readOuts = net.hosts.slice(0, 2).map(() => tempDir('rqbench-netns-r-'));
      const [writers, readers] = await Promise.all([
        Promise.all(
          net.hosts.map((h, i) =>
            onHost(h, [
              'produce',
              ...shared,
              '-q',
              '1500',
              '-t',
              '3',
              '-a',
              String(i + 1),
              '-d',
              '3',
              '--warmup',
              '0',
              '--verify',
              '--run-id',
              'netns-w',
              '--out',
              outs[i],
            ]),
          ),
        ),
        Promise.all(
          net.hosts
            .slice(0, 2)
            .map((h, i) =>
              onHost(h, [
                'consume',
                ...shared,
                '--read-from',
                'master',
                '-d',
                '3',
                '--warmup',
                '1',
                '--run-id',
                'netns-r',
                '--out',
                readOuts[i],
              ]),
            ),
        ),
      ]);
      for (const r of [...writers, ...readers]) expect(r.code, why(r)).toBe(0);
      const dirs = outs.map(runDir);
      const summaries = writers.map((w) => JSON.parse(w.stdout));
      for (const s of summaries) expect(s.verify).toMatchObject({ acked: 1500, present: 1500, lost: 0 });
      // each run directory says which host wrote it, and all share the start
      expect(dirs.map((d) => readJson(d, 'manifest.json').host.hostname)).toEqual(net.hosts.map((h) => h.name));
      expect(dirs.map((d) => readJson(d, 'manifest.json').t0)).toEqual([start, start, start]);
      const first = dirs.map(firstSendMs);
      const spread = Math.max(...first) - Math.min(...first);
      expect(spread, `first sends at ${first.map((t) => (t - start).toFixed(2)).join(', ')} ms after --start-at`).toBeLessThan(SPREAD_MS);

      const readDirs = readOuts.map(runDir);
      const [rep, rm] = await Promise.all([
        rq('report', ...dirs, '--format', 'json', '--no-html'),
        rq('report', ...readDirs, '--format', 'json', '--no-html'),
      ]);
      expect(rep.code, why(rep)).toBe(0);
      const m = JSON.parse(rep.stdout);
      expect(m.totals).toEqual(sums(summaries.map((s) => s.totals)));
      expect(m.totals.acked).toBe(4500);
      expect(m.verify).toMatchObject({ acked: 4500, present: 4500, lost: 0, mismatched: 0 });
      expect(m.verify.notRun).toBeUndefined();
      expect(m.writers).toBe(3);
      expect(m.merged).toMatchObject({ runId: 'netns-w', sharedT0: true, stopped: [] });
      expect(m.merged.runs.map((r) => [r.host, r.writers])).toEqual(net.hosts.map((h, i) => [h.name, [i + 1]]));

      const own = readers.map((r) => JSON.parse(r.stdout));
      expect(rm.code, why(rm)).toBe(0);
      const c = JSON.parse(rm.stdout);
      expect(c.totals).toEqual(sums(own.map((s) => s.totals)));
      expect(c.totals.items, 'the readers read what the writers wrote').toBeGreaterThan(0);
      expect(c.totals.missing ?? 0).toBe(0);
      expect(c.readers).toBe(2);
      expect(c.merged.runs.map((r) => r.host)).toEqual([net.hosts[0].name, net.hosts[1].name]);
    },
    T,
  );

  it(
    'a writer SIGKILLed mid-run: the merged report names its host and the second it stopped in, and exits 1',
    async () => {
      const start = Date.now() + (await leadMs());
      const outs = net.hosts.map(() => tempDir('rqbench-netns-k-'));
      /** @type {number[]} */
      const pids = [];
      const runs = net.hosts.map((h, i) =>
        onHost(
          h,
          [
            'produce',
            '--cluster',
            '--url',
            url,
            '-q',
            '1500',
            '-t',
            '3',
            '-a',
            String(i + 1),
            '-d',
            '4',
            '--warmup',
            '0',
            '--ttl',
            '120',
            '--verify',
            '--start-at',
            String(start),
            '--run-id',
            'netns-kill',
            '--json',
            '--quiet',
            '--out',
            outs[i],
          ],
          {
            onSpawn: (pid) => {
              pids[i] = pid;
            },
          },
        ),
      );
      // writer 2's process, from outside, by its PID, 2.5 s into the run: its seconds 0 and 1 are written
      await sleep(start + 2500 - Date.now());
      const victim = pids[1];
      const kids = childrenOf(victim);
      expect(kids.length, 'the producer forked its writer').toBe(1);
      process.kill(victim, 'SIGKILL');
      const [r1, r2, r3] = await Promise.all(runs);
      expect(r2.signal).toBe('SIGKILL');
      for (const r of [r1, r3]) expect(r.code, why(r)).toBe(0);
      // its writer process ends with it (the IPC channel closed): nothing goes on writing unseen
      for (let i = 0; i < 40 && kids.some(isAlive); i++) await sleep(50);
      expect(kids.filter(isAlive)).toEqual([]);

      const dirs = outs.map(runDir);
      expect(fs.existsSync(path.join(dirs[1], 'summary.json'))).toBe(false);
      const [head, ...rows] = fs.readFileSync(path.join(dirs[1], 'timeline.csv'), 'utf8').trim().split('\n');
      const last = Number(rows.at(-1)?.split(',')[0]);
      expect(last, 'the killed run kept its seconds before the kill').toBeGreaterThanOrEqual(1);
      expect(last).toBeLessThanOrEqual(2);
      const ackedAt = head.split(',').indexOf('acked');
      const ackedBeforeKill = rows.reduce((n, l) => n + Number(l.split(',')[ackedAt]), 0);

      const rep = await rq('report', ...dirs, '--format', 'json', '--no-html');
      expect(rep.code, why(rep)).toBe(1);
      const m = JSON.parse(rep.stdout);
      expect(m.merged.stopped).toEqual([{ dir: dirs[1], second: last + 1, lastSecond: last, host: net.hosts[1].name, writers: [2] }]);
      expect(m.outcome.exitCode).toBe(1);
      expect(m.outcome.problems).toEqual([
        `${dirs[1]}: writer 2 on host ${net.hosts[1].name} stopped in second ${last + 1} (no summary.json: the process was killed or its host went down); its counts up to second ${last} are included, its share after that is missing`,
      ]);
      const [s1, s3] = [r1, r3].map((r) => JSON.parse(r.stdout));
      expect(m.totals.acked).toBe(s1.totals.acked + s3.totals.acked + ackedBeforeKill);
      expect(m.verify).toMatchObject({ acked: 4000, present: 4000, lost: 0, notRun: [dirs[1]] });
      // the share writer 2 did not write shows in the rate: 2 writers of 3 for the seconds after
      expect(m.achieved.itemsPerSec).toBeLessThan(m.target.itemsPerSec * 0.95);

      const md = await rq('report', ...dirs, '--no-html');
      expect(md.code, why(md)).toBe(1);
      expect(md.stdout).toContain(`**Stopped:** ${dirs[1]}: writer 2 on host ${net.hosts[1].name} stopped in second ${last + 1}`);
      expect(md.stdout).toContain('**Outcome:** exit 1');
    },
    T,
  );

  it(
    'SQS publishers and consumers on different hosts (fauxqs in the server namespace): merged totals the sums, nothing lost',
    async () => {
      const { endpoint } = await startSqsIn(net.server, net.pids, 9324);
      const q = ['--target', 'sqs', '--endpoint', endpoint, '--queue', 'netns', '--create', '--json', '--quiet'];
      const pubOuts = [0, 1].map(() => tempDir('rqbench-netns-pub-'));
      const conOuts = [1, 2].map(() => tempDir('rqbench-netns-con-'));
      // 2 s at 20 messages/s x 10 updates: 40 messages per publisher; the consumers, on two other
      // hosts' namespaces, share the queue and each miss what the other applied (exit 1 alone)
      const [pubs, cons] = await Promise.all([
        Promise.all(
          [0, 1].map((i) =>
            onHost(net.hosts[i], [
              'produce',
              ...q,
              '--publisher-id',
              `pub-h${i + 1}`,
              '--rate',
              '20',
              '--batch-size',
              '10',
              '-d',
              '2',
              '--out',
              pubOuts[i],
            ]),
          ),
        ),
        Promise.all(
          [1, 2].map((i, k) =>
            onHost(net.hosts[i], ['consume', ...q, '--threads', '2', '--wait-seconds', '1', '-d', '5', '--out', conOuts[k]]),
          ),
        ),
      ]);
      for (const p of pubs) expect(p.code, why(p)).toBe(0);
      for (const c of cons) expect([0, 1], why(c)).toContain(c.code);

      const [pr, rep] = await Promise.all(
        [pubOuts, conOuts].map((outs) => rq('report', ...outs.map(runDir), '--format', 'json', '--no-html')),
      );
      expect(pr.code, why(pr)).toBe(0);
      const p = JSON.parse(pr.stdout);
      const own = pubs.map((r) => JSON.parse(r.stdout));
      for (const k of ['sent', 'acked', 'failed', 'unanswered', 'notSent'])
        expect(p.messages[k], k).toBe(own[0].messages[k] + own[1].messages[k]);
      expect(p.messages.acked).toBe(80);
      expect(p.merged.runs.map((r) => [r.host, r.publisher])).toEqual([
        [net.hosts[0].name, 'pub-h1'],
        [net.hosts[1].name, 'pub-h2'],
      ]);

      expect(rep.code, why(rep)).toBe(0);
      const c = JSON.parse(rep.stdout);
      const ownC = cons.map((r) => JSON.parse(r.stdout));
      for (const k of ['messages', 'rows', 'duplicates', 'malformed']) expect(c.counts[k], k).toBe(ownC[0].counts[k] + ownC[1].counts[k]);
      expect(c.countsAll.messages).toBe(80);
      expect(c.nothingLost).toMatchObject({ ok: true, missing: 0, publishers: 2 });
      expect(c.merged.runs.map((r) => r.host)).toEqual([net.hosts[1].name, net.hosts[2].name]);
    },
    T,
  );
});
