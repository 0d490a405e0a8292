// Experiment steps of kind load (seed 001) and ops (seeds 003, 004), issue 15 points 1, 2 and 6:
// a one-cell load spec over a small generated file and a short Redis ops spec run end to end with
// the real CLIs, RESULTS.md checked. Bad specs of each kind (the field named, one line, exit 2,
// nothing written) are refused in test/unit/experiment-kind-specs.test.js.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, removeTempDirs, runNode } from '../helpers/producer-run.js';
import { KV_SPEC as KV, LOAD_SPEC as LOAD, OPS_SPEC as OPS } from '../helpers/specs.js';
import { experimentWithTmp } from '../helpers/experiment-spec.js';

afterAll(() => removeTempDirs());

const experiment = experimentWithTmp;
const rq = (args, tmp, timeoutMs = 60_000) => runNode([CLI, ...args], { timeoutMs, env: { TMPDIR: tmp } });
const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-800)}`;

describe('an experiment of kv steps', () => {
  it("runs rqbench kv on the cluster the runner started, step by step, and writes each step's rate, CPU and busiest shard with the verdict", async () => {
    const { dir, tmp } = experiment(KV, 'kv');
    const r = await rq(['experiment', 'run', '--allow-dirty', dir], tmp, 120_000);
    expect(r.code, why(r)).toBe(0);
    expect(r.stderr).toMatch(/rqbench experiment: started a local .*cluster/);
    expect(r.stderr).toMatch(
      /\[\d\/4\] zipf done in [\d.]+ s: [\d.]+k\/3k operations\/s, master CPU [\d.]+%, busiest master [\d.]+%, busiest shard [\d.]+% of the operations/,
    );
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).toContain('Seed: none (an experiment no seed ran).');
    expect(md).toContain(
      'Claim (ours: no seed ran this experiment): Zipf keys send more of the operations to one shard than uniform keys.',
    );
    // two trials a step decide nothing, and say so
    expect(md).toMatch(/Here: \*\*inconclusive\*\* \(2 trials per step\) — `zipf\.top_shard_ops_share > uniform\.top_shard_ops_share`/);
    expect(md).toMatch(/\| `zipf\.top_shard_ops_share` \| 0\.\d+ \(n=2/);
    expect(md).toMatch(
      /\| uniform keys \| get:90,set:10, 1k keys uniform \| 1 \| [\d.]+k \/ 3k \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \| \d+\.\d% \| [\d.]+ \|/,
    );
    expect(md).toMatch(/\| Zipf 1\.5 keys \| get:90,set:10, 1k keys zipf:1\.5 \| 1 \|/);
    // the Zipf step's hot shard named, every node's share beside its CPU
    expect(md).toMatch(
      /### Operations per node: Zipf 1\.5 keys\n\nHot shard: shard \d \(127\.0\.0\.1:\d+\) took [\d.]+ % of the operations/,
    );
    expect(md).toMatch(
      /node src\/cli\.js kv --mix get:90,set:10 --keys 1000 --rate 3000 -t 1 --seed 5 --key-dist zipf:1\.5 --url redis:\/\/127\.0\.0\.1:\d+ --cluster -d 2 --warmup 1 --json --quiet --out \S+ --name kv/,
    );
    const charts = fs.readdirSync(path.join(dir, 'charts'));
    expect(charts).toEqual(expect.arrayContaining(['cpu.svg', 'throughput.svg', 'latency.svg', 'percentiles.svg']));
  }, 150_000);
});

describe('an experiment of load steps', () => {
  it("makes the delta file once, runs the grid with the real rqbench load and writes the seed's table with the verdict", async () => {
    const { dir, tmp } = experiment(LOAD, 'load');
    const r = await rq(['experiment', 'run', '--allow-dirty', dir], tmp);
    expect(r.code, why(r)).toBe(0);
    const file = path.join(tmp, 'rqbench-delta-3000x100.tsv');
    expect(fs.statSync(file).size).toBe(300_000);
    expect(r.stderr).toContain(`rqbench experiment: wrote the delta file ${file} (3,000 records of 100 B)`);
    expect(r.stderr).toMatch(/\[1\/6\] one \(trial 1\/6, noop 1x1\): noop sink, 1 reader threads x 1 connections … ETA/);
    expect(r.stderr).toMatch(
      /\[6\/6\] one done in [\d.]+ s: best [\d,]+ records\/s \(1 threads x 1 connections\), 1 cells, each exactly once/,
    );
    // the noop sink needs no Redis: none is started
    expect(r.stderr).not.toContain('started a local Redis');
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).toContain('Topology: no Redis (the noop sink only); host ');
    expect(md).toContain('Steps: 1 load grid over one delta file of 3,000 records x 100 B.');
    expect(md).toMatch(/\| noop 1x1 \| noop \| 1 \| 1 \| [\d,]+ k\/s ⚠ \| 1 x 1 \| [\d,]+ k\/s \| [\d,]+ k\/s \| yes \| - \| \d+ \|/);
    expect(md).toContain('### noop 1x1: into the noop sink');
    // 3,000 records load in milliseconds: the best cell is flagged, in the steps' table and in the grid's
    expect(md).toContain('⚠ The best cell of noop 1x1 loaded in under 1 s: too short a window to carry a rate');
    expect(md).toMatch(/\| 1 \| 1 \| 0\.\d\d sec ⚠ \| [\d,]+ k\/s ⚠ \|/);
    expect(md).toContain('| reader threads | connections | data loading time | num records per sec |');
    expect(md).toContain('- 1 threads x 1 connections: 3,000 records read and stored once each (1 ranges tile the file).');
    // a cell that short cannot decide (issue 24, point 4): the rate comparison is inconclusive, and says why
    expect(md).toMatch(
      /Seed, in our reading: the reader loads the file\. Here: \*\*inconclusive\*\* \(6 trials per step\) — `one\.check_ok == 1 and one\.best_records_per_sec > 1000 and one\.cells == 1`\./,
    );
    expect(md).toMatch(
      /\| `one\.best_records_per_sec > 1000` \| [^\n]* \| inconclusive \| one cannot decide: its best cell loaded in \d+ ms \(median\), under 1 s: too short a window to carry a rate \|/,
    );
    expect(md).toMatch(/- one: its best cell loaded in \d+ ms \(median\), under 1 s: too short a window to carry a rate\./);
    expect(md).toMatch(/\| `one\.best_records_per_sec` \| \d+ \[\d+, \d+\] \| 6 \|/);
    expect(md).toContain(`node src/cli.js load ${file} --sink noop --reader-threads 1 --connections 1 --quiet --out `);
    expect(md).toContain(
      `The delta file is made once for the spec, by \`node src/cli.js load --generate ${file} --records 3000 --record-size 100 --quiet\``,
    );
    // a second report reads the same run back to the same RESULTS.md
    const again = await rq(['experiment', 'report', dir], tmp);
    expect(again.code, why(again)).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8')).toBe(md);
    // the next run reuses the file
    const rerun = await rq(['experiment', 'run', '--allow-dirty', dir], tmp);
    expect(rerun.code, why(rerun)).toBe(0);
    expect(rerun.stderr).toContain(`the delta file ${file} is there (3,000 records of 100 B), reused`);
  }, 90_000);
});

