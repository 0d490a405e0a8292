// The run harness (issue 13, point 1): every command runs on it. Real processes against a local
// redis-server on loopback and the SQS emulator: `rqbench load` stopped mid-grid keeps the cells
// that finished (exit 130, 143 for SIGTERM, summary marked interrupted); `rqbench ops` stopped
// mid-run still tears down what it set up; a second Ctrl-C leaves at once; every kind of run
// names its kind in manifest.json.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { CLI, PRODUCER, ROOT, describeRun, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { CONSUMER } from '../helpers/consumer-run.js';

/** Big enough that one cell of the grid takes a while (the signal lands inside the second cell). */
const RECORDS = 150_000;
let local;
let admin;
let file;

beforeAll(async () => {
  file = path.join(tempDir('rqbench-harness-file-'), 'delta.tsv');
  const [s, g] = await Promise.all([
    startRedis(),
    runNode([CLI, 'load', '--generate', file, '--records', String(RECORDS), '--record-size', '256', '--quiet'], { timeoutMs: 30_000 }),
  ]);
  local = s;
  expect(g.code, describeRun(g)).toBe(0);
  admin = new Redis({ host: local.host, port: local.port });
}, 60_000);

afterAll(async () => {
  admin?.disconnect();
  await local?.stop();
  removeTempDirs();
});

const readJson = (f) => JSON.parse(fs.readFileSync(f, 'utf8'));

/**
 * Starts `node args…`, sends `signals` (20 ms apart) once `ready(runDir)` holds, collects.
 * @param {string[]} args
 * @param {(dir: string) => boolean} ready
 * @param {string[]} signals
 * @param {number} [afterMs] more wait once ready
 */
