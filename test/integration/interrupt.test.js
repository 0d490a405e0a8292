// Interrupts (issue 4, point 5): SIGINT or SIGTERM mid-run flushes histograms and timeline,
// marks the summary interrupted and exits 130/143; a second Ctrl-C exits at once. No run
// directory is left without a manifest and a summary. Real processes against a real server.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { CONSUMER } from '../helpers/consumer-run.js';
import { CLI, PRODUCER, ROOT, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { readHlog } from '../../src/record/hlog.js';

let local;

beforeAll(async () => {
  local = await startRedis();
}, 30_000);

afterAll(async () => {
  await local?.stop();
  removeTempDirs();
});

/** Starts a run, waits until its manifest exists plus `afterMs`, sends the signals, collects. */
function interrupted(script, flags, signals, afterMs = 2500) {
  const out = tempDir('rqbench-int-');
  const child = spawn(
    process.execPath,
    [script, '--host', '127.0.0.1', '--port', String(local.port), '--out', out, '--json', '--quiet', ...flags],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    const killer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit: ${stderr}`));
    }, 30_000);
    let signalledAt;
    const watch = setInterval(() => {
      const dirs = fs.existsSync(out) ? fs.readdirSync(out) : [];
      if (!dirs.length || !fs.existsSync(path.join(out, dirs[0], 'manifest.json'))) return;
      clearInterval(watch);
      setTimeout(() => {
        signalledAt = Date.now();
        signals.forEach((sig, i) => setTimeout(() => child.kill(sig), i * 20));
      }, afterMs);
    }, 50);
    child.on('close', (code) => {
      clearTimeout(killer);
      clearInterval(watch);
      const dirs = fs.readdirSync(out);
      const dir = path.join(out, dirs[0]);
      resolve({ code, stdout, stderr, dir, files: fs.readdirSync(dir), exitMs: Date.now() - signalledAt });
    });
  });
}

const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));

describe('interrupts', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])(
    'a producer run stopped by %s flushes what it measured, says so, exits %i',
    async (sig, code) => {
      const r = await interrupted(PRODUCER, ['-q', '2000', '-c', '10', '-d', '30', '--warmup', '0'], [sig]);
      expect(r.code, r.stderr).toBe(code);
      expect(r.exitMs, 'it stops promptly').toBeLessThan(8000);
      for (const f of ['manifest.json', 'summary.json', 'summary.md', 'timeline.csv', 'batch.hlog']) expect(r.files).toContain(f);
      const s = readJson(path.join(r.dir, 'summary.json'));
      expect(s.interrupted).toBe(true);
      expect(JSON.parse(r.stdout).interrupted, 'the printed summary is the saved one').toBe(true);
      // seconds before the signal are all there, and what was sent was acknowledged
      const rows = fs.readFileSync(path.join(r.dir, 'timeline.csv'), 'utf8').trim().split('\n').slice(1);
      expect(rows.length).toBeGreaterThanOrEqual(2);
      expect(s.totals.acked).toBeGreaterThanOrEqual(2000 * 2);
      expect(s.totals.acked).toBe(s.totals.sent);
      expect(fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8')).toMatch(/\*\*Interrupted\*\*/);
    },
    40_000,
  );

  it('after a SIGINT the rate, latency, CPU and spectrum cover the same seconds: the partial last one is in the files only', async () => {
    // 20 chunks a second: the second the signal lands in has batches, so leaving it out shows
    const r = await interrupted(PRODUCER, ['-q', '2000', '-c', '20', '-d', '30', '--warmup', '1'], ['SIGINT'], 3300);
    expect(r.code, r.stderr).toBe(130);
    const s = readJson(path.join(r.dir, 'summary.json'));
    const { fromSecond, toSecond, seconds } = s.window;
    expect(fromSecond).toBe(1);
    expect(seconds).toBe(toSecond - fromSecond);
    // batches per interval of batch.hlog, by second
    const byStart = new Map();
    for (const iv of readHlog(path.join(r.dir, 'batch.hlog')).intervals.filter((x) => x.tag === 'intended'))
      byStart.set(iv.startSec, iv.histogram.totalCount);
    const inWindow = [...byStart].filter(([sec]) => sec >= fromSecond && sec < toSecond).reduce((n, [, c]) => n + c, 0);
    const after = [...byStart].filter(([sec]) => sec >= toSecond).reduce((n, [, c]) => n + c, 0);
    expect(after, 'the partial second the signal landed in had batches').toBeGreaterThan(0);
    expect(s.latency.batch.intended.count, 'latency covers the window, not the partial second').toBe(inWindow);
    // the rate's items are the window's: 20 chunks of 100 a second
    expect(s.achieved.intended).toBe(seconds * 2000);
    // one CPU sample per node per second of the window at most
    for (const n of s.cpu.nodes) expect(n.samples + n.gaps).toBe(seconds);
    // and rqbench report --spectrum reads the same seconds back
    const rep = await runNode([CLI, 'report', '--spectrum', 'batch', r.dir]);
    expect(rep.code, rep.stderr).toBe(0);
    expect(rep.stdout).toMatch(new RegExp(`Total count += +${inWindow}\\]`));
  }, 40_000);

  it('a consumer run stopped by SIGINT keeps its cycles and exits 130', async () => {
    const r = await interrupted(CONSUMER, ['-p', '200', '-d', '30', '--warmup', '0'], ['SIGINT']);
    expect(r.code, r.stderr).toBe(130);
    const s = readJson(path.join(r.dir, 'summary.json'));
    expect(s.interrupted).toBe(true);
    expect(s.totals.cycles).toBeGreaterThanOrEqual(5);
    expect(r.files).toContain('cycle.hlog');
  }, 40_000);

  it('a second Ctrl-C leaves at once and still leaves a manifest and a summary', async () => {
    // a run that is slow to finish (8 writers with much in flight), two Ctrl-C 20 ms apart
    const r = await interrupted(PRODUCER, ['-q', '40000', '-t', '4', '-c', '40', '-d', '30', '--warmup', '0'], ['SIGINT', 'SIGINT'], 1500);
    expect(r.code, r.stderr).toBe(130);
    expect(r.exitMs, 'the second Ctrl-C does not wait for the drain').toBeLessThan(3000);
    expect(r.files).toContain('manifest.json');
    expect(r.files).toContain('summary.json');
    expect(r.files).toContain('summary.md');
    const s = readJson(path.join(r.dir, 'summary.json'));
    expect(s.interrupted === true || s.interrupted === 'SIGINT', JSON.stringify(s).slice(0, 300)).toBe(true);
  }, 40_000);
});
