// The summary an incomplete run is left with (record/run-dir.js placeholderSummary): it names the
// files of what was measured only when they are there (issue 38, point 5).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { placeholderSummary } from '../../src/record/run-dir.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';

afterAll(() => removeTempDirs());

const mdOf = (dir) => fs.readFileSync(path.join(dir, 'summary.md'), 'utf8');

describe('an incomplete run', () => {
  it('names the timeline and the histograms it saved, and only those', () => {
    const dir = tempDir('rqbench-incomplete-');
    for (const f of ['zadd.hlog', 'timeline.csv', 'batch.hlog', 'manifest.json']) fs.writeFileSync(path.join(dir, f), '');
    expect(placeholderSummary(dir, { interrupted: 'Interrupted by a second Ctrl-C.' })).toBe(true);
    expect(mdOf(dir)).toBe(
      '# Incomplete run\n\nInterrupted by a second Ctrl-C. timeline.csv, batch.hlog and zadd.hlog hold what it measured.\n',
    );
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'))).toEqual({
      incomplete: true,
      interrupted: 'Interrupted by a second Ctrl-C.',
    });
  });

  it('says so when nothing it measured was saved, instead of naming files that are not there', () => {
    const dir = tempDir('rqbench-incomplete-');
    placeholderSummary(dir, { interrupted: true, failed: 'no space left on device (ENOSPC)' });
    expect(mdOf(dir)).toBe(
      '# Incomplete run\n\nThe run failed: no space left on device (ENOSPC). No file of what it measured was saved.\n',
    );
    const one = tempDir('rqbench-incomplete-');
    fs.writeFileSync(path.join(one, 'timeline.csv'), '');
    placeholderSummary(one, { interrupted: 'Stopped.' });
    expect(mdOf(one)).toMatch(/ timeline\.csv holds what it measured\.\n$/);
  });
});
