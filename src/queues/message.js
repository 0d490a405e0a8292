/**
 * What a realtime-update message carries: a body of `batch` key/value updates (one
 * "key\tvalue\n" line each: the seed's keys and values are short ASCII, so no escaping is
 * needed) and the attributes time_sent (ns since epoch, taken just before the send),
 * publisher, seq (1, 2, … per publisher) and, on a run's last message, final.
 */
import { performance } from 'node:perf_hooks';

export const ATTR = Object.freeze({ timeSent: 'time_sent', publisher: 'publisher', seq: 'seq', final: 'final' });

/** @returns {bigint} nanoseconds since the epoch, with the monotonic clock's resolution */
export function nowNs() {
  const ms = performance.timeOrigin + performance.now();
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6));
}

/** @returns {number} microseconds since the epoch (float) */
export function nowUs() {
  return (performance.timeOrigin + performance.now()) * 1000;
}

/**
 * Builds the bodies of one publisher: every key unique across messages and publishers
 * ("all unique keys, all updates", as in the seed), values of a fixed size.
 */
export class BodyMaker {
  /**
   * @param {{ publisherId: string, batchSize: number, keySize: number, valueSize: number }} p
   */
  constructor({ publisherId, batchSize, keySize, valueSize }) {
    this.publisherId = publisherId;
    this.batchSize = batchSize;
    this.keySize = keySize;
    this.valueSize = valueSize;
  }

  /**
   * Body of message `seq`: keys "<publisher>:<seq>:<i>" padded (or cut from the left, keeping the
   * unique tail) to keySize; values repeat the seq to valueSize.
   * @param {number} seq
   * @returns {string}
   */
  body(seq) {
    const { keySize, valueSize, batchSize } = this;
    const value = String(seq).padStart(valueSize, 'v').slice(-valueSize);
    const prefix = `${this.publisherId}:${seq.toString(36)}:`;
    const lines = new Array(batchSize);
    for (let i = 0; i < batchSize; i++) {
      const key = `${prefix}${i.toString(36)}`;
      lines[i] = `${key.length >= keySize ? key.slice(-keySize) : key.padStart(keySize, 'k')}\t${value}\n`;
    }
    return lines.join('');
  }

  /** Bytes of any body this maker makes (all the same size). */
  bodyBytes() {
    return this.batchSize * (this.keySize + this.valueSize + 2);
  }
}

/**
 * Attributes of message `seq`. time_sent is filled just before the send (stampSent).
 * @param {string} publisherId
 * @param {number} seq
 * @param {boolean} final
 * @returns {Record<string, string>}
 */
export function attributesOf(publisherId, seq, final) {
  const attrs = { [ATTR.timeSent]: '', [ATTR.publisher]: publisherId, [ATTR.seq]: String(seq) };
  if (final) attrs[ATTR.final] = '1';
  return attrs;
}

/** The largest attributes a publisher sends: for checking a body fits the service's limit. */
export function largestAttributes(publisherId) {
  return { ...attributesOf(publisherId, Number.MAX_SAFE_INTEGER, true), [ATTR.timeSent]: String(nowNs() * 10n) };
}

/**
 * The updates in a body.
 * @param {string} body
 * @returns {Array<[string, string]>}
 */
export function parseUpdates(body) {
  const out = [];
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf('\n', start);
    if (end < 0) end = body.length;
    const tab = body.indexOf('\t', start);
    if (tab > start && tab < end) out.push([body.slice(start, tab), body.slice(tab + 1, end)]);
    start = end + 1;
  }
  return out;
}
