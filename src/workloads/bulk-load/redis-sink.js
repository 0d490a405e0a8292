/**
 * The redis sink of one reader thread: its share of the --connections, each a RedisRouter (one
 * pipe per master, so on a cluster "a connection" is one socket per shard). Each batch of
 * records becomes raw RESP SET (or SETEX with a TTL) bytes copied straight from the read buffer
 * — no string per key or value — split by the master that owns each key's slot, and goes down
 * the least busy connection. A connection holds at most `maxInflightBytes` unanswered.
 *
 * The cluster may change during a load: ClusterSender (targets/cluster-sender.js) follows MOVED
 * (and later batches of the slot go to the new master), ASK, TRYAGAIN, CLUSTERDOWN, LOADING and
 * lost connections for each command, as for the producer's writers; a command it gives up on
 * counts as an error. A record is counted as stored only on the OK of its own SET.
 */
import { RedisRouter } from '../../transports/redis-router.js';
import { ClusterSender } from '../../transports/cluster-sender.js';
import { slotOfBytes } from '../../transports/slot.js';

const SET_HEAD = Buffer.from('*3\r\n$3\r\nSET\r\n$');
const SETEX_HEAD = Buffer.from('*4\r\n$5\r\nSETEX\r\n$');

/** Digits of a non-negative integer written at buf[pos]; returns the new position. */
function writeUint(buf, pos, v) {
  if (v < 10) { buf[pos] = 48 + v; return pos + 1; }
  const len = v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : String(v).length;
  for (let i = pos + len - 1; i >= pos; i--) { buf[i] = 48 + (v % 10); v = Math.floor(v / 10); }
  return pos + len;
}

function digits(v) {
  return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : String(v).length;
}

/** Slot of the key of one encoded SET/SETEX: `*N\r\n$L\r\nSET(EX)\r\n$K\r\n<key>\r\n…`. */
function slotOfCommand(cmd) {
  const lenAt = cmd.indexOf(36, cmd.indexOf(10, 4) + 1 + 1) + 1; // the key's '$', after the command name's line
  const keyAt = cmd.indexOf(10, lenAt) + 1;
  const keyLen = Number(cmd.toString('latin1', lenAt, keyAt - 2));
  return slotOfBytes(cmd, keyAt, keyAt + keyLen);
}

/**
 * @param {{ conn: import('../../transports/redis.js').RedisConn, connections: number, ttl?: number, maxInflightBytes?: number }} o
 * @returns {Promise<import('./sinks.js').Sink>}
 */
