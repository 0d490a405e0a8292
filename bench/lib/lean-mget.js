#!/usr/bin/env node
/**
 * A reference point for the consumer bench, NOT rqbench's consumer: the same cycle as
 * `--fetch mget` (ZCARD + newest score, ZRANGEBYSCORE of every live member, then one MGET per
 * slot, all of a replica's MGETs in one write, from the replicas), done by a client that creates
 * no JS object per item. Members are copied as bytes into one buffer, slots are CRC16 over those
 * bytes, MGETs are written byte by byte, and replies are scanned in place: a value is checked
 * against its key (the id before the value's ':' must be the id after the key's last ':'),
 * never turned into a string. What it costs is close to what this machine's Redis and kernel
 * cost, plus the least a Node client can do.
 *
 * Runs in its own process. Prints one JSON line: per cycle, the phase times, the counts, the
 * CPU each replica used (INFO cpu, before and after the cycle) and this process's CPU.
 *
 * Usage: node bench/lib/lean-mget.js <host> <seed port> <cycles> <gap ms> <ttl s>
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseClusterNodes } from '../../src/transports/redis.js';

const [host, portS, cyclesS, gapS, ttlS] = process.argv.slice(2);
const CYCLES = Number(cyclesS);
const GAP_MS = Number(gapS);
const TTL_MS = Number(ttlS) * 1000;
const ZSET = 'latest-ids';
const SLOTS = 16384;

const CRC16 = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let c = i << 8;
  for (let j = 0; j < 8; j++) c = c & 0x8000 ? (c << 1) ^ 0x1021 : c << 1;
  CRC16[i] = c & 0xffff;
}

/** Cluster slot of the key held in buf[s, e) (hash tags honoured). */
function slotOf(buf, s, e) {
  let a = s;
  let b = e;
  for (let i = s; i < e; i++) {
    if (buf[i] !== 123) continue; // '{'
    for (let j = i + 1; j < e; j++) {
      if (buf[j] === 125) {
        // '}'
        if (j > i + 1) {
          a = i + 1;
          b = j;
        }
        break;
      }
    }
    break;
  }
  let crc = 0;
  for (let i = a; i < b; i++) crc = ((crc << 8) & 0xffff) ^ CRC16[((crc >> 8) ^ buf[i]) & 0xff];
  return crc & (SLOTS - 1);
}

/** ASCII decimal of v at B[w]; returns the next offset. */
function writeInt(B, w, v) {
  if (v >= 10) w = writeInt(B, w, Math.floor(v / 10));
  B[w] = 48 + (v % 10);
  return w + 1;
}

function encode(args) {
  return Buffer.from(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(String(a))}\r\n${a}\r\n`).join('')}`);
}

/**
 * One raw connection. Replies accumulate in one growing buffer (kept across requests); the
 * request's scanner is called after each chunk and says when the reply is complete.
 */
class Raw {
  constructor(h, p) {
    this.addr = `${h}:${p}`;
    this.h = h;
    this.p = p;
    this.buf = Buffer.allocUnsafe(1 << 20);
    this.len = 0;
    this.scan = null;
  }

  connect() {
    return /** @type {Promise<void>} */ (
      new Promise((resolve, reject) => {
        this.sock = net.connect({ host: this.h, port: this.p }, resolve);
        this.sock.setNoDelay(true);
        this.sock.once('error', reject);
        this.sock.on('data', (d) => this.#data(d));
      })
    );
  }

  #data(d) {
    if (this.len + d.length > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + d.length));
      this.buf.copy(grown, 0, 0, this.len);
      this.buf = grown;
    }
    d.copy(this.buf, this.len);
    this.len += d.length;
    if (this.scan && this.scan(this.buf, this.len)) {
      const done = this.done;
      this.scan = null;
      done();
    }
  }

  /** @param {Buffer} bytes @param {(buf: Buffer, len: number) => boolean} scan */
  request(bytes, scan) {
    this.len = 0;
    return new Promise((resolve) => {
      this.done = resolve;
      this.scan = scan;
      this.sock.write(bytes);
    });
  }

  /** One command whose reply is a simple string, an error, an integer or one bulk string. */
  async call(args) {
    /** @type {string|Error|undefined} */
    let out;
    await this.request(encode(args), (b, l) => {
      const t = b[0];
      if (t === 43 || t === 45 || t === 58) {
        // + - :
        if (l < 2 || b[l - 1] !== 10) return false;
        out = t === 45 ? new Error(b.toString('latin1', 1, l - 2)) : b.toString('latin1', 1, l - 2);
        return true;
      }
      let i = 1;
      let n = 0;
      while (i < l && b[i] !== 13) n = n * 10 + b[i++] - 48;
      if (i + 2 + n + 2 > l) return false;
      out = b.toString('latin1', i + 2, i + 2 + n);
      return true;
    });
    if (out instanceof Error) throw out;
    return out;
  }

  close() {
    this.sock?.destroy();
  }
}

