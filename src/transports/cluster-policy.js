/**
 * What to do with a reply that is not the answer, in one place for every client of a Redis
 * Cluster (and of a standalone server that restarts): memtier_benchmark's cluster_client rule.
 *
 *   MOVED <slot> <addr>   the slot lives elsewhere now: send it there at once (and remember)
 *   ASK <slot> <addr>     the slot is migrating: send it there once, after ASKING
 *   TRYAGAIN, CLUSTERDOWN, LOADING, MASTERDOWN, READONLY (a master demoted under us), a slot no
 *   node is known to own yet, a lost or refused connection: wait (backoff), read the cluster
 *   again, send it where its slot lives then
 *   NOSCRIPT              the node lost its scripts (a restart, a failover): load them, resend
 *   anything else         the command failed: the caller counts it
 *
 * A command is sent again at most settings.maxRedirects times; the waits double from retryBaseMs
 * to retryMaxMs (retryDelayMs): about 11.6 s in all, more than a local failover's ~4 s.
 */
import { retryDelayMs, settings } from '../settings.js';

/**
 * @typedef {'moved'|'ask'|'tryagain'|'clusterdown'|'loading'|'masterdown'|'readonly'|'unowned'|'connection'|'noscript'} ReplyKind
 */

/**
 * @typedef {object} Decision
 * @property {ReplyKind|null} kind null: not a reply the policy handles (the command failed)
 * @property {'redirect'|'ask'|'retry'|'fail'} action
 * @property {number} [slot] MOVED/ASK: the slot named
 * @property {string} [addr] MOVED/ASK: where to send it
 * @property {number} [delayMs] retry: how long to wait first
 */

/** The router's error for a slot whose master failed before a replica took over. */
export const UNOWNED = 'CLUSTERDOWN no known node serves this slot yet (the cluster is changing)';

const REDIRECT = /^(MOVED|ASK) (\d+) (\S+)/;
const WAIT = /^(TRYAGAIN|CLUSTERDOWN|LOADING|MASTERDOWN|READONLY|NOSCRIPT)\b/;

/**
 * @param {string} message an error reply or a connection error's message
 * @returns {{ kind: ReplyKind|null, slot?: number, addr?: string }}
 */
export function classify(message) {
  const r = REDIRECT.exec(message);
  if (r) return { kind: r[1] === 'ASK' ? 'ask' : 'moved', slot: Number(r[2]), addr: r[3] };
  if (message === UNOWNED) return { kind: 'unowned' };
  const w = WAIT.exec(message);
  if (w) return { kind: /** @type {ReplyKind} */ (w[1].toLowerCase()) };
  if (message.startsWith('connection ') || message.startsWith('cannot connect ')) return { kind: 'connection' };
  return { kind: null };
}

/**
 * @param {string} message
 * @param {number} attempts times this command was sent again already (0 after its first send)
 * @returns {Decision}
 */
export function decide(message, attempts) {
  const c = classify(message);
  if (!c.kind || attempts >= settings.maxRedirects) return { ...c, action: 'fail' };
  if (c.kind === 'moved') return { ...c, action: 'redirect' };
  if (c.kind === 'ask') return { ...c, action: 'ask' };
  return { ...c, action: 'retry', delayMs: retryDelayMs(attempts) };
}

/**
 * The counters a writer's timeline has for a kind (retries holds every wait; some kinds also
 * have a column of their own).
 * @param {ReplyKind} kind
 * @returns {string[]}
 */
export function countersOf(kind) {
  switch (kind) {
    case 'moved':
      return ['moved'];
    case 'ask':
      return ['ask'];
    case 'tryagain':
      return ['retries', 'tryagain'];
    case 'clusterdown':
    case 'unowned':
      return ['retries', 'clusterdown'];
    case 'connection':
      return ['retries', 'connRetries'];
    default:
      return ['retries'];
  }
}
