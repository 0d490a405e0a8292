/**
 * The redis sink of one reader thread: its share of the --connections, each a RedisRouter (one
 * pipe per master, so on a cluster "a connection" is one socket per shard). Each batch of
 * records becomes raw RESP (load-commands.js: one SET per record, or MSET / EVALSHA per batch of
 * one slot's records) split by the master that owns each key's slot, and goes down the least
 * busy connection. A connection holds at most `maxInflightBytes` unanswered.
 *
 * The cluster may change during a load: ClusterSender (transports/cluster-sender.js) follows
 * MOVED (and later batches of the slot go to the new master), ASK, TRYAGAIN, CLUSTERDOWN, LOADING,
 * NOSCRIPT and lost connections for each command, as for the producer's writers; a command it
 * gives up on fails its records. A record is counted as stored only on the OK of its own command.
 */
import { RedisRouter } from '../../transports/redis-router.js';
import { ClusterSender } from '../../transports/cluster-sender.js';
import { slotOfBytes } from '../../transports/slot.js';
import { loadEncoder } from './load-commands.js';

/** Output buffers kept for reuse: a batch's buffer is free again once every command in it is answered. */
const POOL_MAX = 64;

/**
 * @param {{ conn: import('../../transports/redis.js').RedisConn, connections: number, ttl?: number,
 *   command?: string, batch?: number, maxInflightBytes?: number, pieceBytes?: number }} o
 * @returns {Promise<import('./sinks.js').Sink>}
 */
