/**
 * Buffer's latin1 fast paths: Node has them on every Buffer (the same as write(s, o, 'latin1')
 * and toString('latin1', s, e), without the encoding lookup), but @types/node does not declare them.
 */
declare global {
  interface Buffer {
    /** Writes `string` as latin1 at `offset`; returns the bytes written. */
    latin1Write(string: string, offset?: number, length?: number): number;
    /** The bytes [start, end) as a latin1 string. */
    latin1Slice(start?: number, end?: number): string;
  }
}

export {};