function interrupted(args, ready, signals, afterMs = 0) {
  const out = tempDir('rqbench-harness-');
  const child = spawn(process.execPath, [...args, '--out', out, '--json', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    // killed by its own PID (and only it) if it overstays
    const killer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit: ${stderr}`));
    }, 60_000);
    let signalledAt = 0;
    const watch = setInterval(() => {
      const dirs = fs.existsSync(out) ? fs.readdirSync(out) : [];
      if (!dirs.length || !ready(path.join(out, dirs[0]))) return;
      clearInterval(watch);
      setTimeout(() => {
        signalledAt = Date.now();
        signals.forEach((sig, i) => setTimeout(() => child.kill(sig), i * 20));
      }, afterMs);
    }, 20);
    child.on('close', (exitCode, killedBy) => {
      // a second signal that lands while Node is already tearing the process down kills it by
      // default; a shell reports that as 128 + 2 = 130 too, which is what a user sees. One signal
      // alone must be handled: there, being killed by it is a failure
      const byDefault = signals.length > 1 && (killedBy === 'SIGINT' ? 130 : killedBy === 'SIGTERM' ? 143 : null);
      const code = exitCode ?? (byDefault || null);
      clearTimeout(killer);
      clearInterval(watch);
      const dirs = fs.readdirSync(out);
      const dir = dirs.length ? path.join(out, dirs[0]) : null;
      resolve({ code, stdout, stderr, dir, signalledAt, exitMs: signalledAt ? Date.now() - signalledAt : null });
    });
  });
}

const LOAD = () => [
  CLI,
  'load',
  file,
  '--host',
  '127.0.0.1',
  '--port',
  String(local.port),
  '--flush',
  '--reader-threads',
  '1,2,4',
  '--connections',
  '4',
  '--sample',
  '100',
];
/** The first cell is in summary.json: the grid is in its second cell. */
const firstCellKept = (dir) => fs.existsSync(path.join(dir, 'summary.json')) && readJson(path.join(dir, 'summary.json')).cells?.length >= 1;

describe('rqbench load on the harness', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ])(
    'stopped mid-grid by %s keeps the finished cells, marks the summary, exits %i',
    async (sig, code) => {
      const r = await interrupted(LOAD(), firstCellKept, [sig]);
      expect(r.code, r.stderr).toBe(code);
      expect(r.exitMs, 'the cell under way is stopped, not waited for').toBeLessThan(5000);
      const s = readJson(path.join(r.dir, 'summary.json'));
      expect(s.interrupted).toBe(sig);
      expect(s.incomplete, 'the final summary, not the one kept as the grid went').toBeUndefined();
      expect(s.cells.length).toBeGreaterThanOrEqual(1);
      expect(s.cells.length).toBeLessThan(3);
      for (const c of s.cells) {
        expect(c.check.problems).toEqual([]);
        expect(c.stored).toBe(RECORDS);
      }
      expect(s.cells[0]).toMatchObject({ threads: 1, connections: 4 });
      expect(JSON.parse(r.stdout).interrupted, 'the printed summary is the saved one').toBe(sig);
      expect(fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8')).toMatch(
        new RegExp(`\\*\\*Interrupted\\*\\* \\(${sig}\\) after ${s.cells.length} of 3 cells`),
      );
      expect(readJson(path.join(r.dir, 'manifest.json')).kind).toBe('load');
    },
    90_000,
  );

  it('a second Ctrl-C leaves at once, and the cells that finished stay in summary.json', async () => {
    const r = await interrupted(LOAD(), firstCellKept, ['SIGINT', 'SIGINT']);
    expect(r.code, r.stderr).toBe(130);
    expect(r.exitMs).toBeLessThan(3000);
    const s = readJson(path.join(r.dir, 'summary.json'));
    expect(s.interrupted).toBe('SIGINT');
    expect(s.cells.length).toBeGreaterThanOrEqual(1);
    expect(s.cells[0].check.ok).toBe(true);
  }, 90_000);

  it('a run that finishes writes its whole grid, not marked interrupted', async () => {
    const out = tempDir('rqbench-harness-');
    const r = await runNode(
      [CLI, 'load', file, '--sink', 'noop', '--reader-threads', '1,2', '--connections', '1', '--out', out, '--json'],
      { timeoutMs: 60_000 },
    );
    expect(r.code, describeRun(r)).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.cells.length).toBe(2);
    expect(s.interrupted).toBe(false);
    expect(s.incomplete).toBeUndefined();
  }, 60_000);
});

describe('rqbench ops on the harness', () => {
  it('stopped mid-run tears down what it set up, keeps the finished operations, exits 130', async () => {
    const args = [CLI, 'ops', '--host', '127.0.0.1', '--port', String(local.port), '--warmup', '0', '-d', '1'];
    // GET (1 s) is done, MGET is under way: its keys exist when the signal lands
    const r = await interrupted(args, (dir) => fs.existsSync(path.join(dir, 'manifest.json')), ['SIGINT'], 1500);
    expect(r.code, r.stderr).toBe(130);
    expect(r.exitMs).toBeLessThan(5000);
    const s = readJson(path.join(r.dir, 'summary.json'));
    expect(s.interrupted).toBe('SIGINT');
    const ops = s.services[0].ops.map((o) => o.name);
    expect(ops.length).toBeGreaterThanOrEqual(1);
    expect(ops.length).toBeLessThan(5);
    expect(ops[0]).toBe('GET');
    expect(fs.readdirSync(r.dir)).toContain('redis-get.hlog');
    expect(await admin.keys('{rqbench:ops}*'), 'the teardown ran').toEqual([]);
    expect(fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8')).toMatch(/\*\*Interrupted\*\* \(SIGINT\)/);
  }, 60_000);
});

describe('one manifest shape: every kind of run says what it is', () => {
  let sqs;
  beforeAll(async () => {
    sqs = await startSqs();
  });
  afterAll(async () => {
    await sqs?.stop();
  });

  const redis = () => ['--host', '127.0.0.1', '--port', String(local.port)];
  const cases = [
    ['produce', () => [PRODUCER, ...redis(), '-q', '1000', '-d', '1', '--warmup', '0']],
    ['consume', () => [CONSUMER, ...redis(), '-d', '1', '--warmup', '0']],
    [
      'queue-publish',
      () => [PRODUCER, '--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', 'kinds', '--create', '--rate', '5', '-d', '1'],
    ],
    [
      'queue-consume',
      () => [CONSUMER, '--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', 'kinds', '--wait-seconds', '1', '-d', '1'],
    ],
    ['load', () => [CLI, 'load', file, '--sink', 'noop', '--reader-threads', '1', '--connections', '1']],
    ['ops', () => [CLI, 'ops', ...redis(), '--warmup', '0', '-d', '0.2']],
  ];
  for (const [kind, args] of cases) {
    it(`${kind}: manifest.json has kind "${kind}" and the fields every run has`, async () => {
      const out = tempDir('rqbench-kind-');
      const r = await runNode([...args(), '--out', out, '--json', '--quiet'], { timeoutMs: 60_000 });
      expect(r.code, describeRun(r)).toBe(0);
      const [dir] = fs.readdirSync(out);
      const m = readJson(path.join(out, dir, 'manifest.json'));
      expect(m.kind).toBe(kind);
      expect(m).toMatchObject({ tool: 'rqbench', dir: path.join(out, dir) });
      for (const k of ['command', 'runId', 'description', 'startedAt', 't0', 'flags', 'versions', 'git', 'host'])
        expect(m, k).toHaveProperty(k);
      expect(m.versions.rqbench).toBeTruthy();
    }, 60_000);
  }
});
