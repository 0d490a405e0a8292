// The live gauges and a run's last, partial second (issue 25, point 5): a 3 ms tail adds 3 ms to
// rqbench_run_seconds, not a second, and its CPU % (over 3 ms) does not replace the last full
// second's, as summary.json leaves it out too. Pure logic against prom-client's own registry.
import { describe, expect, it } from 'vitest';
import client from 'prom-client';
import { RunMetrics } from '../../src/measure/run-metrics.js';

/** One second of a producer as the harness hands it over. */
const second = (index, cpuPct, wallMs) => ({
  iv: {
    index,
    intended: 1000,
    counters: { acked: 1000, sent: 1000 },
    hist: new Map(),
    client: { cpuPct, cpuPctMax: cpuPct, loopP99Ms: 2, rssMb: 50, wallMs },
  },
});

async function value(registry, name) {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  return m?.values[0]?.value;
}

describe("live gauges over a run's last, partial second", () => {
  it("a 3 ms tail: run seconds 60.003, not 61; the CPU gauge keeps the last full second's", async () => {
    const registry = new client.Registry();
    const m = new RunMetrics(registry, 'produce');
    for (let i = 0; i < 60; i++) m.second(second(i, 2.3, 1000));
    expect(await value(registry, 'rqbench_run_seconds')).toBe(60);
    m.second(second(60, 26.2, 3));
    expect(await value(registry, 'rqbench_run_seconds')).toBe(60.003);
    expect(await value(registry, 'rqbench_loadgen_cpu_percent')).toBe(2.3);
    // its counts are counts: they are added
    expect(await value(registry, 'rqbench_items_acknowledged_total')).toBe(61_000);
  });

  it('a full last second is a second like the others', async () => {
    const registry = new client.Registry();
    const m = new RunMetrics(registry, 'produce');
    m.second(second(0, 2.3, 1000));
    m.second(second(1, 4.1, 998));
    expect(await value(registry, 'rqbench_run_seconds')).toBe(2);
    expect(await value(registry, 'rqbench_loadgen_cpu_percent')).toBe(4.1);
  });
});
