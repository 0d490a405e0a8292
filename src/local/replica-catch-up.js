/**
 * Where a counted window ends for a replica. The window ends when the workers' last send is
 * acknowledged (or at the planned end), which is the master's moment: its replica still applies
 * the stream behind it, and under Valgrind by as long as the master took to run it. A replica
 * dumped at the master's moment was counted for part of the window's commands (its ZADDs read
 * about half the master's in every counted run before this). So each replica's count ends once it
 * has applied what its master had written when the window ended: its replication offset at or past
 * the master's then (INFO replication), waited for within a bound.
 */

/** How long a replica under Valgrind may take to catch up with its master, ms. */
export const CATCH_UP_MS = 120_000;
const POLL_MS = 200;

/**
 * One INFO replication field of a node, or null when it does not answer.
 * @param {string} addr host:port
 * @param {string} field
 * @returns {Promise<number|null>}
 */
async function replicationField(addr, field) {
  const cut = addr.lastIndexOf(':');
  const { Redis } = await import('ioredis'); // only when a replica is waited for
  const client = new Redis({
    host: addr.slice(0, cut),
    port: Number(addr.slice(cut + 1)),
    lazyConnect: true,
    connectTimeout: 5000,
    commandTimeout: 10_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const text = String(await client.info('replication'));
    const v = new RegExp(`^${field}:(\\d+)`, 'm').exec(text)?.[1];
    return v === undefined ? null : Number(v);
  } catch {
    return null;
  } finally {
    client.disconnect();
  }
}

/**
 * Each master's replication offset now, by shard.
 * @param {Array<{ addr: string, role: string, shard: number }>} nodes
 * @returns {Promise<Map<number, number|null>>}
 */
export async function masterOffsets(nodes) {
  const masters = nodes.filter((n) => n.role === 'master');
  const offsets = await Promise.all(masters.map((m) => replicationField(m.addr, 'master_repl_offset')));
  return new Map(masters.map((m, i) => [m.shard, offsets[i]]));
}

/**
 * Resolves once the replica's offset reaches `offset`, or at the deadline.
 * @param {{ addr: string }} replica
 * @param {number|null|undefined} offset its master's, when the window ended
 * @param {number} deadline epoch ms
 * @returns {Promise<boolean>} whether it caught up
 */
export async function caughtUp(replica, offset, deadline) {
  if (offset === null || offset === undefined) return false;
  for (;;) {
    const at = await replicationField(replica.addr, 'slave_repl_offset');
    if (at !== null && at >= offset) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
