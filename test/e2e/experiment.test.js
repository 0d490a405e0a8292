// `rqbench experiment run|report`: a two-step spec on a real local Redis (started and stopped by
// the runner) end to end; an interrupted run resumed. Bad specs and flags (one line naming the
// field, exit 2, nothing written) are refused in test/unit/experiment-specs.test.js.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { TWO_STEPS } from '../helpers/specs.js';
import { startRedis } from '../../src/local/local-redis.js';

afterAll(() => removeTempDirs());

function experiment(yaml, name = 'two') {
  const dir = path.join(tempDir('rqbench-exp-'), name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'experiment.yaml'), yaml);
  return dir;
}

const rq = (args, timeoutMs = 60_000) => runNode([CLI, ...args], { timeoutMs });
const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-600)}`;
/** Every file under a directory, as paths relative to it. */
const listFiles = (dir) =>
  fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path, e.name)));
const runsOf = (dir) => fs.readdirSync(path.join(dir, 'runs')).map((d) => path.join(dir, 'runs', d));

/** Checks the tables of a RESULTS.md written from a complete two-step run. */
function expectResults(dir) {
  const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
  expect(md).toMatch(/^# Sorted set vs list \(test\)/);
  expect(md).toContain(
    '| Step | Instance type | Writers | Items per writer per sec | Store | master CPU | replica CPU | master process CPU | replica process CPU | master, % of 2 vCPUs | replica, % of 2 vCPUs | Achieved / target items/s | Batch p99 ms |',
  );
  // a measured row per step: numbers, never "not run yet"; the seed's unit is the process's CPU over the seed node's 2 vCPUs
  const zset =
    /\| zset \| local standalone \+1 replica \| 1 \| 2k \| zset \| \d+\.\d \| \d+\.\d \| (\d+\.\d) \| (\d+\.\d) \| (\d+\.\d) \| (\d+\.\d) \| 2k \/ 2k \(\d+(\.\d)?%\) \| \d+\.\d ⚠ \|/.exec(
      md,
    );
  expect(zset, md).not.toBeNull();
  expect(Math.abs(Number(zset?.[3]) - Number(zset?.[1]) / 2)).toBeLessThanOrEqual(0.051);
  expect(Math.abs(Number(zset?.[4]) - Number(zset?.[2]) / 2)).toBeLessThanOrEqual(0.051);
  // 3 s of batches: their p99 is the largest, flagged so
  expect(md).toContain('⚠ fewer than 10 batches lie beyond this percentile');
  expect(md).toContain("The seed's CPU figures are CloudWatch's CPUUtilization, % of a whole 2-vCPU node (50% is one core saturated");
  expect(md).toMatch(
    /\| list \| local standalone \+1 replica \| 1 \| 2k \| list \| \d+\.\d \| \d+\.\d \| \d+\.\d \| \d+\.\d \| \d+\.\d \| \d+\.\d \| 2k \/ 2k/,
  );
  expect(md).not.toContain('not run yet');
  // cardinality and values received are averages per cycle, rounded and grouped as the consumer's summary.md prints them
  // a 3 s window holds a handful of cycles: their p50 and p99 are flagged as read off too few
  expect(md).toMatch(/\| zset \| --limit 100 \| \d{1,3}(,\d{3})* \| \d{1,3}(,\d{3})* \| \d+\.\d ⚠ \| \d+\.\d ⚠ \|/);
  expect(md).toContain('⚠ fewer than 10 cycles lie beyond this percentile');
  // two trials a step decide nothing: the verdict says so, with every trial's figure
  expect(md).toMatch(
    /Seed, in our reading: a list costs the master less CPU than a sorted set\. Here: \*\*inconclusive\*\* \(2 trials per step\) — `list\.master_cpu < zset\.master_cpu \* 10`\./,
  );
  expect(md).toContain('With fewer than 6 trials a step has no 95% interval for its median');
  expect(md).toMatch(
    /\| `list\.master_cpu` \| [\d.]+ \(n=2: a 95% interval for a median needs at least 6 trials\) \| 2 \| [\d.]+–[\d.]+ \|/,
  );
  expect(md).toMatch(/\| `list\.master_cpu < zset\.master_cpu \* 10` \| .* \| [\d.]+ \| inconclusive \|/);
  expect(md).toMatch(/Trials: 2 of 2 per step complete, interleaved round by round in a shuffled order \(seed 5\)\./);
  expect(md).toMatch(
    /node src\/producer\.js -t 1 -q 2000 --url redis:\/\/127\.0\.0\.1:\d+ -d 3 --warmup 1 --start-at \d+ --json --quiet --out \S+\/zset\/trial-\d --name producer/,
  );
  expect(md).toMatch(/node src\/consumer\.js --limit 100 --url redis:\/\/127\.0\.0\.1:\d+ -d 3 --warmup 1 --start-at \d+ --json --quiet/);
  expect(md).toMatch(/node src\/producer\.js -t 1 --sl -q 2000 --url/);
  const charts = fs.readdirSync(path.join(dir, 'charts'));
  for (const f of charts.filter((x) => x.endsWith('.png'))) {
    const png = fs.readFileSync(path.join(dir, 'charts', f));
    expect(png.subarray(0, 8).toString('hex'), f).toBe('89504e470d0a1a0a');
    expect(png.length).toBeGreaterThan(1000);
    expect(md).toContain(`(charts/${f})`);
  }
  for (const f of charts.filter((x) => x.endsWith('.svg')))
    expect(fs.readFileSync(path.join(dir, 'charts', f), 'utf8')).toMatch(/<svg[\s\S]+<\/svg>\s*$/);
  expect(charts.filter((x) => x.endsWith('.png')).length).toBeGreaterThan(0);
  return md;
}

describe('rqbench experiment', () => {
  it('runs a two-step spec, two trials each interleaved, end to end and writes RESULTS.md with its tables', async () => {
    const dir = experiment(TWO_STEPS);
    // seed 5 orders the rounds zset, list | zset, list
    const r = await rq(['experiment', 'run', '--allow-dirty', dir, '--seed', '5']);
    expect(r.code, why(r)).toBe(0);
    expect(r.stderr).toMatch(/2 step\(s\) x 2 trial\(s\), interleaved \(seed 5\)/);
    expect(r.stderr).toMatch(/\[1\/4\] zset \(trial 1\/2, \+ consumer\): 3 s … ETA \d+:\d\d/);
    expect(r.stderr).toMatch(/\[3\/4\] zset \(trial 2\/2, \+ consumer\)/);
    expect(r.stderr).toMatch(/\[4\/4\] list done in [\d.]+ s: 2k\/2k items\/s/);
    expect(r.stderr).toMatch(/finding inconclusive, 2 trials per step/);
    expect(r.ms).toBeLessThan(70_000);
    const [run] = runsOf(dir);
    expect(fs.readdirSync(run).sort()).toEqual(['list', 'manifest.json', 'zset']);
    const manifest = JSON.parse(fs.readFileSync(path.join(run, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ repeat: 2, seed: 5 });
    expect(manifest.order.map((o) => `${o.round}:${o.step}`)).toEqual(['1:zset', '1:list', '2:zset', '2:list']);
    expect(fs.readdirSync(path.join(run, 'zset')).sort()).toEqual(['trial-1', 'trial-2']);
    expect(fs.readdirSync(path.join(run, 'zset', 'trial-2')).filter((d) => /-(producer|consumer)$/.test(d))).toHaveLength(2);
    const md = expectResults(dir);
    // report alone regenerates the same file from the run directories (a dot plot of a figure the
    // check no longer names goes: nothing links to it)
    fs.writeFileSync(path.join(dir, 'charts', 'trials-old_metric.svg'), '<svg/>');
    fs.rmSync(path.join(dir, 'RESULTS.md'));
    const again = await rq(['experiment', 'report', dir]);
    expect(again.code, why(again)).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8')).toBe(md);
    expect(fs.existsSync(path.join(dir, 'charts', 'trials-old_metric.svg'))).toBe(false);
    // the trial data it rests on is kept beside it (summaries and histograms, not summary.md) …
    const kept = path.join(dir, 'data', path.basename(run));
    expect(md).toContain(`whose trial data is kept in [data/${path.basename(run)}](data/${path.basename(run)})`);
    const files = listFiles(kept);
    expect(files).toContain('manifest.json');
    expect(files.filter((f) => /^zset\/trial-2\/.*-producer\/(summary\.json|batch\.hlog|timeline\.csv)$/.test(f))).toHaveLength(3);
    expect(files.filter((f) => f.endsWith('summary.md'))).toEqual([]);
    // … so a clone, which has no runs/, writes the same RESULTS.md from it
    fs.rmSync(path.join(dir, 'runs'), { recursive: true });
    fs.rmSync(path.join(dir, 'RESULTS.md'));
    const clone = await rq(['experiment', 'report', dir]);
    expect(clone.code, why(clone)).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8')).toBe(md);
  }, 90_000);

  it('every step starts from an empty target: a hash step after a sorted-set step on the same Redis writes every item', async () => {
    // on the sorted set's keys left behind, every write of the hash model is WRONGTYPE: 0 of 2,000 items/s
    const dir = experiment(
      `
