// An unreachable server: the producer exits 1 within 5 s with one line naming host:port, and no
// run directory. A real process, no mocks. Bad input (exit 2, one line naming the flag) and --help
// are checked in-process in test/unit/producer-flags.test.js, and a real process holds that
// contract in cli-contract.test.js.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PRODUCER, describeRun, freePort, listTree, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

const T = 20_000; // ms per test (one short-lived process each)

afterAll(() => removeTempDirs());

describe('unreachable server', () => {
  it(
    'an unreachable --port exits 1 within 5 s with one line naming 127.0.0.1:<port>, and no run directory',
    async () => {
      const port = await freePort();
      const base = tempDir('rqbench-cli-');
      const out = path.join(base, 'out');
      const r = await runNode(
        [PRODUCER, '--host', '127.0.0.1', '--port', String(port), '-q', '10', '-d', '1', '--warmup', '0', '--out', out],
        { timeoutMs: 15_000 },
      );
      expect(r.code, describeRun(r)).toBe(1);
      expect(r.ms, 'exits within 5 s').toBeLessThan(5000);
      expect(r.stdout).toBe('');
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect(lines.length, JSON.stringify(r.stderr)).toBe(1);
      expect(lines[0]).toContain(`127.0.0.1:${port}`);
      expect(listTree(base), 'no run directory').toEqual([]);
    },
    T,
  );
});
