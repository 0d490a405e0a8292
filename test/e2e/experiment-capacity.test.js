// An experiment of capacity steps (issue 14, points 4 and 5): two local "instances" capped by
// cgroup at different shares of a core, each searched by the real `rqbench capacity`, and
// RESULTS.md with the seed's instance table (Monthly = Hourly × 720), each one's maximum, the cost
// per 100k items/s, the shards for forRate and the cheapest choice. Bad capacity steps (the field
// named) are refused in test/unit/experiment-kind-specs.test.js.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, removeTempDirs, runNode } from '../helpers/producer-run.js';
import { experimentDir } from '../helpers/experiment-spec.js';
import { CAPACITY_SPEC as SPEC } from '../helpers/specs.js';
import { cpuCapProblem } from '../../src/local/cpu-cap.js';

afterAll(() => removeTempDirs());

const rq = (args, timeoutMs = 120_000) => runNode([CLI, ...args], { timeoutMs });
const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-800)}`;
const canCap = cpuCapProblem() === null;

describe('an experiment of capacity steps', () => {
  it.skipIf(!canCap && !process.env.CI)(
    "searches each capped instance and writes the seed's instance table with costs, shards and the cheapest choice",
    async () => {
      const dir = experimentDir(SPEC, 'cap');
      // seed 5 runs the steps in the order written
      const r = await rq(['experiment', 'run', '--allow-dirty', dir, '--seed', '5']);
      expect(r.code, why(r)).toBe(0);
      expect(r.stderr).toMatch(/\[1\/2\] big \(trial 1\/1, half a core\): capacity search, runs of 2 s/);
      expect(r.stderr).toMatch(/\[2\/2\] small done in [\d.]+ s: held up to the ceiling of 10,000 items\/s/);
      const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
      expect(md).toContain(
        '| Instance | master engine at max, % of a core | replica engine at max, % of a core | vCPU | GB | Hourly rate | Monthly rate | Nodes | Max sustainable items/s | Limit between (re-tests) | Monthly per 100k items/s | Items/s per shard at 60% | Projection vs its search | Shards for 50,000 items/s |',
      );
      // Monthly = Hourly × 720; one node; 10k items/s held: per 100k = monthly × 10
      expect(md).toMatch(/\| local-big \| \d+\.\d \| - \| 0\.5 \| 1 \| 0\.1 \| 72\.00 \| 1 \| 10,000 \| - \| 720\.00 \|/);
      expect(md).toMatch(/\| local-small \| \d+\.\d \| - \| 0\.25 \| 1 \| 0\.02 \| 14\.40 \| 1 \| 10,000 \| - \| 144\.00 \|/);
      expect(md).toMatch(
        /\*\*Cheapest for 50,000 items\/s at 60% engine CPU: local-\w+, \d+ shard\(s\), [\d.]+ per month\.\*\*|No priced instance with a trusted projection/,
      );
      // one search per instance: the maxima are there, a verdict on them needs trials
      expect(md).toMatch(/Here: \*\*inconclusive\*\* \(1 trial per step\) — `big\.max_rate == 10000 and small\.max_rate == 10000`/);
      expect(md).toMatch(/\| `big\.max_rate` \| 10000 \(n=1: a 95% interval for a median needs at least 6 trials\) \| 1 \|/);
      expect(md).toMatch(
        /node src\/cli\.js capacity -t 1 -c 20 --start-rate 5000 --max-rate 10000 --slo-p99 1000 --instance-type local-big --vcpu 0\.5 --memory-gb 1 --hourly-price 0\.1 --step-seconds 2 --step-warmup 1 --local --replicas 0 --node-cpus 0\.5 --quiet --out \S+ --name capacity/,
      );
      // a second report reads the same runs back to the same table
      const again = await rq(['experiment', 'report', dir]);
      expect(again.code, why(again)).toBe(0);
      expect(fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8')).toBe(md);
    },
    180_000,
  );
});
