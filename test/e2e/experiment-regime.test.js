// An experiment placed in the seed's regime (issue 36, point 3): a step that runs its node at a few
// per cent is probed, on a node capped at a quarter of a core, until its master's main thread is at
// 60 % of that cap; the trial then runs at the rate found, and RESULTS.md says where it ran.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, removeTempDirs, runNode } from '../helpers/producer-run.js';
import { experimentDir } from '../helpers/experiment-spec.js';
import { REGIME_SPEC } from '../helpers/specs.js';
import { cpuCapProblem } from '../../src/local/cpu-cap.js';
import { readManifest } from '../../src/experiments/trials.js';
import { latestRun } from '../../src/experiments/layout.js';
import { short } from '../../src/record/format.js';

afterAll(() => removeTempDirs());

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-800)}`;
const canCap = cpuCapProblem() === null;

describe('an experiment in the seed’s regime', () => {
  it.skipIf(!canCap && !process.env.CI)(
    "probes the rate until the capped master's engine is near the target, runs the trial there, and says so",
    async () => {
      const dir = experimentDir(REGIME_SPEC, 'regime');
      const r = await runNode([CLI, 'experiment', 'run', '--allow-dirty', dir], { timeoutMs: 150_000 });
      expect(r.code, why(r)).toBe(0);
      expect(r.stderr).toMatch(/regime probe 1: zset at x1 the rate, busiest master engine [\d.]+% \(target 60%\)/);
      const m = readManifest(/** @type {string} */ (latestRun(dir)));
      const placed = m?.regime;
      expect(placed?.probes.length).toBeGreaterThan(1);
      // the step's own rate ran the capped engine well under the target: the rate went up
      expect(placed?.probes[0].engine).toBeLessThan(0.5);
      expect(placed?.factor).toBeGreaterThan(1.5);
      const chosen = placed?.probes.find((p) => p.factor === placed.factor);
      if (placed?.reached) expect(Math.abs(/** @type {number} */ (chosen?.engine) - 0.6)).toBeLessThanOrEqual(0.05);
      // the trial ran at the scaled rate: its producer's target is the step's 2,000 x the factor
      const run = fs
        .readdirSync(path.join(latestRun(dir) ?? '', 'zset', 'trial-1'))
        .find((d) => d.startsWith('producer') || d.includes('produce'));
      expect(run).toBeDefined();
      const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
      expect(md).toMatch(/\*\*Regime:\*\* every step ran at its rate x[\d.]+, placed by probing: /);
      const q = Math.round(2000 * /** @type {number} */ (placed?.factor));
      expect(md).toContain(`| zset | local standalone, 0.25 core per node | 1 | ${short(q)} |`);
    },
    180_000,
  );
});
