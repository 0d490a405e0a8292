// `rqbench report`, `compare` and `chart` as programs, once each: the unit tier runs them in-process
// (runCommand), so this holds the part only a real process shows — a damaged run directory is
// refused in one line on the process's stderr, nothing on its stdout, and the process exits 2. A
// recorded run (test/fixtures/runs/produce-standalone) is copied and its timeline.csv damaged.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, listTree, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { FIXTURES, copyRun } from '../helpers/fixture-runs.js';

afterAll(() => removeTempDirs());

const good = path.join(FIXTURES, 'produce-standalone', fs.readdirSync(path.join(FIXTURES, 'produce-standalone'))[0]);
const bad = copyRun(good, (dir) => fs.appendFileSync(path.join(dir, 'timeline.csv'), 'not,a,row\n'));
const out = path.join(tempDir('rqbench-spawn-chart-'), 'charts');

describe('refused by the process: one line on stderr, exit 2', () => {
  it.each([
    ['report', [bad]],
    ['compare', [good, bad]],
    ['chart', [bad, '--out', out]],
  ])(
    'rqbench %s',
    async (command, args) => {
      const r = await runNode([CLI, command, ...args], { timeoutMs: 30_000 });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(
          `^rqbench ${command}: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/timeline\\.csv:\\d+: 3 cells where the header has \\d+\\n$`,
        ),
      );
      expect(listTree(out)).toEqual([]);
    },
    30_000,
  );
});