/** True when buf[0, l) holds a whole array of bulk strings (or nils). */
function arrayComplete(b, l) {
  let i = 1;
  let n = 0;
  while (i < l && b[i] !== 13) n = n * 10 + b[i++] - 48;
  i += 2;
  for (let k = 0; k < n; k++) {
    if (i >= l) return false;
    let j = i + 1;
    let L = 0;
    const nil = b[j] === 45;
    if (nil) j++;
    while (j < l && b[j] !== 13) L = L * 10 + b[j++] - 48;
    i = nil ? j + 2 : j + 2 + L + 2;
  }
  return i <= l;
}

const cpuOf = (info) => Number(/used_cpu_user:([\d.]+)/.exec(info)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)[1]);

async function main() {
  const seed = new Raw(host, Number(portS));
  await seed.connect();
  const nodes = parseClusterNodes(await seed.call(['CLUSTER', 'NODES']));
  seed.close();
  // one replica per master, as rqbench's router picks with spread 0 (lowest address first)
  const replicaIndexOfSlot = new Int8Array(SLOTS).fill(-1);
  const replicas = [];
  for (const m of nodes.filter((n) => n.role === 'master' && n.slots.length)) {
    const rs = nodes.filter((n) => n.role === 'replica' && n.masterId === m.id && !n.failed).sort((a, b) => a.addr.localeCompare(b.addr));
    const r = rs[0] ?? m;
    const conn = new Raw(r.host, r.port);
    await conn.connect();
    if (r.role === 'replica') await conn.call(['READONLY']);
    const idx = replicas.length;
    replicas.push({ addr: r.addr, conn });
    for (const [a, b] of m.slots) for (let s = a; s <= b; s++) replicaIndexOfSlot[s] = idx;
  }
  const zKey = Buffer.from(ZSET);
  const zConn = replicas[replicaIndexOfSlot[slotOf(zKey, 0, zKey.length)]].conn;

  let keys = Buffer.allocUnsafe(8 << 20);
  let seen = new Uint32Array(1 << 20);
  const cycles = [];
  for (let c = 0; c < CYCLES; c++) {
    const cpu0 = await Promise.all(replicas.map((r) => r.conn.call(['INFO', 'cpu']).then(cpuOf)));
    const me0 = process.cpuUsage();
    const t0 = performance.now();
    const cutoff = Math.floor(Date.now() - TTL_MS);
    // card phase: ZCARD and the newest score, as rqbench's reader does
    const card = Number(await zConn.call(['ZCARD', ZSET]));
    await zConn.request(encode(['ZREVRANGE', ZSET, 0, 0, 'WITHSCORES']), arrayComplete);
    const t1 = performance.now();

    // range phase: member bytes copied into `keys`, their offsets into typed arrays
    let n = 0;
    /** @type {Int32Array} */
    let starts;
    /** @type {Int32Array} */
    let ends;
    /** @type {Int32Array} */
    let ids;
    {
      let count = -1;
      let i = 0;
      let k = 0;
      let w = 0;
      await zConn.request(encode(['ZRANGEBYSCORE', ZSET, cutoff, '+inf']), (b, l) => {
        if (count < 0) {
          let j = 1;
          let v = 0;
          while (j < l && b[j] !== 13) v = v * 10 + b[j++] - 48;
          if (j + 1 >= l) return false;
          count = v;
          i = j + 2;
          starts = new Int32Array(count);
          ends = new Int32Array(count);
          ids = new Int32Array(count);
        }
        while (k < count) {
          let j = i + 1;
          let L = 0;
          while (j < l && b[j] !== 13) L = L * 10 + b[j++] - 48;
          if (j + 2 + L + 2 > l) return false;
          j += 2;
          if (w + L > keys.length) {
            const grown = Buffer.allocUnsafe(keys.length * 2);
            keys.copy(grown, 0, 0, w);
            keys = grown;
          }
          starts[k] = w;
          let id = 0;
          let m = 1;
          for (let x = j + L - 1; x >= j && b[x] !== 58; x--, m *= 10) id += (b[x] - 48) * m;
          ids[k] = id;
          for (let x = 0; x < L; x++) keys[w++] = b[j + x];
          ends[k] = w;
          i = j + L + 2;
          k++;
        }
        return true;
      });
      n = count;
    }
    const t2 = performance.now();

    // slots, then a counting sort: keys grouped by slot
    const slot = new Uint16Array(n);
    const first = new Int32Array(SLOTS + 1);
    let bytes = 0;
    for (let k = 0; k < n; k++) {
      const s = slotOf(keys, starts[k], ends[k]);
      slot[k] = s;
      first[s + 1]++;
      bytes += ends[k] - starts[k];
    }
    for (let s = 0; s < SLOTS; s++) first[s + 1] += first[s];
    const order = new Int32Array(n);
    const fill = first.slice(0, SLOTS);
    for (let k = 0; k < n; k++) order[fill[slot[k]]++] = k;
    const tS = performance.now();
    // one buffer per replica: its MGETs, in slot order; `sent` lists the keys in reply order
    const outs = replicas.map(() => ({
      buf: Buffer.allocUnsafe(bytes + n * 16 + SLOTS * 24),
      w: 0,
      commands: 0,
      sent: new Int32Array(n),
      nSent: 0,
    }));
    for (let s = 0; s < SLOTS; s++) {
      const a = first[s];
      const b = first[s + 1];
      if (a === b) continue;
      const o = outs[replicaIndexOfSlot[s]];
      const B = o.buf;
      let w = o.w;
      B[w++] = 42; // *
      w = writeInt(B, w, b - a + 1);
      w += B.latin1Write('\r\n$4\r\nMGET\r\n', w);
      o.commands++;
      for (let j = a; j < b; j++) {
        const k = order[j];
        o.sent[o.nSent++] = k;
        B[w++] = 36; // $
        w = writeInt(B, w, ends[k] - starts[k]);
        B[w++] = 13;
        B[w++] = 10;
        for (let x = starts[k]; x < ends[k]; x++) B[w++] = keys[x];
        B[w++] = 13;
        B[w++] = 10;
      }
      o.w = w;
    }
    const t3 = performance.now();

    // values phase: every replica's replies scanned in place
    const stamp = c + 1;
    let fetched = 0;
    let missing = 0;
    let mismatched = 0;
    let duplicates = 0;
    let errors = 0;
    await Promise.all(
      outs.map((o, r) => {
        if (o.commands === 0) return null;
        let i = 0;
        let arrays = 0;
        let left = 0;
        let q = 0;
        return replicas[r].conn.request(o.buf.subarray(0, o.w), (b, l) => {
          for (;;) {
            if (left === 0) {
              if (arrays === o.commands) return true;
              if (i >= l) return false;
              if (b[i] === 45) {
                // an error instead of an array: skip the line, count its keys as errors
                let j = i;
                while (j < l && b[j] !== 10) j++;
                if (j >= l) return false;
                i = j + 1;
                arrays++;
                errors++;
                continue;
              }
              let j = i + 1;
              let v = 0;
              while (j < l && b[j] !== 13) v = v * 10 + b[j++] - 48;
              if (j + 1 >= l) return false;
              left = v;
              i = j + 2;
              arrays++;
              continue;
            }
            if (i >= l) return false;
            let j = i + 1;
            let L = 0;
            const nil = b[j] === 45;
            if (nil) j++;
            while (j < l && b[j] !== 13) L = L * 10 + b[j++] - 48;
            if (j + 1 >= l) return false;
            if (nil) {
              missing++;
              i = j + 2;
            } else {
              if (j + 2 + L + 2 > l) return false;
              let p = j + 2;
              let id = 0;
              while (p < j + 2 + L && b[p] !== 58) id = id * 10 + b[p++] - 48;
              const k = o.sent[q];
              if (ids[k] !== id) mismatched++;
              else fetched++;
              if (id >= seen.length) {
                const grown = new Uint32Array(Math.max(id + 1, seen.length * 2));
                grown.set(seen);
                seen = grown;
              }
              if (seen[id] === stamp) duplicates++;
              else seen[id] = stamp;
              i = j + 2 + L + 2;
            }
            q++;
            left--;
          }
        });
      }),
    );
    const t4 = performance.now();
    const me = process.cpuUsage(me0);
    const cpu1 = await Promise.all(replicas.map((r) => r.conn.call(['INFO', 'cpu']).then(cpuOf)));
    cycles.push({
      cycleMs: t4 - t0,
      cardMs: t1 - t0,
      rangeMs: t2 - t1,
      prepMs: t3 - t2,
      slotMs: tS - t2,
      valuesMs: t4 - t2, // as rqbench's "values" phase: from the range's end to the last value
      cardinality: card,
      items: n,
      fetched,
      missing,
      mismatched,
      duplicates,
      errors,
      replicaCpuMs: cpu1.map((v, r) => (v - cpu0[r]) * 1000),
      clientCpuMs: (me.user + me.system) / 1000,
    });
    if (c < CYCLES - 1) await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  }
  for (const r of replicas) r.conn.close();
  process.stdout.write(`${JSON.stringify({ replicas: replicas.map((r) => r.addr), cycles })}\n`);
}

main().catch((e) => {
  process.stderr.write(`lean-mget: ${e.stack || e.message}\n`);
  process.exit(1);
});
