// The seeds' claims (issue 24, point 6): every claim is covered by a spec that exists, planned with
// what it needs, or out of scope with why; the index lists them.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claimsSection, readClaims } from '../../src/experiments/claims.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';

const EXPERIMENTS = path.join(import.meta.dirname, '..', '..', 'experiments');
afterAll(() => removeTempDirs());

/** @param {string} yaml */
function claimsIn(yaml) {
  const dir = tempDir('rqbench-claims-');
  fs.writeFileSync(path.join(dir, 'claims.yaml'), yaml);
  return dir;
}

describe("the seeds' claims", () => {
  it('experiments/claims.yaml: every covered claim names a spec beside it, every other says why; every seed has claims', () => {
    const specs = new Set(
      fs
        .readdirSync(EXPERIMENTS, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name),
    );
    const claims = readClaims(EXPERIMENTS, specs);
    expect(claims).not.toBeNull();
    expect(new Set(claims?.map((c) => c.seed))).toEqual(new Set(['000', '001', '002', '003', '004']));
    // a spec that covers no claim would be a spec without a reason
    const used = new Set(claims?.filter((c) => c.spec).map((c) => c.spec));
    expect([...specs].filter((s) => !used.has(s))).toEqual([]);
  });

  it("the index's section counts them and links each covered claim to its spec", () => {
    const md = claimsSection([
      { seed: '001', claim: 'a', status: 'covered', spec: 'x', why: 'how' },
      { seed: '002', claim: 'b', status: 'planned', why: 'needs y' },
    ]).join('\n');
    expect(md).toContain('2 claims, 1 covered by a spec, 1 planned, 0 out of scope.');
    expect(md).toContain('| 001 | a | covered | [x](x/experiment.yaml): how |');
    expect(md).toContain('| 002 | b | planned | needs y |');
    expect(claimsSection(null)).toEqual([]);
  });

  it.each([
    ['- { seed: "001", claim: "a", status: maybe }', /status must be one of covered, planned, out of scope \(got "maybe"\)/],
    [
      '- { seed: "001", claim: "a", status: covered, spec: nowhere }',
      /spec must name a spec beside it for a covered claim \(got "nowhere"\)/,
    ],
    ['- { seed: "001", claim: "a", status: planned }', /why is needed: what a planned claim lacks, or why/],
    // an alias bomb: the parser's own words named neither the file nor what to change
    [
      [
        'a: &a [x, x, x, x, x, x, x, x, x]',
        ...'bcdefgh'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
      ].join('\n'),
      /claims\.yaml: refused: its aliases \(\*name\) expand to more than 100 copies of anchored values \(a YAML alias bomb\)/,
    ],
  ])('refuses %s', (yaml, says) => {
    expect(() => readClaims(claimsIn(yaml), new Set(['x']))).toThrow(says);
  });
});
