// The data models' flags: each model found in its own file and listed by --help; what a model
// cannot do refused in one line naming the flag, exit 2. The commands run in this process;
// test/integration/store-models.test.js writes and reads each model on a real Redis.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MODELS } from '../../src/workloads/items/stores/registry.js';
import { seedScript } from '../helpers/in-process.js';

describe('the registry', () => {
  it('finds hash and stream, each in its own file, and --help lists their flags', async () => {
    for (const name of ['hash', 'stream']) {
      expect(fs.existsSync(new URL(`../../src/workloads/items/stores/models/${name}.js`, import.meta.url)), name).toBe(true);
      expect(MODELS.map((m) => m.name)).toContain(name);
    }
    for (const script of ['producer.js', 'consumer.js']) {
      const r = await seedScript(script, ['--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/--hash\b/);
      expect(r.stdout).toMatch(/--stream\b/);
    }
  });
});

describe("the data models' flags", () => {
  it('refuses what a model cannot do, in one line naming the flag, exit 2', async () => {
    const cases = [
      ['producer.js', ['--hash', '--actual-value'], /^producer\.js: --actual-value must be used without --hash/],
      [
        'producer.js',
        ['--hash', '--stream'],
        /^producer\.js: --stream with --hash must be used one at a time|^producer\.js: --hash with --stream must be used one at a time/,
      ],
      ['consumer.js', ['--stream', '-s', 'script'], /^consumer\.js: -s script must be used with a sorted-set model/],
      [
        'producer.js',
        ['--stream', '--actual-value', '--verify', '--ttl', '99'],
        /^producer\.js: --verify must be used without --actual-value/,
      ],
    ];
    for (const [script, args, want] of cases) {
      const r = await seedScript(script, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toMatch(want);
    }
  });

  it('refuses an unknown client with one line naming --client, exit 2', async () => {
    const r = await seedScript('producer.js', ['--client', 'jedis', '-d', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('producer.js: --client must be rqbench or ioredis (got "jedis")');
  });
});
