/**
 * The redis sink of one reader thread: its share of the --connections, each a RedisRouter (one
 * pipe per master, so on a cluster "a connection" is one socket per shard). Each batch of
 * records becomes raw RESP SET (or SETEX with a TTL) bytes copied straight from the read buffer
 * — no string per key or value — split by the master that owns each key's slot, and goes down
 * the least busy connection. A connection holds at most `maxInflightBytes` unanswered.
 */
import { RedisRouter } from '../targets/redis-router.js';
import { slotOfBytes } from '../targets/slot.js';

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

/**
 * @param {{ conn: import('../targets/redis.js').RedisConn, connections: number, ttl?: number, maxInflightBytes?: number }} o
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
  let firstError = null;
  let wake = null;
  let nodeIdx = new Uint16Array(0);

  const settle = () => { if (wake) { const w = wake; wake = null; w(); } };

  const leastBusy = () => {
    let c = 0;
    for (let i = 1; i < connections; i++) if (inflight[i] < inflight[c]) c = i;
    return c;
  };

  function encode(buf, offs, n, node, bytes) {
    const out = Buffer.allocUnsafe(bytes);
    let pos = 0;
    for (let i = 0, o = 0; i < n; i++, o += 4) {
      if (node >= 0 && nodeIdx[i] !== node) continue;
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
    return out;
  }

  function send(c, addr, out, n) {
    const pipe = routers[c].ready(addr);
    inflight[c] += out.length;
    const seg = {
      n,
      progress: (_s, k) => { ok += k; },
      error: (_s, _i, err) => { errors++; firstError ??= err.message; },
      done: () => { inflight[c] -= out.length; settle(); },
    };
    if (pipe) pipe.send(out, seg);
    else {
      // a pipe that closed: every command of this batch fails, visibly
      errors += n;
      firstError ??= `connection to ${addr} is closed`;
      seg.done();
    }
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
        send(c, addrs[0], encode(buf, offs, n, -1, bytes), n);
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
      for (let node = 0; node < addrs.length; node++) if (counts[node]) send(c, addrs[node], encode(buf, offs, n, node, bytes[node]), counts[node]);
    },
    async finish() {
      while (inflight.some((b) => b > 0)) await new Promise((resolve) => { wake = resolve; });
      return { stored: ok, errors, firstError };
    },
    close() {
      for (const r of routers) r.close();
    },
  };
}
