/** What a run needs to know about the target before it starts, found within the connect timeout. */
import { describeConnection, parseInfo } from './redis.js';
import { RedisRouter } from './redis-router.js';

/**
 * Nodes, roles, shards and the server version; fails naming host:port when unreachable.
 * @param {import('./redis.js').RedisConn} conn
 * @returns {Promise<{ nodes: import('./redis.js').RedisNode[], redisVersion: string, target: string, cluster: boolean }>}
 */
export async function discoverTopology(conn) {
  const router = new RedisRouter(conn);
  try {
    await router.open();
    const seed = router.ready(`${conn.host}:${conn.port}`);
    const info = parseInfo(await seed.call(['INFO', 'server']));
    return { nodes: router.nodes, redisVersion: info.redis_version, target: describeConnection(conn), cluster: conn.cluster };
  } finally {
    router.close();
  }
}
