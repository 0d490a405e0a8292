/**
 * The recorded runs of test/fixtures/runs/ (scripts/record-fixtures.js records them again), and
 * rqbench's commands run on them in-process (runCommand): what the unit tier reads instead of
 * real runs. Each test file works on its own copy of the fixtures in a temp directory, so that a
 * command that writes beside a run (a merged run's HTML page, --html) never writes into the
 * repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runCommand } from '../../src/run-command.js';
import { tempDir } from './producer-run.js';

export const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'runs');

/**
 * @typedef {object} Fixtures
 * @property {string} root the copy's root: test/fixtures/runs/ as it is in the repository
 * @property {(name: string) => string[]} runs a fixture's run directories in the copy, in name order
 * @property {(name: string) => string} run a fixture's one run directory (throws if it holds several)
 */

/**
 * A fresh copy of every fixture, in a temp directory removed by removeTempDirs().
 * @returns {Fixtures}
 */
export function copyFixtures() {
  const root = path.join(tempDir('rqbench-fixtures-'), 'runs');
  fs.cpSync(FIXTURES, root, { recursive: true });
  const runs = (name) => {
    const dir = path.join(root, name);
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(dir, e.name))
      .sort();
  };
  const run = (name) => {
    const all = runs(name);
    if (all.length !== 1) throw new Error(`fixture ${name} holds ${all.length} run directories`);
    return all[0];
  };
  return { root, runs, run };
}

/**
 * A copy of one run directory, named as it is, in a temp directory of its own, then `damage(dir)`.
 * @param {string} dir
 * @param {(dir: string) => void} [damage]
 */
export function copyRun(dir, damage) {
  const copy = path.join(tempDir('rqbench-copy-'), path.basename(dir));
  fs.cpSync(dir, copy, { recursive: true });
  damage?.(copy);
  return copy;
}

/**
 * @typedef {{ code: number, stdout: string, stderr: string }} Ran
 */

/**
 * `rqbench <argv…>` in this process: its exit code and what it wrote.
 * @param {...string} argv
 * @returns {Promise<Ran>}
 */
export async function rq(...argv) {
  const stdout = {
    text: '',
    write(t) {
      this.text += t;
    },
  };
  const stderr = {
    text: '',
    write(t) {
      this.text += t;
    },
  };
  const code = await runCommand(argv, { stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** For assertion messages. */
export const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(0, 400)}`;

/** A run directory's JSON file. */
export const readJson = (dir, name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));

/**
 * A JSON file of a run directory, edited in place (written back compact, as a damaged copy).
 * @param {string} dir
 * @param {string} name
 * @param {(v: any) => any} edit changes `v`, or returns its replacement
 */
export function editJson(dir, name, edit) {
  const v = readJson(dir, name);
  fs.writeFileSync(path.join(dir, name), JSON.stringify(edit(v) ?? v));
}
