// Free loopback ports for throwaway servers, found on this machine (src/local/ports.js): distinct,
// free, and below the ephemeral range where the kernel allows it, a cluster node's bus port too.
import { describe, expect, it } from 'vitest';
import { candidateRange, ephemeralLow, findFreePorts, isPortFree } from '../../src/local/ports.js';

describe('findFreePorts', () => {
  it('finds distinct free ports below the ephemeral range', async () => {
    const ports = await findFreePorts(8);
    expect(new Set(ports).size).toBe(8);
    for (const p of ports) expect(await isPortFree(p), `port ${p}`).toBe(true);
    const range = candidateRange(false, ephemeralLow());
    if (range) for (const p of ports) expect(p >= range[0] && p < range[1], `port ${p} in [${range}]`).toBe(true);
  });

  it("keeps a cluster node's bus port free and below the range too", async () => {
    const ports = await findFreePorts(6, { clusterBus: true });
    const all = [...ports, ...ports.map((p) => p + 10000)];
    expect(new Set(all).size).toBe(12);
    for (const p of all) expect(await isPortFree(p), `port ${p}`).toBe(true);
    const low = ephemeralLow();
    if (candidateRange(true, low) && low !== null) for (const p of ports) expect(p + 10000).toBeLessThan(low);
  });
});
