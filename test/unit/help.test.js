// Help that cannot lie (issue 25, point 4): every command's yargs definition walked — each option
// it lists has a description, a required positional shows no default, and a command lists no flag
// it refuses (capacity sets -q, -d, --warmup, --start-at, --at and -a itself). The commands run
// in this process (src/run-command.js).
import fs from 'node:fs';
import path from 'node:path';
import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { SEARCH_OWNED } from '../../src/plans/capacity-plan.js';
import { ROOT } from '../helpers/producer-run.js';
import { rqbench } from '../helpers/in-process.js';

const DIR = path.join(ROOT, 'src/commands');
const MODULES = await Promise.all(
  fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map(async (f) => ({ file: f, mod: await import(path.join(DIR, f)) })),
);
const COMMANDS = MODULES.filter(({ mod }) => typeof mod.builder === 'function' && typeof mod.command === 'string');

/** A command's definition as yargs holds it: visible options, their descriptions. */
function definition(mod) {
  const y = yargs([]);
  mod.builder(y);
  const o = y.getOptions();
  const descriptions = y.getInternalMethods().getUsageInstance().getDescriptions();
  const hidden = new Set(o.hiddenOptions);
  // an alias is a key of its own: keep the names yargs lists (the ones with a description slot)
  const visible = Object.keys(descriptions).filter((k) => !hidden.has(k) && !['help', 'version'].includes(k));
  return { o, descriptions, visible, hidden };
}

describe("every command's --help", () => {
  it('finds the commands (one module each in src/commands/)', () => {
    expect(COMMANDS.map(({ mod }) => mod.command.split(' ')[0]).sort()).toEqual([
      'capacity',
      'chart',
      'compare',
      'consume',
      'experiment',
      'generate-deltas',
      'k8s',
      'kv',
      'load',
      'local',
      'ops',
      'produce',
      'report',
    ]);
  });

  it.each(COMMANDS.map(({ mod }) => [mod.command.split(' ')[0], mod]))(
    '%s: every listed option and positional has a description',
    (_name, mod) => {
      const { descriptions, visible } = definition(mod);
      const bare = visible.filter((k) => !String(descriptions[k] ?? '').trim());
      expect(bare).toEqual([]);
    },
  );

  it.each(COMMANDS.map(({ mod }) => [mod.command.split(' ')[0], mod]))('%s: a required positional shows no default', async (name, mod) => {
    const required = [...mod.command.matchAll(/<([\w-]+)(\.\.)?>/g)].map((m) => m[1]);
    const r = await rqbench([name, '--help']);
    expect(r.code).toBe(0);
    const block = r.stdout.split(/\n(?=\S)/).find((b) => b.startsWith('Positionals:')) ?? '';
    for (const p of required) {
      const entry = block.split(/\n(?= {2}\S)/).find((e) => e.trimStart().startsWith(`${p} `)) ?? '';
      expect(entry, `${name} --help: positional ${p}`).toMatch(/\[required\]/);
      expect(entry, `${name} --help: positional ${p}`).not.toMatch(/\[default:/);
    }
  });

  it('capacity lists none of the producer flags the search sets itself (it refuses each one)', async () => {
    const capacity = COMMANDS.find(({ mod }) => mod.command === 'capacity').mod;
    const { visible, hidden } = definition(capacity);
    for (const flag of Object.keys(SEARCH_OWNED)) {
      expect(visible, flag).not.toContain(flag);
      expect(hidden.has(flag), flag).toBe(true);
    }
    const r = await rqbench(['capacity', '--help']);
    for (const shown of ['-q,', '--quantity', '-d,', '--duration', '--warmup', '--start-at', '--at ', '-a,', '--writer ']) {
      expect(r.stdout, shown).not.toContain(`  ${shown}`);
    }
    // and each one is still refused when typed, with the flag named
    const q = await rqbench(['capacity', '-q', '5000', '--local']);
    expect(q.code).toBe(2);
    expect(q.stderr.trim()).toBe('rqbench capacity: -q is set by the capacity search (use --start-rate and --max-rate)');
  });

  it('--stream says what the code does: one XADD per item, a separate XTRIM each purge period', async () => {
    const r = await rqbench(['produce', '--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(
      'a Redis Stream (one XADD per item; a separate XTRIM MINID ~ every purge period keeps it to the TTL)',
    );
  });
});

describe('what the top level says', () => {
  it('an unknown command is called a command, with the list', async () => {
    const r = await rqbench(['bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'rqbench: unknown command "bogus" (commands: produce, consume, local, report, compare, chart, ops, load, kv, capacity, experiment, generate-deltas, k8s; see rqbench --help)',
    );
  });

  it('a command missing its arguments says which, in one line', async () => {
    const r = await rqbench(['experiment', 'run']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'rqbench: experiment needs more arguments: rqbench experiment <action> <dirs..> (see rqbench experiment --help)',
    );
  });
});
