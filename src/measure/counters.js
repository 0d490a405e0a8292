/** Per-interval event counters (a writer's by default); snapshot() hands them over and starts afresh. */
/**
 * capWaitMs: time the writer could not send because maxInflight chunks awaited replies.
 * retries: every resend that was not a redirect; tryagain, clusterdown and connRetries say why
 * (the rest: LOADING, READONLY, MASTERDOWN, NOSCRIPT).
 */
export const COUNTER_NAMES = [
  'sent',
  'acked',
  'failed',
  'moved',
  'ask',
  'retries',
  'tryagain',
  'clusterdown',
  'connRetries',
  'errors',
  'capWaitMs',
];

/**
 * A writer's counters (COUNTER_NAMES), as fields of its Counters.
 * @typedef {object} WriterCounts
 * @property {number} sent
 * @property {number} acked
 * @property {number} failed
 * @property {number} moved
 * @property {number} ask
 * @property {number} retries
 * @property {number} tryagain
 * @property {number} clusterdown
 * @property {number} connRetries
 * @property {number} errors
 * @property {number} capWaitMs
 */

/**
 * Counters by name: each name in `names` is a numeric field, set to 0 by reset().
 * Users that know their names type it as `Counters & WriterCounts` (or their own list).
 */
export class Counters {
  /** @param {string[]} [names] */
  constructor(names = COUNTER_NAMES) {
    this.names = names;
    /** @type {number} every list of names has it: error() counts here */
    this.errors;
    this.reset();
  }

  reset() {
    for (const k of this.names) this[k] = 0;
    /** @type {Record<string, number>} error replies by their first word */
    this.errorKinds = {};
  }

  /** @param {Error} err */
  error(err) {
    this.errors++;
    const msg = String(err.message);
    // Redis error replies start with their code (WRONGTYPE, OOM, MOVED…); the rest is the network
    const kind = /^[A-Z]{2,}\b/.exec(msg)?.[0] ?? (/connect/i.test(msg) ? 'CONNECTION' : 'OTHER');
    this.errorKinds[kind] = (this.errorKinds[kind] || 0) + 1;
  }

  snapshot() {
    const out = { errorKinds: this.errorKinds };
    for (const k of this.names) out[k] = this[k];
    this.reset();
    return out;
  }
}
