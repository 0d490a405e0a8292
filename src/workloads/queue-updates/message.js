/**
 * What a realtime-update message carries: a body of `batch` key/value updates (one
 * "key\tvalue\n" line each: the seed's keys and values are short ASCII, so no escaping is
 * needed) and the attributes time_intended (ns since epoch: when the publisher's schedule had
 * it due), time_sent (ns since epoch, taken just before the send), publisher, seq (1, 2, … per
 * publisher) and, on a run's last message, final.
 */
import { performance } from 'node:perf_hooks';

export const ATTR = Object.freeze({
  timeIntended: 'time_intended',
  timeSent: 'time_sent',
  publisher: 'publisher',
  seq: 'seq',
  final: 'final',
});

/**
 * @param {number} perfMs a performance.now() reading (the schedule's clock)
 * @returns {bigint} that moment in nanoseconds since the epoch, with the monotonic clock's resolution
 */
export function epochNs(perfMs) {
  const ms = performance.timeOrigin + perfMs;
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6));
}

/** @returns {bigint} nanoseconds since the epoch, now */
export function nowNs() {
  return epochNs(performance.now());
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
 * Attributes of message `seq`. time_intended and time_sent are filled at the send (publisher.js).
 * @param {string} publisherId
 * @param {number} seq
 * @param {boolean} final
 * @returns {Record<string, string>}
 */
export function attributesOf(publisherId, seq, final) {
  const attrs = { [ATTR.timeIntended]: '', [ATTR.timeSent]: '', [ATTR.publisher]: publisherId, [ATTR.seq]: String(seq) };
  if (final) attrs[ATTR.final] = '1';
  return attrs;
}

/**
 * The largest attributes a publisher sends: for checking a body fits the service's limit. Every
 * attribute attributesOf makes is here, each at least as long as it can be: the times with a
 * digit more than now has, seq at its largest, final set.
 * @param {string} publisherId
 */
export function largestAttributes(publisherId) {
  const time = String(nowNs() * 10n);
  return { ...attributesOf(publisherId, Number.MAX_SAFE_INTEGER, true), [ATTR.timeIntended]: time, [ATTR.timeSent]: time };
}

/**
 * What is wrong with one line of a body, or null when it is an update: `key\tvalue`, the key
 * not empty (the value may be). An empty line is no update and nothing wrong: it is skipped.
 * @param {string} line without its newline
 * @returns {string|null}
 */
export function lineProblem(line) {
  if (line === '') return null;
  const tab = line.indexOf('\t');
  if (tab < 0) return 'no tab between key and value';
  if (tab === 0) return 'an empty key';
  return null;
}

/**
 * The updates in a body, and how many of its lines were not updates (lineProblem).
 * @param {string} body
 * @returns {{ updates: Array<[string, string]>, malformed: number }}
 */
export function parseBody(body) {
  /** @type {Array<[string, string]>} */
  const updates = [];
  let malformed = 0;
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf('\n', start);
    if (end < 0) end = body.length;
    const tab = body.indexOf('\t', start);
    if (tab > start && tab < end) updates.push([body.slice(start, tab), body.slice(tab + 1, end)]);
    else if (end > start) malformed++;
    start = end + 1;
  }
  return { updates, malformed };
}
