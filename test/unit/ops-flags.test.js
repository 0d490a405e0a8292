// Bad input to `rqbench ops`: one line naming the flag, exit 2, nothing set up or written. The
// command runs in this process; test/integration/ops.test.js and ops-overhead.test.js time real
// servers and emulators.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRun, readRun, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { DEAD_PORT, rqbench } from '../helpers/in-process.js';

afterAll(() => removeTempDirs());

describe('rqbench ops: bad input', () => {
  it.each([
    [['--only', 'kafka'], '--only'],
    [['--only', 'pubsub', '--pubsub-endpoint', 'http://127.0.0.1:8085'], '--pubsub-endpoint'],
    [['--only', 'sqs', '--endpoint', '127.0.0.1:4566'], '--endpoint'],
    [['--only', ''], '--only'],
    [['-d', '0'], '--duration'],
    [['--warmup', '-1'], '--warmup'],
  ])('bad input %j exits 2 with one line naming %s and writes nothing', async (flags, name) => {
    const out = tempDir('rqbench-ops-bad-');
    const r = await rqbench(['ops', '--port', DEAD_PORT, '--out', path.join(out, 'o'), ...flags]);
    expect(r.code, describeRun(r)).toBe(2);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain(name);
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it('a bad --api-endpoint or --assume-role-arn is one line naming the flag (exit 2)', async () => {
    for (const [flag, value, says] of [
      ['--api-endpoint', 'localhost:5000', /--api-endpoint.*http\(s\):\/\/ URL/],
      ['--assume-role-arn', 'role/x', /--assume-role-arn.*IAM role ARN/],
    ]) {
      const out = tempDir('rqbench-ops-overhead-');
      const r = await rqbench(['ops', '--warmup', '0.2', '-d', '0.6', '--out', out, '--json', '--only', 'sts', flag, value]);
      expect(r.code, describeRun(r)).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(says);
      expect(readRun(out, r.stdout).dirs).toEqual([]);
    }
  });
});
