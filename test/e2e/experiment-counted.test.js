// An experiment with counted steps (count:, issue 36): each counted step's producer starts its own
// Redis under Valgrind's callgrind and runs 10 times slower; the steps get the trials of their own
// repeat:, the check on their instructions per item is decided by the counter's rule on one trial
// a side, RESULTS.md has their table apart from the timed step's, and a step added to the spec
// after the run is run by --resume alone. The sorted set's counted step has a consumer: it reads the
// nodes its producer started and named (--announce), from the start it named, and its reads are in
// the count.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { valgrindTestsRun } from '../helpers/valgrind.js';
import { CLI, removeTempDirs, runNode } from '../helpers/producer-run.js';
import { experimentDir } from '../helpers/experiment-spec.js';
import { COUNTED_SPEC } from '../helpers/specs.js';
import { readManifest } from '../../src/experiments/trials.js';
import { latestRun } from '../../src/experiments/layout.js';

afterAll(() => removeTempDirs());

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-800)}`;
const runs = valgrindTestsRun('counted experiment steps');

describe.skipIf(!runs)('an experiment with counted steps', () => {
  it('counts each counted step once, decides the check on the counts, and keeps their table apart', { timeout: 240_000 }, async () => {
    const dir = experimentDir(COUNTED_SPEC, 'counted');
    const r = await runNode([CLI, 'experiment', 'run', '--allow-dirty', dir], { timeoutMs: 200_000 });
    expect(r.code, why(r)).toBe(0);
    const runDir = /** @type {string} */ (latestRun(dir));
    const m = readManifest(runDir);
    // the timed step two trials, each counted step the one of its own repeat:
    expect(m?.order.map((s) => s.step).sort()).toEqual(['list_ir', 'zset', 'zset', 'zset_ir']);
    expect(r.stderr).toMatch(/zset_ir done in [\d.]+ s: 2k items counted, master [\d.]+ instructions\/item/);
    const trial = path.join(runDir, 'zset_ir', 'trial-1');
    const step = JSON.parse(fs.readFileSync(path.join(trial, 'step.json'), 'utf8'));
    expect(step.commands[0]).toMatch(/--local --replicas 0 --count-instructions --time-scale 10 --announce \S+local\.json -d 1 --warmup 0/);
    // its consumer read the nodes the producer started and named, from the start it named, as slow as it
    const told = JSON.parse(fs.readFileSync(path.join(trial, 'local.json'), 'utf8'));
    expect(step.commands[1]).toContain(`--url ${told.url} --time-scale 10 -d 1 --warmup 0 --start-at ${told.startAt} `);
    const runOf = (role) => {
      const d = fs.readdirSync(trial).find((x) => x.endsWith(`-${role}`));
      return JSON.parse(fs.readFileSync(path.join(trial, /** @type {string} */ (d), 'summary.json'), 'utf8'));
    };
    const [producer, consumer] = [runOf('producer'), runOf('consumer')];
    expect(consumer.totals.fetched, JSON.stringify(consumer.totals)).toBeGreaterThan(0);
    expect(consumer.outcome.exitCode, JSON.stringify(consumer.outcome)).toBe(0);
    // and its reads are in the producer's count: commands only a reader sends (the producer sends ZADD and SETEX)
    const split = producer.instructions.roles.master.split;
    expect(Object.keys(split), JSON.stringify(split)).toEqual(expect.arrayContaining(['ZCARD', 'ZRANGEBYSCORE']));
    expect(split.ZRANGEBYSCORE, JSON.stringify(split)).toBeGreaterThan(0);
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).toMatch(/Here: \*\*held\*\* \(1 trial per step\)/);
    expect(md).toMatch(
      /\| `list_ir.master_ir_per_item < zset_ir.master_ir_per_item` \| -[\d.]+% \(pairs -[\d.]+% to -[\d.]+%\) \| counted: no test \| held \|/,
    );
    expect(md).toContain('Trials: 2 of 2 per step complete (1 of 1 for zset_ir, list_ir), interleaved');
    expect(md).toContain(
      'Steps: 3: 1 timed, each 2 s with 1 s warm-up; 2 counted (count:), each 1 s, no warm-up, run 10 times slower under Valgrind.',
    );
    expect(md).toMatch(
      /- `list_ir.master_ir_per_item < zset_ir.master_ir_per_item`: the seed's -19.1% lies (inside|below|above) this run's range over every pair of counted trials/,
    );
    // the counted steps have their own table, and no row in the timed ones
    expect(md).toMatch(/### Instructions per item \(counted steps\)\n\n\| Step \|[^\n]*\n[^\n]*\n\| zset_ir \| x10 \| 2,000 \| \d+ \|/);
    expect(md).toMatch(/\| list_ir \| x10 \| 2,000 \| \d+ \| - \|/);
    expect(md.split('### Instructions per item')[0]).not.toMatch(/\| (zset|list)_ir \|/);

    // a step added since: --resume runs its trials alone
    fs.writeFileSync(
      path.join(dir, 'experiment.yaml'),
      COUNTED_SPEC.replace('finding:', '  - { name: list, flags: { sl: true }, repeat: 1 }\nfinding:'),
    );
    const again = await runNode([CLI, 'experiment', 'run', '--allow-dirty', dir, '--resume'], { timeoutMs: 60_000 });
    expect(again.code, why(again)).toBe(0);
    expect(again.stderr).toContain('list joined the spec after this run began: their trials run after its own');
    expect(again.stderr.match(/already complete/g)).toHaveLength(4);
    expect(readManifest(runDir)?.order.filter((s) => s.step === 'list')).toHaveLength(1);
  });
});
