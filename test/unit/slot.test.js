import { describe, it, expect } from 'vitest';
import calculateSlot from 'cluster-key-slot';
import { keySlot } from '../../src/transports/slot.js';

describe('keySlot', () => {
  it('agrees with cluster-key-slot on plain, tagged, empty-tag and non-ASCII keys', () => {
    const keys = [
      'latest-ids',
      'item:1',
      'item:299999',
      'latest-ids:3{forced-slot}',
      'item:{latest-ids:2}:17',
      'a{}b',
      '{}',
      'x{y',
      'héllo',
      '{ü}x',
      '',
    ];
    for (let i = 0; i < 5000; i++) keys.push(`item:${i}`, `k{${i % 97}}v${i}`);
    for (const k of keys) expect(keySlot(k), k).toBe(calculateSlot(k));
  });
  it('knows the slots Redis documents', () => {
    expect(keySlot('123456789')).toBe(0x31c3 & 16383); // CRC16/XMODEM check value
    expect(keySlot('foo')).toBe(12182);
  });
});
