// The seed quoted, never paraphrased as a quote (issue 37, point 4): a spec's finding written in
// double quotes is printed as the seed's own words ("Seed: …"), so it must be in the seed's text;
// any other finding is printed as rqbench's reading ("Seed, in our reading: …"). Words a spec's
// prose attributes to the seed in quotes ("the seed's '…'") must be found there too.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { seedLine } from '../../src/experiments/finding-md.js';

const ROOT = path.join(import.meta.dirname, '..', '..');
const SEEDS = path.join(ROOT, '..', 'shared', 'seeds');
const EXPERIMENTS = path.join(ROOT, 'experiments');
/** @param {string} s */
const flat = (s) => s.replace(/\s+/g, ' ').trim();

describe('a finding as RESULTS.md gives it', () => {
  it('in double quotes: the seed quoted', () => {
    expect(seedLine('"ioredis was not following the redirection and just throwing."')).toBe(
      'Seed: "ioredis was not following the redirection and just throwing."',
    );
  });

  it("otherwise: rqbench's reading of the seed, said so", () => {
    expect(seedLine('a list costs less')).toBe('Seed, in our reading: a list costs less.');
    expect(seedLine(undefined)).toBe('Seed: (no finding line in the spec).');
  });

  it("seed: none (an experiment no seed ran): rqbench's own claim, said so", () => {
    expect(seedLine('zipf keys take capacity away', 'none')).toBe(
      'Claim (ours: no seed ran this experiment): zipf keys take capacity away.',
    );
  });
});

describe.skipIf(!fs.existsSync(SEEDS))("the specs' quotes of the seeds (../shared/seeds/)", () => {
  const seeds = Object.fromEntries(fs.readdirSync(SEEDS).map((f) => [f.slice(0, 3), flat(fs.readFileSync(path.join(SEEDS, f), 'utf8'))]));
  const specs = fs
    .readdirSync(EXPERIMENTS)
    .filter((d) => fs.existsSync(path.join(EXPERIMENTS, d, 'experiment.yaml')))
    .map((d) => ({ name: d, spec: YAML.parse(fs.readFileSync(path.join(EXPERIMENTS, d, 'experiment.yaml'), 'utf8')) }));

  it.each(specs.map((s) => [s.name, s]))("%s: every quote it gives as the seed's is in the seed", (_, { name, spec }) => {
    // an experiment no seed ran quotes none: its finding is not in quotes
    if (spec.seed === 'none') return expect(String(spec.finding ?? '')).not.toMatch(/^\s*".*"\s*$/s);
    const seed = seeds[name.slice(0, 3)];
    expect(seed, `no seed text for ${name}`).toBeTruthy();
    const quotes = [];
    const finding = String(spec.finding ?? '').trim();
    if (/^".*"$/s.test(finding)) quotes.push(finding.slice(1, -1));
    const prose = [spec.notes, spec.checkTests, spec.decideBy, ...Object.values(spec.seedColumns ?? {})].filter(
      (x) => typeof x === 'string',
    );
    for (const text of prose)
      for (const m of text.matchAll(/the seed(?:'s| says| said| wrote)\s*[:,]?\s*(['"“])(.{6,}?)['"”]/g)) quotes.push(m[2]);
    const missing = quotes.filter((q) => !seed.includes(flat(q)));
    expect(missing).toEqual([]);
  });
});
