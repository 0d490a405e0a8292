// Notes that cannot go stale (issue 37, point 1): a figure of a run is never typed into a spec's
// notes, it is a placeholder ({{ step.metric }}) filled from the run RESULTS.md is written from.
// So every number a committed RESULTS.md's notes still state must be the seed's (its text in
// ../shared/seeds/) or one the same RESULTS.md states outside its notes (the spec's flags, rates
// and lengths, this run's figures). A note that quotes an older run's median fails here.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { fillNotes, isKnown, notesProblem, numbersIn } from '../../src/experiments/notes.js';

const ROOT = path.join(import.meta.dirname, '..', '..');
const SEEDS = path.join(ROOT, '..', 'shared', 'seeds');
const EXPERIMENTS = path.join(ROOT, 'experiments');

describe('placeholders in notes', () => {
  const metrics = { master_cpu: 'master CPU', cycle_p50_ms: 'cycle p50' };
  it('are filled with the step median, as the Finding writes it; a step this run did not measure says so', () => {
    const medians = { zset: { master_cpu: 44.512 } };
    const filled = fillNotes(
      'The sorted set ran at {{ zset.master_cpu }}% and the list at {{list.master_cpu}}%.',
      (s, m) => medians[s]?.[m],
      (x) => x.toFixed(1),
    );
    expect(filled).toBe('The sorted set ran at 44.5% and the list at (not measured)%.');
  });

  it.each([
    ['{{ zsets.master_cpu }}', 'notes: {{ zsets.master_cpu }} names no step (steps: zset, list)'],
    ['{{ zset.cpu }}', 'notes: {{ zset.cpu }}: cpu is not a metric (known: master_cpu, cycle_p50_ms)'],
    ['{{ master_cpu }}', 'notes: {{ master_cpu }} is not a placeholder ({{ step.metric }}, e.g. {{ zset.master_cpu }})'],
  ])('%s is refused when the spec is read', (text, why) => {
    expect(notesProblem(`At ${text} here.`, ['zset', 'list'], metrics)).toBe(why);
  });

  it('plain prose, and {{ step.metric }} of a step and a metric the spec has, pass', () => {
    expect(notesProblem('At {{ zset.master_cpu }}, {{list.cycle_p50_ms}} a cycle.', ['zset', 'list'], metrics)).toBeNull();
  });
});

describe('numbers in prose', () => {
  it('reads thousands, grouped digits, decimals and signs, not the digits of names', () => {
    const got = numbersIn('30k items/s, 1,000 of 300k, 4.7 s, −20%, r6g.large, 002-lua, trial-3, v20.20.2, 8 writers.');
    expect(got.map((n) => n.value)).toEqual([30000, 1000, 300000, 4.7, -20, 8]);
  });

  it('reads a multiplier ("differ by 2x", "1.5×"), not a rate factor written before it (x7.55) or a name (4xlarge)', () => {
    expect(numbersIn('a cell can differ by 2x, or 1.5×, at x7.55 on an m5.4xlarge').map((n) => n.value)).toEqual([2, 1.5]);
  });

  it('finds a figure rounded in prose among the figures it rounds', () => {
    expect(isKnown({ value: 2.6, decimals: 1 }, [2.58])).toBe(true);
    expect(isKnown({ value: 30000, decimals: 0 }, [30000])).toBe(true);
    expect(isKnown({ value: 6.75, decimals: 2 }, [6.05, 4.1])).toBe(false);
  });
});

describe.skipIf(!fs.existsSync(SEEDS))("every committed RESULTS.md's notes", () => {
  const seeds = Object.fromEntries(fs.readdirSync(SEEDS).map((f) => [f.slice(0, 3), fs.readFileSync(path.join(SEEDS, f), 'utf8')]));
  const specs = fs
    .readdirSync(EXPERIMENTS)
    .filter((d) => fs.existsSync(path.join(EXPERIMENTS, d, 'RESULTS.md')) && fs.existsSync(path.join(EXPERIMENTS, d, 'experiment.yaml')))
    .map((d) => ({ name: d, spec: YAML.parse(fs.readFileSync(path.join(EXPERIMENTS, d, 'experiment.yaml'), 'utf8')) }))
    .filter((s) => typeof s.spec.notes === 'string');

  it.each(specs.map((s) => [s.name, s]))("%s: states no figure that is neither the seed's nor this run's", (name, { spec }) => {
    const md = fs.readFileSync(path.join(EXPERIMENTS, name, 'RESULTS.md'), 'utf8');
    // the notes as printed: the paragraph that begins as the spec's notes begin (up to a placeholder)
    const head = spec.notes.split('{{')[0].slice(0, 60);
    const paras = md.split('\n\n');
    const at = paras.findIndex((p) => p.startsWith(head));
    expect(at, `${name}: its notes are not in RESULTS.md (regenerate it)`).toBeGreaterThanOrEqual(0);
    const outside = [...paras.slice(0, at), ...paras.slice(at + 1)].join('\n\n');
    const known = [...numbersIn(outside), ...numbersIn(seeds[name.slice(0, 3)] ?? '')].map((n) => n.value);
    // what the notes type themselves: the placeholders are filled from the run, and are its figures
    const typed = spec.notes.replace(/\{\{[^}]*\}\}/g, ' ');
    const stale = numbersIn(typed).filter((n) => !isKnown(n, known));
    expect(
      stale.map((n) => n.text),
      `${name}: figures in its notes found neither in the seed nor elsewhere in RESULTS.md`,
    ).toEqual([]);
  });
});
