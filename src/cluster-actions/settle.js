/**
 * Waiting for the cluster to settle after a change: every live node reports cluster_state:ok
 * with all 16384 slots served, has no slot half-migrated, and all agree on who owns each slot.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SLOTS, parseClusterNodes, parseInfo, slotTable } from '../transports/redis.js';

const POLL_MS = 100;
export const SETTLE_TIMEOUT_MS = 30_000;

/**
 * @typedef {import('../transports/redis.js').RedisNode} RedisNode
 * @typedef {object} SettleOptions
 * @property {(node: RedisNode) => boolean} [skip]  nodes not to ask (e.g. the one just killed)
 * @property {(view: RedisNode[], addr: string) => string[]} [check]  more conditions, per node's view
 * @property {number} [timeoutMs]
 * @property {AbortSignal} [signal]
 */

/**
 * Polls `check` until it reports no problems.
 * @param {string} what for the error: "<what> not reached within N s: <problems>"
 * @param {() => Promise<string[]>} check
 * @param {{ timeoutMs?: number, signal?: AbortSignal }} [opts]
 * @returns {Promise<number>} ms it took
 */
export async function waitFor(what, check, { timeoutMs = SETTLE_TIMEOUT_MS, signal } = {}) {
  const t0 = Date.now();
  for (;;) {
    signal?.throwIfAborted();
    const problems = await check().catch((err) => [err.message]);
    if (problems.length === 0) return Date.now() - t0;
    if (Date.now() - t0 >= timeoutMs) {
      throw new Error(`${what} not reached within ${Math.round(timeoutMs / 1000)} s: ${problems.slice(0, 3).join('; ')}`);
    }
    await sleep(POLL_MS);
  }
}

/**
 * Waits until the cluster has settled (and `check` holds on every node's view).
 * @param {import('./admin.js').ClusterAdmin} admin
 * @param {string} what
 * @param {SettleOptions} [opts]
 * @returns {Promise<number>} ms it took
 */
export function waitSettled(admin, what, opts = {}) {
  return waitFor(what, () => settleProblems(admin, opts), opts);
}

/**
 * What keeps the cluster from being settled, one line per problem (none: settled).
 * @param {import('./admin.js').ClusterAdmin} admin
 * @param {SettleOptions} [opts]
 * @returns {Promise<string[]>}
 */
export async function settleProblems(admin, { skip = () => false, check } = {}) {
  const nodes = (await admin.topology()).filter((n) => !n.failed && !skip(n));
  const problems = [];
  const owners = new Map();
  await Promise.all(
    nodes.map(async (node) => {
      try {
        // both reply with text
        const [infoText, nodesText] = /** @type {string[]} */ (
          await Promise.all([admin.call(node.addr, 'CLUSTER', 'INFO'), admin.call(node.addr, 'CLUSTER', 'NODES')])
        );
        const info = parseInfo(infoText);
        const view = parseClusterNodes(nodesText);
        if (info.cluster_state !== 'ok') problems.push(`${node.addr} cluster_state:${info.cluster_state}`);
        if (Number(info.cluster_slots_ok) !== SLOTS) problems.push(`${node.addr} cluster_slots_ok:${info.cluster_slots_ok}`);
        // "[slot->-id]" / "[slot-<-id]" mark slots this node is migrating or importing
        if (/ \[\d+-[<>]-/.test(nodesText)) problems.push(`${node.addr} has a slot half-migrated`);
        owners.set(node.addr, slotTable(view).join(','));
        if (check) problems.push(...check(view, node.addr));
      } catch (err) {
        problems.push(`${node.addr}: ${err.message}`);
      }
    }),
  );
  if (new Set(owners.values()).size > 1) problems.push('nodes disagree on slot owners');
  return problems;
}
