// The house's rules, held against the code: imports run one way (commands → plans → workloads →
// the infrastructure they stand on), no two files share a name, and a plan is checked once and
// frozen. Pure reading of src/: no server needed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { producerPlan } from '../../src/plans/producer-plan.js';
import { consumerPlan } from '../../src/plans/consumer-plan.js';
import { settings } from '../../src/settings.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = path.join(ROOT, 'src');

/** Files at the top of src/ that every room may import: defaults, bad input, where a command's words go, secrets masked. */
const BASE_FILES = ['settings.js', 'usage-error.js', 'command-io.js', 'secrets.js'];

/**
 * Top to bottom: a file may import its own room or a room below it, never one above. Reading a
 * run back (report/) stands above the workloads that write runs, and what a kind of run directory
 * holds (runs/) below them: the workloads summarise their runs with it, the reports read runs with it.
 */
const LAYERS = [
  ['entry', (f) => !f.includes('/') && !BASE_FILES.includes(f)],
  ['commands', (f) => f.startsWith('commands/')],
  ['experiments', (f) => f.startsWith('experiments/')],
  ['report', (f) => f.startsWith('report/')],
  ['plans', (f) => f.startsWith('plans/')],
  ['workloads', (f) => f.startsWith('workloads/')],
  ['harness', (f) => f.startsWith('harness/')],
  ['cluster-actions', (f) => f.startsWith('cluster-actions/')],
  ['runs', (f) => f.startsWith('runs/')],
  ['record', (f) => f.startsWith('record/')],
  ['measure', (f) => f.startsWith('measure/')],
  ['stats', (f) => f.startsWith('stats/')],
  ['local', (f) => f.startsWith('local/')],
  ['transports', (f) => f.startsWith('transports/')],
  ['base', (f) => BASE_FILES.includes(f) || f.startsWith('types/')],
];

/**
 * The one way up, on purpose: a queue driver declares its local emulator and loads it only
 * when asked to start it (import() inside the driver's emulator.start).
 */
const ALLOWED_UP = [[/^transports\/\w+-driver\.js$/, /^local\/\w+-emulator\.js$/]];

const rankOf = (f) => LAYERS.findIndex(([, is]) => is(f));

function sources(dir = SRC) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.js') ? [path.relative(SRC, p)] : [];
  });
}

/** Every module a file names: static imports, import() (JSDoc types too), new URL(…) of a .js file. */
function importsOf(file) {
  const text = fs.readFileSync(path.join(SRC, file), 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s+|import\(\s*|new URL\(\s*)['"](\.{1,2}\/[^'"]+\.js)['"]/g)].map((m) => m[1]);
  return specs.map((s) => path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), s)));
}