title: Sorted set then hash (test)
seed: "002 § Sorted set vs lists"
topology: { local: { replicas: 1 } }
repeat: 1
duration: 2
warmup: 0
flags: { q: 2000, t: 1 }
steps:
  - name: zset
  - { name: hash, flags: { hash: true } }
finding: "both write every item"
check: "hash.achieved > 0"
`,
      'zh',
    );
    const r = await rq(['experiment', 'run', '--allow-dirty', dir, '--seed', '1']);
    expect(r.code, why(r)).toBe(0);
    const [run] = runsOf(dir);
    expect(
      JSON.parse(fs.readFileSync(path.join(run, 'manifest.json'), 'utf8')).order.map((o) => o.step),
      'seed 1 runs the sorted set first',
    ).toEqual(['zset', 'hash']);
    const trial = path.join(run, 'hash', 'trial-1');
    const [producer] = fs.readdirSync(trial).filter((d) => d.endsWith('-producer'));
    const summary = JSON.parse(fs.readFileSync(path.join(trial, producer, 'summary.json'), 'utf8'));
    expect(summary.outcome.exitCode, JSON.stringify(summary.outcome)).toBe(0);
    expect(summary.achieved.itemsPerSec).toBe(2000);
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).toContain('emptied (FLUSHALL) before every step');
    expect(md).toMatch(/\| hash \| local standalone \+1 replica \| 1 \| 2k \| hash \| .* \| 2k \/ 2k/);
  }, 60_000);

  it('a step whose writes failed fails the run (exit 1, the step named, no verdict from it), unless its check measures failures', async () => {
    // a server of the user's (topology url: the runner empties nothing) that holds a sorted set's keys
    const redis = await startRedis();
    try {
      // item keys that outlive the runner's start however slow this machine is (the default TTL is seconds)
      const filled = await runNode(
        [
          'src/producer.js',
          '--url',
          redis.url,
          '-t',
          '1',
          '-q',
          '2000',
          '-d',
          '1',
          '--warmup',
          '0',
          '--ttl',
          '300',
          '--quiet',
          '--out',
          tempDir('rqbench-exp-fill-'),
        ],
        { timeoutMs: 30_000 },
      );
      expect(filled.code, why(filled)).toBe(0);
      const spec = (check) => `
