/**
 * Golden outputs, as benchstat keeps them: what a command printed and how it ended, against a
 * committed file per case under test/fixtures/golden/. `UPDATE_GOLDEN=1 npx vitest run --project
 * unit` writes them again from today's code (after the fixtures were recorded again, or after a
 * change meant to change the output); review the diff before committing it.
 *
 * A case's file holds its command line, exit code, stdout and stderr in sections (`-- stdout --`),
 * with the paths that differ from run to run made stable first (normalise()).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

export const GOLDEN = path.join(import.meta.dirname, '..', 'fixtures', 'golden');
export const UPDATE = process.env.UPDATE_GOLDEN === '1';

/**
 * Where each test run puts the fixtures and its outputs is a fresh temp directory: in a golden
 * file it reads as the placeholder given (`<fixtures>`, `<tmp>`). Nothing else is rewritten:
 * every figure, name, host and port is the recorded run's.
 * @param {string} text
 * @param {Array<[string, string]>} places [path, placeholder], the longest (innermost) first
 */
export function normalise(text, places) {
  let out = text;
  for (const [from, to] of places) out = out.split(from).join(to);
  return out;
}

/** One section of a case's file; a text without a final newline says so, as diff does. */
const section = (name, text) => `-- ${name} --\n${text === '' || text.endsWith('\n') ? text : `${text}\n\\ No newline at end\n`}`;

/**
 * The file of one command's run.
 * @param {string[]} argv normalised
 * @param {{ code: number, stdout: string, stderr: string }} r normalised
 */
export function caseText(argv, r) {
  return `# rqbench ${argv.join(' ')}\n${section('exit', `${r.code}\n`)}${section('stdout', r.stdout)}${section('stderr', r.stderr)}`;
}

/**
 * `text` is what test/fixtures/golden/<name> holds (or, with UPDATE_GOLDEN=1, becomes it).
 * @param {string} name relative path under test/fixtures/golden/
 * @param {string} text
 */
export function expectGolden(name, text) {
  const file = path.join(GOLDEN, name);
  if (UPDATE) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    return;
  }
  expect(fs.existsSync(file), `no golden file ${path.relative(process.cwd(), file)}: UPDATE_GOLDEN=1 writes it`).toBe(true);
  expect(text, `${name} differs from its golden file (UPDATE_GOLDEN=1 writes it again: review the diff)`).toBe(
    fs.readFileSync(file, 'utf8'),
  );
}