export async function redisSink({ conn, connections, ttl = 0, maxInflightBytes = 4 << 20 }) {
  const routers = [];
  try {
    for (let i = 0; i < connections; i++) routers.push(await new RedisRouter(conn).open());
  } catch (e) {
    for (const r of routers) r.close();
    throw e;
  }
  // node index per slot, from the first connection's view (all were opened on one topology)
  const addrs = routers[0].targets();
  const nodeOfSlot = new Uint16Array(16384);
  if (conn.cluster) for (let s = 0; s < 16384; s++) nodeOfSlot[s] = addrs.indexOf(routers[0].addrFor(s));
  const head = ttl ? SETEX_HEAD : SET_HEAD;
  const ttlBytes = ttl ? Buffer.from(`$${String(ttl).length}\r\n${ttl}\r\n`) : null;
  const inflight = new Float64Array(connections);
  let ok = 0;
  let errors = 0;
  /** what the senders followed: moved, ask, retries (and tryagain, clusterdown, connRetries among them) */
  const redirects = { moved: 0, ask: 0, retries: 0 };
  let firstError = null;
  let wake = null;
  let nodeIdx = new Uint16Array(0);

  const settle = () => { if (wake) { const w = wake; wake = null; w(); } };

  const leastBusy = () => {
    let c = 0;
    for (let i = 1; i < connections; i++) if (inflight[i] < inflight[c]) c = i;
    return c;
  };

  /** The commands' bytes and where each starts (where a retry finds one). */
  function encode(buf, offs, n, node, bytes, count) {
    const out = Buffer.allocUnsafe(bytes);
    const starts = new Uint32Array(count + 1);
    let pos = 0;
    let k = 0;
    for (let i = 0, o = 0; i < n; i++, o += 4) {
      if (node >= 0 && nodeIdx[i] !== node) continue;
      starts[k++] = pos;
      const ks = offs[o]; const ke = offs[o + 1]; const vs = offs[o + 2]; const ve = offs[o + 3];
      pos += head.copy(out, pos);
      pos = writeUint(out, pos, ke - ks);
      out[pos++] = 13; out[pos++] = 10;
      pos += buf.copy(out, pos, ks, ke);
      out[pos++] = 13; out[pos++] = 10;
      if (ttlBytes) pos += ttlBytes.copy(out, pos);
      out[pos++] = 36; // '$'
      pos = writeUint(out, pos, ve - vs);
      out[pos++] = 13; out[pos++] = 10;
      pos += buf.copy(out, pos, vs, ve);
      out[pos++] = 13; out[pos++] = 10;
    }
    starts[k] = pos;
    return { out, starts };
  }

  // one sender per connection; a MOVED teaches every connection and the sink's own slot map
  const senders = routers.map((r) => new ClusterSender({
    addrFor: (slot) => r.addrFor(slot), ready: (addr) => r.ready(addr), pipe: (addr) => r.pipe(addr),
    moved: (slot, addr) => moveSlot(slot, addr), refreshSoon: () => r.refreshSoon(), onOpen: null,
  }, redirects));

  /**
   * @param {number} c connection
   * @param {string} addr node
   * @param {Buffer} out n commands
   * @param {number} n
   * @param {Uint32Array} starts where each command starts in `out`
   */
  function send(c, addr, out, n, starts) {
    inflight[c] += out.length;
    senders[c].send(addr, {
      n, buf: out, starts,
      slotOf: (i) => slotOfCommand(out.subarray(starts[i], starts[i + 1])),
      ok: (k) => { ok += k; },
      fail: (_i, err) => { errors++; firstError ??= err.message; },
      done: () => { inflight[c] -= out.length; settle(); },
    });
  }

  /** Later batches of `slot` go to `addr`; a node not seen before gets an index. */
  function moveSlot(slot, addr) {
    let idx = addrs.indexOf(addr);
    if (idx < 0) idx = addrs.push(addr) - 1;
    nodeOfSlot[slot] = idx;
    for (const r of routers) r.moved(slot, addr);
  }

  const fixed = head.length + 2 + 2 + 1 + 2 + 2 + (ttlBytes ? ttlBytes.length : 0);
  return {
    async write(buf, offs, n) {
      let c = leastBusy();
      while (inflight[c] > maxInflightBytes) {
        await new Promise((resolve) => { wake = resolve; });
        c = leastBusy();
      }
      if (!conn.cluster) {
        let bytes = 0;
        for (let i = 0, o = 0; i < n; i++, o += 4) bytes += fixed + (offs[o + 1] - offs[o]) + digits(offs[o + 1] - offs[o]) + (offs[o + 3] - offs[o + 2]) + digits(offs[o + 3] - offs[o + 2]);
        const { out, starts } = encode(buf, offs, n, -1, bytes, n);
        send(c, addrs[0], out, n, starts);
        return;
      }
      if (nodeIdx.length < n) nodeIdx = new Uint16Array(n * 2);
      const bytes = new Float64Array(addrs.length);
      const counts = new Uint32Array(addrs.length);
      for (let i = 0, o = 0; i < n; i++, o += 4) {
        const node = nodeOfSlot[slotOfBytes(buf, offs[o], offs[o + 1])];
        nodeIdx[i] = node;
        counts[node]++;
        bytes[node] += fixed + (offs[o + 1] - offs[o]) + digits(offs[o + 1] - offs[o]) + (offs[o + 3] - offs[o + 2]) + digits(offs[o + 3] - offs[o + 2]);
      }
      for (let node = 0; node < addrs.length; node++) {
        if (!counts[node]) continue;
        const { out, starts } = encode(buf, offs, n, node, bytes[node], counts[node]);
        send(c, addrs[node], out, counts[node], starts);
      }
    },
    async finish() {
      while (inflight.some((b) => b > 0)) await new Promise((resolve) => { wake = resolve; });
      return { stored: ok, errors, firstError, ...redirects };
    },
    close() {
      for (const r of routers) r.close();
    },
  };
}
