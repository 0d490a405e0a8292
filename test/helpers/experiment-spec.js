// Experiment specs written to a temp directory, and the check every bad spec gets: one line
// naming the field, exit 2, nothing written beside the spec (the command run in this process).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { tempDir } from './producer-run.js';
import { rqbench } from './in-process.js';

/**
 * A directory holding `experiment.yaml` with this text.
 * @param {string} yaml
 * @param {string} [name] the directory's (the spec's) name
 */
export function experimentDir(yaml, name = 'exp') {
  const dir = path.join(tempDir('rqbench-exp-'), name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'experiment.yaml'), yaml);
  return dir;
}

/**
 * A spec in a directory of its own, and beside it a temp dir for the runner's files (its TMPDIR:
 * the delta file, Redis's dirs), so a test can say what the runner left there.
 * @param {string} yaml
 * @param {string} name the spec's directory name
 * @returns {{ dir: string, tmp: string }}
 */
export function experimentWithTmp(yaml, name) {
  const root = tempDir('rqbench-exp-kinds-');
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  fs.mkdirSync(path.join(root, 'tmp'));
  fs.writeFileSync(path.join(dir, 'experiment.yaml'), yaml);
  return { dir, tmp: path.join(root, 'tmp') };
}

/**
 * `rqbench experiment run` on the spec with one edit refuses it in one line, exit 2, nothing written.
 * @param {string} spec a good spec
 * @param {[string, string]} edit the text to replace, and its replacement
 * @param {string} line what the line says after `<file>: `
 */
export async function expectRefused(spec, [from, to], line) {
  expect(spec).toContain(from);
  const dir = experimentDir(spec.replace(from, to));
  const r = await rqbench(['experiment', 'run', '--allow-dirty', dir]);
  expect(r.code, `exit ${r.code}; stderr: ${r.stderr.trim().slice(-600)}`).toBe(2);
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  expect(r.stderr).toContain(`rqbench experiment: ${path.join(dir, 'experiment.yaml')}: ${line}`);
  expect(fs.readdirSync(dir)).toEqual(['experiment.yaml']);
}