export async function redisSink({
  conn,
  connections,
  ttl = 0,
  command = 'set',
  batch = 1,
  maxInflightBytes = 256 << 10,
  pieceBytes = 32 << 10,
}) {
  const { encode, perCommand, script } = loadEncoder({ command, ttl, batch });
  const routers = [];
  try {
    for (let i = 0; i < connections; i++) {
      const r = new RedisRouter(conn);
      // a node that restarts or takes over (a failover) has no scripts: each new connection loads it
      if (script)
        r.onOpen = async (pipe) => {
          await pipe.call(['SCRIPT', 'LOAD', script]);
        };
      routers.push(await r.open());
    }
  } catch (e) {
    for (const r of routers) r.close();
    throw e;
  }
  // node index per slot, from the first connection's view (all were opened on one topology)
  const addrs = routers[0].targets();
  const nodeOfSlot = new Uint16Array(16384);
  if (conn.cluster) for (let s = 0; s < 16384; s++) nodeOfSlot[s] = addrs.indexOf(routers[0].addrFor(s));
  const inflight = new Float64Array(connections);
  let stored = 0;
  let errors = 0;
  /** what the senders followed: moved, ask, retries (and tryagain, clusterdown, connRetries among them) */
  const redirects = { moved: 0, ask: 0, retries: 0 };
  let firstError = null;
  let wake = null;
  /** @type {Buffer[]} */
  const pool = [];
  let idx = new Uint32Array(0);
  let slotOfRec = new Uint16Array(0);

  const settle = () => {
    if (wake) {
      const w = wake;
      wake = null;
      w();
    }
  };
  const alloc = (bytes) => {
    for (let i = pool.length - 1; i >= 0; i--) if (pool[i].length >= bytes) return pool.splice(i, 1)[0];
    // rounded up, so a buffer fits the next pieces too (they are all about `pieceBytes`)
    return Buffer.allocUnsafeSlow(Math.ceil(bytes / 65536) * 65536);
  };

  const leastBusy = () => {
    let c = 0;
    for (let i = 1; i < connections; i++) if (inflight[i] < inflight[c]) c = i;
    return c;
  };

  // one sender per connection; a MOVED teaches every connection and the sink's own slot map
  const senders = routers.map(
    (r) =>
      new ClusterSender(
        {
          addrFor: (slot) => r.addrFor(slot),
          ready: (addr) => r.ready(addr),
          pipe: (addr) => r.pipe(addr),
          moved: (slot, addr) => moveSlot(slot, addr),
          refreshSoon: () => r.refreshSoon(),
          onOpen: r.onOpen,
        },
        redirects,
      ),
  );

  /**
   * @param {number} c connection
   * @param {string} addr node
   * @param {import('./load-commands.js').Encoded} e
   */
  function send(c, addr, e) {
    const held = e.out.length;
    inflight[c] += held;
    let failed = 0;
    senders[c].send(addr, {
      n: e.count,
      buf: e.out,
      starts: e.starts,
      slotOf: (i) => e.slots[i],
      fail: (i, err) => {
        failed += e.recs[i];
        errors += e.recs[i];
        firstError ??= err.message;
      },
      done: () => {
        stored += e.records - failed;
        inflight[c] -= held;
        if (pool.length < POOL_MAX) pool.push(e.base);
        settle();
      },
    });
  }

  /** Later batches of `slot` go to `addr`; a node not seen before gets an index. */
  function moveSlot(slot, addr) {
    let at = addrs.indexOf(addr);
    if (at < 0) at = addrs.push(addr) - 1;
    nodeOfSlot[slot] = at;
    for (const r of routers) r.moved(slot, addr);
  }

  /** A connection with room for one more piece: the least busy, once it is below the limit. */
  async function connection() {
    let c = leastBusy();
    while (inflight[c] > maxInflightBytes) {
      await new Promise((resolve) => {
        wake = resolve;
      });
      c = leastBusy();
    }
    return c;
  }

  /**
   * Records idx[0..m) to one node, in pieces of about `pieceBytes`, each down the least busy
   * connection: Redis reads a connection's bytes into one query buffer, and a few small windows
   * on several connections cost it less per command than one deep one (bench/RESULTS.md).
   */
  async function sendPieces(buf, offs, part, m, slots, addr) {
    const recBytes = offs[part[0] * 4 + 3] - offs[part[0] * 4] + 1;
    const piece = perCommand * Math.max(1, Math.ceil(pieceBytes / (perCommand * recBytes)));
    for (let from = 0; from < m; from += piece) {
      const c = await connection();
      const k = Math.min(piece, m - from);
      send(c, addr, encode(buf, offs, part.subarray(from, from + k), k, slots, alloc));
    }
  }

  return {
    async write(buf, offs, n) {
      if (idx.length < n) {
        idx = new Uint32Array(n * 2);
        slotOfRec = new Uint16Array(n * 2);
      }
      if (!conn.cluster) {
        for (let i = 0; i < n; i++) idx[i] = i;
        await sendPieces(buf, offs, idx, n, null, addrs[0]);
        return;
      }
      // records grouped by node, and within a node by slot (a batched command holds one slot)
      const counts = new Uint32Array(addrs.length + 1);
      for (let i = 0, o = 0; i < n; i++, o += 4) {
        const slot = slotOfBytes(buf, offs[o], offs[o + 1]);
        slotOfRec[i] = slot;
        counts[nodeOfSlot[slot] + 1]++;
      }
      for (let node = 1; node <= addrs.length; node++) counts[node] += counts[node - 1];
      const at = counts.slice(0, addrs.length);
      for (let i = 0; i < n; i++) idx[at[nodeOfSlot[slotOfRec[i]]]++] = i;
      for (let node = 0; node < addrs.length; node++) {
        const from = counts[node];
        const m = counts[node + 1] - from;
        if (!m) continue;
        const part = idx.subarray(from, from + m);
        if (perCommand > 1) part.sort((x, y) => slotOfRec[x] - slotOfRec[y] || x - y);
        await sendPieces(buf, offs, part, m, slotOfRec, addrs[node]);
      }
    },
    async finish() {
      while (inflight.some((b) => b > 0))
        await new Promise((resolve) => {
          wake = resolve;
        });
      return { stored, errors, firstError, ...redirects };
    },
    close() {
      for (const r of routers) r.close();
    },
  };
}
