/**
 * Connections to a node that closed without being asked to (a CLIENT KILL, a node that died or
 * restarted, the network), from the moment the first one went to the moment the last one is open
 * again. A drop costs nothing when the client reconnects before it needs the connection, so it
 * leaves no failure behind: this log is what the run says about it instead (the timeline's
 * events and the summary: when, which node, how long until reconnected). A node's connections
 * close one by one (a CLIENT KILL goes through them in turn, a reconnect can beat the next close
 * by a millisecond): a drop is told only once it has been over for HOLD_MS, so that a close within
 * that time of a return belongs to the same drop.
 */

/** How long a drop must have been over before it is told, ms. */
const HOLD_MS = 200;

/**
 * @typedef {object} Drop
 * @property {string} node        host:port
 * @property {number} atMs        epoch ms of the first connection's close
 * @property {number|null} reconnectMs  ms until every dropped connection to the node was open again; null: never in the run
 */

export class DropLog {
  constructor() {
    /** @type {Map<string, { atMs: number, open: Set<string>, endedAt: number|null }>} node → its drop not yet told:
     *  which connections are not back, and when the last came back (null: not yet) */
    this.open = new Map();
    /** @type {Drop[]} ended drops not yet taken */
    this.ended = [];
    /** @type {Array<{ atMs: number, text: string }>} timeline events not yet taken */
    this.events = [];
  }

  /**
   * Connection `which` (the router's pipe, the byte reads' connection…) to `node` closed.
   * @param {string} node
   * @param {string} which
   * @param {number} [atMs]
   * @param {string} [why] closed by this side, and why (whyDropped): said instead of `dropped`
   */
  dropped(node, which, atMs = Date.now(), why = '') {
    const d = this.open.get(node);
    if (d) {
      d.open.add(which);
      d.endedAt = null;
      return;
    }
    this.open.set(node, { atMs, open: new Set([which]), endedAt: null });
    this.events.push({ atMs, text: why ? `connection to ${node} given up: ${why}` : `connection to ${node} dropped` });
  }

  /**
   * Connection `which` to `node` is open (again); a no-op when it had not dropped.
   * @param {string} node
   * @param {string} which
   */
  reconnected(node, which, atMs = Date.now()) {
    const d = this.open.get(node);
    if (d?.open.delete(which) && !d.open.size) d.endedAt = atMs;
  }

  /**
   * What happened since the last take (drops over for HOLD_MS by `nowMs`); with `final`, every
   * drop is told, those still open as not reconnected.
   * @param {boolean} [final]
   * @returns {{ events: Array<{ atMs: number, text: string }>, drops: Drop[] }}
   */
  take(final = false, nowMs = Date.now()) {
    for (const [node, d] of this.open) {
      if (d.endedAt !== null && (final || nowMs - d.endedAt >= HOLD_MS)) {
        const reconnectMs = Math.max(0, Math.round(d.endedAt - d.atMs));
        this.ended.push({ node, atMs: d.atMs, reconnectMs });
        this.events.push({ atMs: d.endedAt, text: `reconnected to ${node} after ${reconnectMs} ms` });
        this.open.delete(node);
      } else if (final) {
        this.ended.push({ node, atMs: d.atMs, reconnectMs: null });
        this.open.delete(node);
      }
    }
    const out = { events: this.events, drops: this.ended };
    this.events = [];
    this.ended = [];
    return out;
  }
}

/**
 * Why this side closed a connection, for the event, or '' when the node or the network did.
 * @param {unknown} err what the connection failed with
 */
export function whyDropped(err) {
  const e = /** @type {{ silent?: boolean, message?: string }} */ (err);
  return e?.silent ? String(e.message).replace(/^connection to \S+: /, '') : '';
}