title: Hash on a sorted set's keys (test)
seed: "002 § Sorted set vs lists"
topology: { url: "${redis.url}" }
repeat: 1
duration: 2
warmup: 0
flags: { q: 2000, t: 1 }
steps:
  - { name: hash, flags: { hash: true } }
finding: "a finding"
check: "${check}"
`;
      const dir = experiment(spec('hash.achieved > 0'), 'wrongtype');
      const r = await rq(['experiment', 'run', '--allow-dirty', dir]);
      expect(r.code, why(r)).toBe(1);
      expect(r.stderr).toMatch(
        /rqbench experiment: step hash \(trial 1\/1\): the producer's writes failed \(\d+ items failed[^)]*\): the step measured nothing its check can compare \(a check on hash\.failed or hash\.lost makes failures the measurement\)/,
      );
      const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
      expect(md).not.toMatch(/Here: \*\*(held|did not hold)\*\*/);
      // the same failures, when the check reads them, are the measurement: the run did what was asked
      const measured = experiment(spec('hash.failed > 0'), 'measured');
      const m = await rq(['experiment', 'run', '--allow-dirty', measured]);
      expect(m.code, why(m)).toBe(0);
    } finally {
      await redis.stop();
    }
  }, 90_000);

  it('stops cleanly on SIGINT during the last trial, and --resume skips the three complete trials and re-runs it', async () => {
    const dir = experiment(TWO_STEPS.replace('duration: 3', 'duration: 4'));
    const child = spawn(process.execPath, [CLI, 'experiment', 'run', '--allow-dirty', dir, '--seed', '5'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    const code = await new Promise((resolve) => {
      child.stderr.on('data', (d) => {
        err += d;
        // one second into the last trial: its CLIs are running
        if (/\[4\/4\] list \(trial 2\/2\):/.test(err) && !child.sent) {
          child.sent = true;
          setTimeout(() => child.kill('SIGINT'), 1500);
        }
      });
      child.once('close', (c) => resolve(c));
    });
    expect(code, err).toBe(130);
    expect(err).toContain('interrupted; stopping the current step');
    const [run] = runsOf(dir);
    const listDir = path.join(run, 'list', 'trial-2');
    // the interrupted trial's CLI wrote its summary, marked interrupted; the trial is not complete
    const meta = JSON.parse(fs.readFileSync(path.join(listDir, 'step.json'), 'utf8'));
    expect(meta.ok).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8')).toMatch(/Trials: 1–2 of 2 per step complete/);

    const r = await rq(['experiment', 'run', '--allow-dirty', dir, '--resume']);
    expect(r.code, why(r)).toBe(0);
    expect(r.stderr.match(/already complete in .*, skipped/g)).toHaveLength(3);
    expect(r.stderr).toMatch(/\[1\/1\] list \(trial 2\/2\): 4 s/);
    expect(runsOf(dir)).toEqual([run]);
    expect(fs.readdirSync(path.join(run, 'list')).sort()).toEqual(['trial-1', 'trial-2', 'trial-2.interrupted-1']);
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).not.toContain('not run yet');
    expect(md).toMatch(/Trials: 2 of 2 per step complete/);
    expect(md).toMatch(/\| list \| local standalone \+1 replica \| 1 \| 2k \| list \| \d+\.\d/);
  }, 90_000);

  it('report with no runs (a fresh clone) says so in one line, exit 1, and leaves RESULTS.md as it is', async () => {
    const dir = experiment(TWO_STEPS, 'no-runs');
    fs.writeFileSync(path.join(dir, 'RESULTS.md'), '# committed results\n');
    const r = await rq(['experiment', 'report', dir]);
    expect(r.code, why(r)).toBe(1);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/no runs under .*runs and no trial data in data\/: "rqbench experiment run .*" makes them/);
    expect(fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8')).toBe('# committed results\n');
    expect(fs.readdirSync(dir).sort()).toEqual(['RESULTS.md', 'experiment.yaml']);
  }, 30_000);

  it('six interleaved trials a step decide a real difference: held, with medians, intervals, p and a dot plot of every trial', async () => {
    const dir = experiment(
      `
