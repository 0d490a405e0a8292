// Bad input to `rqbench local`: one line, exit 2, nothing started (the unit tier could not start a
// server if it tried: no-servers.js). test/integration/local-redis.test.js and local-queues.test.js
// start the real ones.
import { describe, expect, it } from 'vitest';
import { rqbench } from '../helpers/in-process.js';

describe('rqbench local: bad input', () => {
  it('local sqs refuses redis-only flags in one line, exit 2', async () => {
    const r = await rqbench(['local', 'sqs', '--cluster']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('local redis --masters 2 --cluster exits 2 with exactly one line on stderr', async () => {
    const r = await rqbench(['local', 'redis', '--cluster', '--masters', '2']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('rqbench: --masters must be an integer from 3 to 64 (got "2")\n');
  });
});
