/**
 * What rqbench watches of the seed's ioredis client, which it does not drive itself: the drops of
 * its connections, replicas that fall silent, and a first slot map that names no replica
 * (replicasListed).
 *
 * Drops (logDrops): a connection the node or the network closed is logged in the run's DropLog
 * (conn-drops.js) beside the router's own pipes, so a drop's reconnect time is that of the
 * connections the writes or reads really went down.
 *
 * Silence (watchReplicaSilence): ioredis has no watch of its own on a node that stops
 * answering without closing (SIGSTOP, a hung machine): its reads from a frozen replica wait for
 * ever. This gives it ReplyWatch's rule (reply-watch.js) for the replicas it reads: a replica
 * connection that owes replies and has sent nothing for `ms` is closed, so its reads fail as a
 * lost connection ("Connection is closed.") and are read again where ioredis sends them then —
 * the way a replica killed outright is handled (fetch.js: the node is set aside, and
 * usableReplica passes over it until the router says it is back).
 *
 * One check every ms/4 for the whole client, not a timer per command: ioredis's own
 * `commandTimeout` arms one per GET, which cost 1.4–2.1 µs of CPU more per GET (5.5–6.3 → 7.5–7.8
 * µs; 300k auto-pipelined GETs, best of 5, 3 runs each) on a path whose point is to cost what the
 * seed's client did.
 */
import { performance } from 'node:perf_hooks';

/** @typedef {import('ioredis').Redis} Node */

/**
 * Logs in `drops` every connection of `client` whose socket the node or the network ended (an
 * end or an error while ioredis was not closing it itself), as connection `which` to that node;
 * the drop is over once a connection to the node is open again (a standalone client reconnects
 * its one instance; a cluster's pool makes a new one, told by '+node').
 * @param {import('ioredis').Redis|import('ioredis').Cluster} client
 * @param {import('./conn-drops.js').DropLog} drops
 * @param {string} which
 */
export function logDrops(client, drops, which) {
  const watch = (/** @type {Node} */ node) => {
    const addr = `${node.options.host}:${node.options.port}`;
    node.on('connect', () => {
      drops.reconnected(addr, which);
      // ioredis's own disconnect() ends the socket too: the flag it sets for that is still up then
      const lost = () => {
        if (!(/** @type {{ manuallyClosing?: boolean }} */ (/** @type {unknown} */ (node)).manuallyClosing)) drops.dropped(addr, which);
      };
      node.stream.once('end', lost);
      node.stream.once('error', lost);
    });
  };
  if (client.isCluster) client.on('+node', watch);
  else watch(/** @type {Node} */ (client));
}

/**
 * @param {import('ioredis').Cluster} client
 * @param {number} ms
 * @param {(addr: string, silentMs: number) => void} onSilent told before the connection is closed
 * @returns {() => void} stops the watch
 */
export function watchReplicaSilence(client, ms, onSilent) {
  const every = Math.max(5, Math.round(ms / 4));
  /** @type {WeakMap<Node, number>} a node → perf time of its last byte, or of a check that found it owing nothing */
  const heard = new WeakMap();
  client.on('+node', (/** @type {Node} */ node) => {
    // a cluster node's connection is never reopened (ioredis makes a new node): one stream each
    node.on('connect', () => node.stream?.on('data', () => heard.set(node, performance.now())));
  });
  const check = () => {
    const now = performance.now();
    for (const node of client.nodes('slave')) {
      if (node.commandQueue.length === 0) {
        heard.set(node, now);
        continue;
      }
      const at = heard.get(node);
      if (at === undefined) {
        heard.set(node, now);
        continue;
      }
      // owing nothing up to `every` ms before its first request went out: silent `ms` at least
      const silent = now - at;
      if (silent < ms + every) continue;
      onSilent(`${node.options.host}:${node.options.port}`, silent);
      // destroyed, not ended: disconnect() ends the socket and waits for a FIN a frozen node never
      // sends, and ioredis fails the node's commands only once it is closed
      node.stream?.destroy();
    }
  };
  // the verdict after one turn of the event loop, as ReplyWatch's: bytes that arrived while this
  // process was busy are read (and heard) first
  const timer = setInterval(() => setImmediate(check), every);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Waits until the seed's cluster client's slot map names a replica for every slot whose master
 * `served` holds (the masters the router saw replicas for), refreshing the map while it does not.
 * ioredis reads the map once at connect and, by default, only again on a MOVED: a client started
 * as a new cluster's nodes still gossip their replicas got a map of masters alone and read every
 * GET from them for the whole run, while the replicas were never asked.
 * @param {import('ioredis').Cluster} client ready
 * @param {ReadonlySet<string>} served host:port of the masters that have a replica
 * @param {number} [timeoutMs]
 * @returns {Promise<string|null>} a master still listed without a replica at the deadline, or null
 */
export async function replicasListed(client, served, timeoutMs = 10_000) {
  const unserved = () => {
    // ioredis's slot map: for each slot, its nodes' host:port, the master first
    const slots = /** @type {string[][]} */ (/** @type {any} */ (client).slots ?? []);
    for (const keys of slots) if (keys && keys.length === 1 && served.has(keys[0])) return keys[0];
    return null;
  };
  const deadline = Date.now() + timeoutMs;
  let left = unserved();
  while (left !== null && Date.now() < deadline) {
    await new Promise((resolve) => client.refreshSlotsCache(() => resolve(undefined)));
    left = unserved();
    if (left !== null) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return left;
}

/**
 * Opens the seed client's connections to the nodes it will read, before the first cycle: ioredis
 * opens a node's connection at the first command sent to it, so the first cycle also waited for
 * TCP and READONLY on every replica, and read at three times the others' p99 — a disturbance in a
 * run with no fault. A node that cannot be reached now is left to the reads, as before.
 * @param {import('ioredis').Cluster} client
 * @param {'master'|'replica'} readFrom
 * @param {number} [timeoutMs] how long a replica may take to say it is linked to its master
 * @returns {Promise<string[]>} host:port of the replicas not linked to their master by then
 */
export async function openNodes(client, readFrom, timeoutMs = 10_000) {
  const nodes = client.nodes(readFrom === 'replica' ? 'slave' : 'master');
  await Promise.all(nodes.map((n) => (n.status === 'wait' ? n.connect().catch(() => {}) : null)));
  if (readFrom !== 'replica') return [];
  const linked = await Promise.all(nodes.map((n) => inSync(n, Date.now() + timeoutMs)));
  return nodes.filter((_n, i) => !linked[i]).map((n) => `${n.options.host}:${n.options.port}`);
}

/**
 * Waits until a replica says it is one, linked to its master: on a cluster made seconds ago the
 * masters may list a replica (CLUSTER SLOTS) before the replica itself knows whose it is, and
 * until then it answers a read of its master's slots with MOVED, which ioredis follows to the
 * master: the first cycles were read from the masters (657 of 8,000 GETs in a busy test run).
 * A replica that does not get there in time is left to the reads, as before.
 * @param {Node} node
 * @param {number} deadline epoch ms
 * @returns {Promise<boolean>} it said so before the deadline
 */
async function inSync(node, deadline) {
  while (Date.now() < deadline) {
    const role = /** @type {unknown[]|null} */ (await node.call('ROLE').catch(() => null));
    if (Array.isArray(role) && role[0] === 'slave' && role[3] === 'connected') return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