describe('the layout', () => {
  const files = sources();

  it('every source file stands in a room of the layout', () => {
    expect(files.filter((f) => rankOf(f) < 0)).toEqual([]);
  });

  it('no import runs back up: entry → commands → experiments → report → plans → workloads → harness → cluster-actions → runs → record → measure → stats → local → transports', () => {
    const up = [];
    for (const f of files) {
      for (const to of importsOf(f)) {
        if (rankOf(to) >= rankOf(f) || to.split('/')[0] === f.split('/')[0]) continue;
        if (ALLOWED_UP.some(([a, b]) => a.test(f) && b.test(to))) continue;
        up.push(`${f} → ${to}`);
      }
    }
    expect(up).toEqual([]);
  });

  it('nothing below commands/ reads the flag bag: no workload or infrastructure imports plans/ or commands/', () => {
    const below = files.filter((f) => rankOf(f) > rankOf('plans/x.js'));
    const reaching = below.flatMap((f) =>
      importsOf(f)
        .filter((to) => /^(plans|commands)\//.test(to))
        .map((to) => `${f} → ${to}`),
    );
    expect(reaching).toEqual([]);
  });

  it('reading runs back stays apart from making them: report/ imports no workload (what a kind of run holds is in runs/)', () => {
    const reaching = files
      .filter((f) => f.startsWith('report/'))
      .flatMap((f) =>
        importsOf(f)
          .filter((to) => to.startsWith('workloads/'))
          .map((to) => `${f} → ${to}`),
      );
    expect(reaching).toEqual([]);
  });

  it('no report/ file switches on a run kind: it asks runs/kinds.js, never compares a kind with a literal', () => {
    const KIND = String.raw`['"](?:produce|consume|queue-publish|queue-consume|load|ops)['"]`;
    const switching = [
      new RegExp(String.raw`kind\s*[!=]==?\s*${KIND}`),
      new RegExp(String.raw`${KIND}\s*[!=]==?\s*[\w.]*kind\b`),
      new RegExp(String.raw`case\s+${KIND}`),
      new RegExp(String.raw`\.includes\(\s*${KIND}\s*\)`),
      // a table keyed by kind
      /^\s*(?:produce|consume|'queue-publish'|'queue-consume'):/m,
    ];
    const found = files
      .filter((f) => f.startsWith('report/'))
      .flatMap((f) => {
        const text = fs.readFileSync(path.join(SRC, f), 'utf8');
        return switching.filter((re) => re.test(text)).map((re) => `${f}: ${re.exec(text)?.[0]}`);
      });
    expect(found).toEqual([]);
  });

  it('no two files share a name', () => {
    const all = [
      ...files.map((f) => `src/${f}`),
      ...fs
        .readdirSync(path.join(ROOT, 'bench'), { recursive: true })
        .filter((f) => String(f).endsWith('.js'))
        .map((f) => `bench/${f}`),
    ];
    const byName = new Map();
    for (const f of all) byName.set(path.basename(f), [...(byName.get(path.basename(f)) ?? []), f]);
    expect([...byName.values()].filter((v) => v.length > 1)).toEqual([]);
  });
});

describe('plans', () => {
  const flags = () => ({
    _: ['produce'],
    $0: 'rqbench',
    q: 1000,
    quantity: 1000,
    p: 1000,
    period: 1000,
    c: 1,
    chunks: 1,
    t: 2,
    writers: 2,
    ns: 2,
    'same-slot': false,
    sameSlot: false,
    ttl: 3,
    duration: 10,
    d: 10,
    cluster: true,
    extraSets: 0,
    at: ['3:reshard:10'],
    out: fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-plan-')),
  });

  it('a producer plan is checked once and frozen all the way down; the flags are left as they were', () => {
    const a = flags();
    const before = structuredClone(a);
    try {
      const plan = producerPlan(a);
      expect(a).toEqual(before);
      expect(Object.isFrozen(plan)).toBe(true);
      expect(Object.isFrozen(plan.actions)).toBe(true);
      expect(Object.isFrozen(plan.actions[0])).toBe(true);
      // what the checks worked out is in the plan; yargs' duplicates are not
      expect(plan).toMatchObject({
        quantity: 1000,
        warmup: settings.warmupSeconds,
        valueSize: settings.valueSize,
        actions: [{ atSec: 3 }],
      });
      expect(plan.q).toBeUndefined();
      expect(plan['same-slot']).toBeUndefined();
      expect(() => {
        /** @type {any} */ (plan).quantity = 5;
      }).toThrow(TypeError);
    } finally {
      fs.rmSync(a.out, { recursive: true, force: true });
    }
  });

  it('a consumer plan the same; bad input still throws the one-line UsageError', () => {
    const a = { ...flags(), period: 1000, scriptMode: 'manual', limit: 0, readers: 1, fetch: 'mget', at: undefined };
    try {
      const plan = consumerPlan(a);
      expect(Object.isFrozen(plan)).toBe(true);
      expect(plan.actions).toEqual([]);
      expect(() => consumerPlan({ ...a, fetch: 'curl' })).toThrow(/^--fetch must be one of mget, pipeline, get \(got "curl"\)$/);
    } finally {
      fs.rmSync(a.out, { recursive: true, force: true });
    }
  });
});
