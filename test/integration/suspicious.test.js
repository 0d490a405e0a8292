// Suspicious results are called out (issue 12, point 7): a consumer whose data-model flags do not
// match the producer's reads an empty index every cycle. It still exits 0 (an empty index is not
// an error), but it warns once, as it happens, naming the keys it read and the flags to check,
// and the summary says so. Real redis-server on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { produce, describeRun } from '../helpers/producer-run.js';
import { useLocalRedis } from '../helpers/local-server.js';
import { consume, describeConsumer } from '../helpers/consumer-run.js';
import { MODEL_FLAGS } from '../../src/workloads/items/stores/registry.js';

const local = useLocalRedis();

describe('a consumer reading what nobody writes', () => {
  it('the producer writes sorted sets, the consumer reads lists (--sl): one warning naming the keys and flags', async () => {
    const [p, c] = await Promise.all([
      produce({ port: local.server.port, q: 1000, d: 7 }),
      consume({ port: local.server.port, d: 6, extra: ['--sl', '-p', '500'] }),
    ]);
    expect(p.code, describeRun(p)).toBe(0);
    const why = describeConsumer(c);
    expect(c.code, why).toBe(0);
    const warnings = c.stderr.split('\n').filter((l) => /warning/.test(l));
    expect(warnings, why).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^rqbench: warning: the first \d+ cycles found the index empty or missing \(latest-list on redis:\/\/127\.0\.0\.1:\d+, data model list\): is a producer writing there with the same data-model flags \((?<flags>[^)]*)\)\?$/,
    );
    // every model flag the registry knows, then the flags that name the keys
    expect(warnings[0].match(/flags \(([^)]*)\)/)?.[1]).toBe(
      [...MODEL_FLAGS, 'ns', 'same-slot', 'actual-value'].map((f) => `--${f}`).join(', '),
    );
    expect(c.summary.warnings).toEqual([warnings[0].replace(/^rqbench: warning: /, '')]);
    expect(c.summary.verdict).toMatch(/every cycle found the index empty/);
    expect(c.summary.cycles.empty).toBe(c.summary.cycles.count);
    // the same consumer with the producer's flags reads the items, and says nothing of the kind
    const ok = await consume({ port: local.server.port, d: 2, warmup: 0 });
    expect(ok.stderr).not.toMatch(/warning/);
    expect(ok.summary.warnings).toBeUndefined();
  }, 40_000);
});