title: Ten times the items (test)
seed: "test"
topology: { local: {} }
repeat: 6
duration: 2
warmup: 1
steps:
  - { name: small, flags: { q: 2000 } }
  - { name: big, flags: { q: 40000 } }
finding: "ten times the items cost the master more CPU"
check: "big.master_cpu > small.master_cpu and big.failed == 0"
`,
      'six',
    );
    const r = await rq(['experiment', 'run', '--allow-dirty', dir], 150_000);
    expect(r.code, why(r)).toBe(0);
    expect(r.stderr).toMatch(/\[12\/12\] (big|small) done in/);
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md, md).toMatch(/Here: \*\*held\*\* \(6 trials per step\) — `big\.master_cpu > small\.master_cpu and big\.failed == 0`\./);
    // every figure: median [95% CI from the order statistics: min and max of 6] and n
    const row = /\| `big\.master_cpu` \| ([\d.]+) \[([\d.]+), ([\d.]+)\] \| 6 \| ([\d.]+)–([\d.]+) \|/.exec(md);
    expect(row, md).not.toBeNull();
    expect(row[2]).toBe(row[4]);
    expect(row[3]).toBe(row[5]);
    // six against six, every big trial above every small one: the exact two-sided p is 2/924
    expect(md).toMatch(/\| `big\.master_cpu > small\.master_cpu` \| \+[\d.]+% \[\+[\d.]+%, \+[\d.]+%\] \| 0\.0022 \| held \|/);
    expect(md).toMatch(/\| `big\.failed == 0` \| median 0 vs 0 \| 1 \(sign test\) \| held \|/);
    expect(md).toContain('(charts/trials-master_cpu.png)');
    const png = fs.readFileSync(path.join(dir, 'charts', 'trials-master_cpu.png'));
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    // the index counts the three verdicts
    const idx = await rq(['experiment', 'report', dir]);
    expect(idx.code, why(idx)).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8')).toBe(md);
  }, 180_000);
});