describe('an experiment of ops steps', () => {
  it("times each operation with the real rqbench ops on the Redis the runner started: the seed's tables, the CPU, wrk2's spectrum, the verdict", async () => {
    const { dir, tmp } = experiment(OPS, 'ops');
    const r = await rq(['experiment', 'run', '--allow-dirty', dir], tmp);
    expect(r.code, why(r)).toBe(0);
    expect(r.stderr).toMatch(/started a local Redis \(1 node\) at redis:\/\/127\.0\.0\.1:\d+/);
    expect(r.stderr).toMatch(/\[1\/1\] one \(trial 1\/1\): Redis: 5 operations, 0 s warm-up \+ 1 s each … ETA/);
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).toMatch(/Steps: 1, each operation measured for 1 s, no warm-up\./);
    // seed 003's table (the client's overhead), the round trip, seed 004's phases
    expect(md).toMatch(/\| +\| Overhead \(ms\) \| +n \| +min \| +avg \| +med \| +p90 \| +p99 \| +max \|/);
    expect(md).toMatch(/### Round trip\n\n\| +\| Round trip \(ms\) \| +n \|/);
    expect(md).toMatch(/\| +—GET +\| +\| +\d+ \| \d+\.\d{3} \| \d+\.\d{3} \| \d+\.\d{3} \| \d+\.\d{3} \| \d+\.\d{3} \| +\d+\.\d{3} \|/);
    expect(md).toMatch(/\| +\| connect \(ms\) \| first call \(ms\) \| warm med \(ms\) \|/);
    for (const op of ['GET', 'MGET', 'ZRANGEBYSCORE', 'SET', 'ZADD']) expect(md).toContain(`—${op}`);
    // who was busy: measured around the step
    expect(md).toMatch(/\| one \| Redis \| the local Redis \d+ \| \d+ \| [\d.]+ \|/);
    // wrk2's layout, with its trailer
    expect(md).toContain("### Single Redis GET calls, warm, in wrk2's Detailed Percentile spectrum layout (step one)");
    expect(md).toContain('       Value   Percentile   TotalCount 1/(1-Percentile)');
    expect(md).toMatch(/ +\d+\.\d{3} +1\.000000 +\d+ +inf\n#\[Mean {4}= +\d+\.\d{3}, StdDeviation {3}= +\d+\.\d{3}\]/);
    expect(md).toMatch(/-{58}\n {2}\d+ requests in 1\.00s\nRequests\/sec: +\d+\.\d{2}\n```/);
    // one trial decides nothing: the figures are there, the verdict says why it cannot be given
    expect(md).toMatch(
      /Here: \*\*inconclusive\*\* \(1 trial per step\) — `one\.redis_get_first_ms > 0 and one\.redis_get_warm_n > 100 and one\.failed_ops == 0`/,
    );
    expect(md).toMatch(/\| `one\.redis_get_warm_n` \| \d+ \(n=1: a 95% interval for a median needs at least 6 trials\) \| 1 \|/);
    expect(md).toMatch(/node src\/cli\.js ops --only redis --url redis:\/\/127\.0\.0\.1:\d+ -d 1 --warmup 0 --quiet --out \S+ --name ops/);
  }, 40_000);
});
