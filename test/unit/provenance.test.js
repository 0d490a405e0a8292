// Which code made a RESULTS.md (issue 37, point 2): the commit each session of the run ran and
// whether the tree was clean; a dirty tree marks the tables, and a run from before the tree's
// state was recorded says so instead of naming its commit as if it were the code.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { provenanceOf } from '../../src/experiments/provenance.js';

const A = '1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b';
const B = 'ffeeddccbbaa99887766554433221100ffeeddcc';
const session = (git, dirty) => ({ git, dirty, at: '2026-11-28T00:00:00.000Z' });
/** @param {Array<ReturnType<typeof session>>} code */
const run = (code) => /** @type {any} */ ({ repeat: 6, seed: 1, order: [], startedAt: '', code });

describe('the code a RESULTS.md names', () => {
  it('a clean tree: its commit, no mark', () => {
    expect(provenanceOf(run([session(A, false)]), null)).toEqual({ words: 'rqbench 1a2b3c4d, a clean tree', mark: null });
  });

  it('a dirty session anywhere in the run marks the tables "from uncommitted code"', () => {
    const p = provenanceOf(run([session(A, false), session(B, true)]), null);
    expect(p.words).toBe('rqbench 1a2b3c4d and ffeeddcc with uncommitted changes (the sessions of this run ran these commits)');
    expect(p.mark).toMatch(/^\*\*From uncommitted code:\*\*/);
  });

  it('outside a git checkout the version is named, and marked as not naming the code', () => {
    const p = provenanceOf(run([session(null, null)]), { versions: { rqbench: '0.1.0' } });
    expect(p.words).toBe('rqbench 0.1.0 (not from a git checkout)');
    expect(p.mark).toMatch(/version alone \(0\.1\.0\) does not name the code/);
  });

  it('a run from before the state was recorded names its commit as not proven', () => {
    const p = provenanceOf(null, { git: A });
    expect(p.words).toBe('rqbench 1a2b3c4d (whether its tree held uncommitted changes was not recorded)');
    expect(p.mark).toMatch(/^\*\*Code not proven by a commit:\*\*.*commit 1a2b3c4d may not be all of the code/);
    expect(provenanceOf(null, { git: A, gitDirty: false })).toEqual({ words: 'rqbench 1a2b3c4d, a clean tree', mark: null });
  });
});

describe('the committed RESULTS.md files', () => {
  const root = path.join(import.meta.dirname, '..', '..', 'experiments');
  const files = fs
    .readdirSync(root)
    .map((d) => path.join(root, d, 'RESULTS.md'))
    .filter((f) => fs.existsSync(f));

  it.each(files.map((f) => [path.basename(path.dirname(f)), f]))('%s names a clean commit, or is marked', (_, file) => {
    const md = fs.readFileSync(file, 'utf8');
    const clean = /rqbench [0-9a-f]{8}(?: and [0-9a-f]{8})*, a clean tree/.test(md);
    const marked = /^\*\*(From uncommitted code|Code not proven by a commit|Code not named by a commit):\*\*/m.test(md);
    expect(clean || marked, 'neither a clean commit nor a mark').toBe(true);
    expect(clean && marked, 'both a clean commit and a mark').toBe(false);
  });
});
