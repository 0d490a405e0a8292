// The seeds' claims (issue 24, point 6): every claim is covered by a spec that exists, planned with
// what it needs, or out of scope with why; the index lists them.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
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
    // a spec that covers no claim would be a spec without a reason, unless no seed ran it (seed: none: its finding is its own)
    const used = new Set(claims?.filter((c) => c.spec).map((c) => c.spec));
    const own = (s) => YAML.parse(fs.readFileSync(path.join(EXPERIMENTS, s, 'experiment.yaml'), 'utf8')).seed === 'none';
    expect([...specs].filter((s) => !used.has(s) && !own(s))).toEqual([]);
    expect([...specs].filter(own)).toEqual(['kv-hot-shard']);
  });

  it("experiments/claims.yaml agrees with the specs: a covered claim's figures are in its spec's check, a shown claim's column among its spec's seed columns", () => {
    const claims = readClaims(
      EXPERIMENTS,
      new Set(fs.readdirSync(EXPERIMENTS).filter((d) => fs.existsSync(path.join(EXPERIMENTS, d, 'experiment.yaml')))),
    );
    /** @param {string} name */
    const spec = (name) => YAML.parse(fs.readFileSync(path.join(EXPERIMENTS, name, 'experiment.yaml'), 'utf8'));
    const wrong = [];
    for (const c of claims ?? []) {
      if (c.status === 'covered') {
        const check = spec(String(c.spec)).check ?? '';
        for (const ref of c.checks ?? [])
          if (!new RegExp(`(^|[^\\w.])${ref.replace(/[.]/g, '\\.')}(?![\\w])`).test(check))
            wrong.push(`${c.claim}: ${c.spec}'s check has no ${ref}`);
      }
      if (c.status === 'shown') {
        const s = spec(String(c.spec));
        const columns = [...Object.keys(s.seedMetrics ?? {}), ...Object.keys(s.seedColumns ?? {})];
        if (!columns.includes(String(c.figure))) wrong.push(`${c.claim}: ${c.spec} sets no "${c.figure}" beside the seed's`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("the index's section counts them and links each covered claim to its spec", () => {
    const md = claimsSection([
      { seed: '001', claim: 'a', status: 'covered', spec: 'x', checks: ['s.cpu'], why: 'how' },
      { seed: '001', claim: 'c', status: 'shown', spec: 'x', figure: 'E2E', why: 'beside' },
      { seed: '002', claim: 'b', status: 'planned', why: 'needs y' },
    ]).join('\n');
    expect(md).toContain(
      "3 claims, 1 covered by a spec's check, 1 shown beside the seed's figures (no check decides them), 1 planned, 0 out of scope.",
    );
    expect(md).toContain('| 001 | a | covered | [x](x/experiment.yaml) (check: `s.cpu`): how |');
    expect(md).toContain('| 001 | c | shown | [x](x/experiment.yaml) ("E2E"): beside |');
    expect(md).toContain('| 002 | b | planned | needs y |');
    expect(claimsSection(null)).toEqual([]);
  });

  it.each([
    ['- { seed: "001", claim: "a", status: maybe }', /status must be one of covered, shown, planned, out of scope \(got "maybe"\)/],
    [
      '- { seed: "001", claim: "a", status: covered, spec: nowhere, checks: [s.cpu] }',
      /spec must name a spec beside it for a covered claim \(got "nowhere"\)/,
    ],
    ['- { seed: "001", claim: "a", status: covered, spec: x }', /checks must list the figures of x's check that test it/],
    ['- { seed: "001", claim: "a", status: shown, spec: x, why: w }', /figure must name the seed column of x/],
    ['- { seed: "001", claim: "a", status: planned, spec: x, why: w }', /a planned one names none/],
    ['- { seed: "001", claim: "a", status: out of scope, why: w, checks: [s.cpu] }', /checks is for a covered claim only/],
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
