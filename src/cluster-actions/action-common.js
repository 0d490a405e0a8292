/**
 * What every action shares: the context it runs in, how it names nodes in its detail, and
 * how it finds the local processes behind nodes of a cluster started by the local harness.
 */

/** @typedef {import('../transports/redis.js').RedisNode} RedisNode */
/** @typedef {import('../local/local-redis.js').LocalRedis} LocalRedis */
/**
 * @typedef {object} ActionContext
 * @property {import('./admin.js').ClusterAdmin} admin
 * @property {import('./parse.js').AtAction} action
 * @property {LocalRedis} [local]   set when the cluster was started by src/local/local-redis.js
 * @property {(line: string) => void} log
 * @property {AbortSignal} [signal]
 * @property {Record<string, any>} detail  the action's facts, filled in as they happen
 */

/**
 * A node as the detail names it.
 * @param {RedisNode} node
 * @returns {{ id: string, addr: string }}
 */
export function nodeRef(node) {
  return { id: node.id, addr: node.addr };
}

/**
 * The local process behind a cluster node, when the harness started it.
 * @param {LocalRedis|undefined} local
 * @param {{ host: string, port: number }} node
 * @returns {import('../local/local-redis.js').LocalRedisNode|undefined}
 */
export function localProcess(local, node) {
  return local?.nodes.find((n) => n.port === node.port && n.host === node.host);
}
