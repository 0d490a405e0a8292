// Every committed RESULTS.md comes from trial data in the repository (issue 24, point 6): a clone has
// no runs/, so `rqbench experiment report` must write each spec's RESULTS.md (and its charts) again,
// byte for byte, from its experiment.yaml and data/<stamp>/ alone.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/experiments/spec.js';
import { writeResults } from '../../src/experiments/results-md.js';
import { DATA_DIR } from '../../src/experiments/trial-data.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';

const EXPERIMENTS = path.join(import.meta.dirname, '..', '..', 'experiments');
const SPECS = fs
  .readdirSync(EXPERIMENTS, { withFileTypes: true })
  .filter((d) => d.isDirectory() && fs.existsSync(path.join(EXPERIMENTS, d.name, 'experiment.yaml')))
  .map((d) => d.name)
  .sort();
afterAll(() => removeTempDirs());

describe('committed RESULTS.md from committed trial data', () => {
  it('every spec keeps the trial data of its RESULTS.md in data/<stamp>/ (summaries and histograms, no summary.md)', () => {
    expect(SPECS.length).toBeGreaterThanOrEqual(20);
    for (const name of SPECS) {
      const md = fs.readFileSync(path.join(EXPERIMENTS, name, 'RESULTS.md'), 'utf8');
      const from = /from run `(\d{8}-\d{6})`, whose trial data is kept in \[data\/\1\]/.exec(md);
      expect(from, `${name}/RESULTS.md names no kept run`).not.toBeNull();
      const kept = path.join(EXPERIMENTS, name, DATA_DIR);
      expect(fs.readdirSync(kept), `${name}/data`).toEqual([from?.[1]]);
      const files = fs.readdirSync(path.join(kept, from?.[1] ?? ''), { recursive: true }).map(String);
      expect(
        files.some((f) => f.endsWith('summary.json')),
        name,
      ).toBe(true);
      expect(
        files.filter((f) => f.endsWith('summary.md')),
        name,
      ).toEqual([]);
    }
  });

  it('every seed spec says what stands beside each seed column, and what its check tests (issue 24, points 4 and 5)', () => {
    for (const name of SPECS) {
      const spec = loadSpec(path.join(EXPERIMENTS, name));
      // an experiment no seed ran (seed: none) has no seed columns: it says what its check tests
      if (spec.seed === 'none') {
        expect(spec.seedColumns, `${name}: seedColumns`).toBeNull();
        expect(spec.checkTests, `${name}: checkTests`).toBeTruthy();
        continue;
      }
      expect(spec.seedColumns?.length, `${name}: seedColumns`).toBeGreaterThan(0);
      expect(spec.checkTests, `${name}: checkTests`).toBeTruthy();
      const md = fs.readFileSync(path.join(EXPERIMENTS, name, 'RESULTS.md'), 'utf8');
      expect(md, name).toContain("What stands beside each of the seed's columns:");
    }
  });

  it.each(SPECS)(
    '%s: experiment report writes the committed RESULTS.md again from data/ alone',
    async (name) => {
      const from = path.join(EXPERIMENTS, name);
      const dir = path.join(tempDir('rqbench-regen-'), name);
      fs.mkdirSync(dir);
      fs.copyFileSync(path.join(from, 'experiment.yaml'), path.join(dir, 'experiment.yaml'));
      fs.cpSync(path.join(from, DATA_DIR), path.join(dir, DATA_DIR), { recursive: true });
      const r = await writeResults(loadSpec(dir));
      expect(r.runDir).toMatch(/\/data\/\d{8}-\d{6}$/);
      expect(fs.readFileSync(r.file, 'utf8')).toBe(fs.readFileSync(path.join(from, 'RESULTS.md'), 'utf8'));
      // and its charts: the same SVGs as committed, none committed that today's code no longer draws
      const svgs = (d) =>
        fs.existsSync(d)
          ? fs
              .readdirSync(d)
              .filter((f) => f.endsWith('.svg'))
              .sort()
          : [];
      const drawn = svgs(path.join(dir, 'charts'));
      expect(svgs(path.join(from, 'charts')), `${name}/charts`).toEqual(drawn);
      for (const f of drawn) {
        const same = fs.readFileSync(path.join(dir, 'charts', f), 'utf8') === fs.readFileSync(path.join(from, 'charts', f), 'utf8');
        expect(same, `${name}/charts/${f} is not what today's code draws (rqbench experiment report experiments/${name})`).toBe(true);
      }
    },
    60_000,
  );
});
