/**
 * The redis sink of one reader thread: its share of the --connections, each a RedisRouter (one
 * pipe per master, so on a cluster "a connection" is one socket per shard). Each batch of
 * records becomes raw RESP SET (or SETEX with a TTL) bytes copied straight from the read buffer
 * — no string per key or value — split by the master that owns each key's slot, and goes down
 * the least busy connection. A connection holds at most `maxInflightBytes` unanswered.
 *
 * The cluster may change during a load: a MOVED reply sends that one command to the slot's new
 * master (and later batches of the slot there), ASK sends it once with ASKING, TRYAGAIN and
 * CLUSTERDOWN retry it after a backoff — each command up to MAX_ATTEMPTS times, then it counts
 * as an error. A record is counted as stored only on the OK of its own SET.
 */
import { RedisRouter } from '../targets/redis-router.js';
import { slotOfBytes } from '../targets/slot.js';
import { retryDelayMs, settings } from '../settings.js';

const SET_HEAD = Buffer.from('*3\r\n$3\r\nSET\r\n$');
const SETEX_HEAD = Buffer.from('*4\r\n$5\r\nSETEX\r\n$');
const ASKING = Buffer.from('*1\r\n$6\r\nASKING\r\n');
const REDIRECT = /^(MOVED|ASK) (\d+) (\S+)/;
const RETRY_LATER = /^(TRYAGAIN|CLUSTERDOWN|LOADING)/;
const MAX_ATTEMPTS = settings.maxRedirects;

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

  /** The commands' bytes and where each starts (on a cluster, where a redirect must find one). */
  function encode(buf, offs, n, node, bytes, count) {
    const out = Buffer.allocUnsafe(bytes);
    const starts = conn.cluster ? new Uint32Array(count + 1) : null;
    let pos = 0;
    let k = 0;
    for (let i = 0, o = 0; i < n; i++, o += 4) {
      if (node >= 0 && nodeIdx[i] !== node) continue;
      if (starts) starts[k++] = pos;
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
    if (starts) starts[k] = pos;
    return { out, starts };
  }

  /**
   * @param {number} c connection
   * @param {string} addr node
   * @param {Buffer} out n commands (after ASKING when `asking`)
   * @param {number} n
   * @param {Uint32Array|null} starts where each command starts in `out` (cluster only)
   * @param {number} [attempts] earlier tries of these commands
   * @param {boolean} [asking] `out` begins with ASKING, whose reply is not a record
   */
  function send(c, addr, out, n, starts, attempts = 0, asking = false) {
    inflight[c] += out.length;
    let skip = asking ? 1 : 0;
    const seg = {
      n: asking ? n + 1 : n,
      progress: (_s, k) => { const s = Math.min(skip, k); skip -= s; ok += k - s; },
      error: (_s, i, err) => {
        if (asking && i === 0) { skip = 0; return; } // ASKING failed: the command's own reply tells
        const idx = asking ? i - 1 : i;
        if (!starts || attempts + 1 >= MAX_ATTEMPTS || !retry(c, err, out.subarray(starts[idx], starts[idx + 1]), attempts + 1)) {
          errors++;
          firstError ??= err.message;
        }
      },
      done: () => { inflight[c] -= out.length; settle(); },
    };
    const pipe = routers[c].ready(addr);
    if (pipe) pipe.send(out, seg);
    else {
      // a node this connection has not opened yet (a slot moved there), or one that closed
      routers[c].pipe(addr).then((p) => p.send(out, seg), (err) => {
        seg.got = seg.n;
        for (let i = 0; i < seg.n; i++) seg.error(seg, i, err);
        seg.done();
      });
    }
  }

  /**
   * One command of a failed reply, sent again where it belongs now.
   * @returns {boolean} false when the error is not one to retry
   */
  function retry(c, err, cmd, attempts) {
    const msg = err.message || '';
    const redirect = REDIRECT.exec(msg);
    if (redirect) {
      const [, kind, slot, addr] = redirect;
      if (kind === 'ASK') {
        redirects.ask++;
        const one = Buffer.concat([ASKING, cmd]);
        send(c, addr, one, 1, Uint32Array.of(ASKING.length, one.length), attempts, true);
        return true;
      }
      redirects.moved++;
      moveSlot(Number(slot), addr);
      send(c, addr, cmd, 1, Uint32Array.of(0, cmd.length), attempts);
      return true;
    }
    if (!RETRY_LATER.test(msg) && !/^(connection |cannot connect )/.test(msg)) return false;
    redirects.retries++;
    inflight[c] += cmd.length; // the wait counts as in flight: finish() waits for it
    routers[c].refreshSoon();
    setTimeout(() => {
      inflight[c] -= cmd.length;
      send(c, routers[c].addrFor(slotOfCommand(cmd)), cmd, 1, Uint32Array.of(0, cmd.length), attempts);
    }, retryDelayMs(attempts));
    return true;
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
        send(c, addrs[0], encode(buf, offs, n, -1, bytes, n).out, n, null);
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
