// Where throwaway servers' ports are drawn (src/local/ports.js): below the kernel's ephemeral
// range, which every outgoing connection's local port comes from, so none takes a port between
// its finding and its server's bind; a cluster port's bus (port + 10000) below the range too.
import { describe, expect, it } from 'vitest';
import { CLUSTER_PORT_LIMIT, candidateRange } from '../../src/local/ports.js';

describe('the ports a throwaway server is given', () => {
  it("lie below Linux's default ephemeral range (32768–60999)", () => {
    expect(candidateRange(false, 32768)).toEqual([10000, 32768]);
  });

  it("leave a cluster node's bus port below the range too", () => {
    const [lo, hi] = /** @type {[number, number]} */ (candidateRange(true, 32768));
    expect(hi + 10000).toBeLessThanOrEqual(32768);
    expect(lo).toBeGreaterThanOrEqual(10000);
    expect(hi).toBeLessThanOrEqual(CLUSTER_PORT_LIMIT);
  });

  it("are the kernel's pick where the range leaves too little room below it, or cannot be read", () => {
    expect(candidateRange(false, 10500)).toBeNull();
    expect(candidateRange(true, 20500)).toBeNull();
    expect(candidateRange(false, null)).toBeNull();
  });
});
