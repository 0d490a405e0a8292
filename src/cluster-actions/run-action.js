/**
 * Runs one cluster action to its end and reports what happened; it never throws.
 */
import { ClusterAdmin } from './admin.js';
import { addShard } from './add-shard.js';
import { failover } from './failover.js';
import { killMaster } from './kill-master.js';
import { removeShard } from './remove-shard.js';
import { reshard } from './reshard.js';
import { redactString } from '../record/redact.js';

const ACTIONS = { reshard, 'remove-shard': removeShard, 'add-shard': addShard, 'kill-master': killMaster, failover };

/**
 * @typedef {object} ActionResult
 * @property {import('./parse.js').ActionKind} kind
 * @property {string} [arg]
 * @property {number} startMs   epoch ms
 * @property {number} endMs     epoch ms
 * @property {boolean} ok
 * @property {string} [error]   one line, no secrets
 * @property {Record<string, any>} detail  the facts (slots and keys moved, nodes by id and address,
 *   durations in ms); on failure, as far as the action got
 */

/**
 * @param {import('./parse.js').AtAction} action from parseAt()
 * @param {{ conn: import('../transports/redis.js').RedisConn, local?: import('../local/local-redis.js').LocalRedis,
 *   log?: (line: string) => void, signal?: AbortSignal }} opts
 *   conn: any node of the cluster (connectionFrom()); local: the harness that started it, if any
 * @returns {Promise<ActionResult>}
 */
export async function runAction(action, { conn, local, log = () => {}, signal } = /** @type {any} */ ({})) {
  const startMs = Date.now();
  const result = { kind: action?.kind, arg: action?.arg };
  /** @type {Record<string, any>} */
  const detail = {};
  /** @type {ClusterAdmin|undefined} */
  let admin;
  try {
    const run = Object.hasOwn(ACTIONS, action?.kind) ? ACTIONS[action.kind] : undefined;
    if (!run) throw new Error(`unknown cluster action ${JSON.stringify(action?.kind)}`);
    if (!conn?.host || !conn.port) throw new Error('runAction needs conn: a node of the cluster (connectionFrom())');
    signal?.throwIfAborted();
    admin = new ClusterAdmin(conn);
    await run({ admin, action, local, log, signal, detail });
    return { ...result, startMs, endMs: Date.now(), ok: true, detail };
  } catch (err) {
    return { ...result, startMs, endMs: Date.now(), ok: false, error: oneLine(err, conn), detail };
  } finally {
    admin?.close();
  }
}

/** The error as one line without the password (whatever a server or library echoed). */
function oneLine(err, conn) {
  let text = String(err?.message ?? err).split('\n')[0];
  if (conn?.password) text = text.split(conn.password).join('***');
  return redactString(text);
}
