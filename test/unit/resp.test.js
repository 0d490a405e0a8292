import { describe, it, expect } from 'vitest';
import { encodeTemplate, encodeCommand, render, scoreBytes, SCORE } from '../../src/transports/resp.js';
import { payload, payloadId } from '../../src/workloads/items/stores/payload.js';

describe('RESP encoding', () => {
  it('encodes a command as a RESP array of bulk strings', () => {
    expect(encodeCommand(['SETEX', 'item:1', 3, Buffer.from('ab')]).toString()).toBe(
      '*4\r\n$5\r\nSETEX\r\n$6\r\nitem:1\r\n$1\r\n3\r\n$2\r\nab\r\n',
    );
  });
  it('patches every score slot and leaves the template untouched', () => {
    const tpl = encodeTemplate(['ZADD', 'k', SCORE, 'a', SCORE, 'b']);
    const out = render(tpl, scoreBytes(1795294644966));
    expect(out.toString()).toBe('*6\r\n$4\r\nZADD\r\n$1\r\nk\r\n$13\r\n1795294644966\r\n$1\r\na\r\n$13\r\n1795294644966\r\n$1\r\nb\r\n');
    expect(tpl.buf.toString()).toContain('0000000000000');
    expect(out).not.toBe(tpl.buf);
  });
  it('returns constant commands as they are (no copy on the hot path)', () => {
    const tpl = encodeTemplate(['SETEX', 'k', 3, 'v']);
    expect(render(tpl, scoreBytes(Date.now()))).toBe(tpl.buf);
  });
  it('refuses a score that is not 13 digits', () => {
    expect(() => scoreBytes(12)).toThrow(RangeError);
  });
});

describe('payload', () => {
  it('is fully written, of the asked size, and carries its id', () => {
    for (const [id, size] of [
      [1, 16],
      [35, 128],
      [299999, 128],
      [7, 1000],
    ]) {
      const p = payload(id, size);
      expect(p.length).toBe(size);
      expect(payloadId(p)).toBe(id);
      expect(payloadId(p.toString('latin1'))).toBe(id);
      // every byte printable: nothing left uninitialised
      expect([...p].every((b) => b >= 0x30 && b <= 0x7a)).toBe(true);
    }
    expect(payload(1, 128).equals(payload(2, 128))).toBe(false);
  });
  it('rejects sizes that cannot hold the id and reads foreign values as NaN', () => {
    expect(() => payload(123456, 4)).toThrow(RangeError);
    expect(payloadId('hello')).toBeNaN();
  });
});
