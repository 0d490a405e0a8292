#!/usr/bin/env node
/**
 * A reference point for bench:kv, NOT rqbench kv: the least a Node client does to run bench:kv's
 * workload open-loop against one standalone Redis and time it. Each millisecond it takes the
 * operations due (90 % GET / 10 % SET on Zipf 0.99 keys from rqbench's own generators, 128-1024 B
 * values), writes them as RESP straight into one buffer (no object, no string, no array per
 * operation), sends that buffer in one write, and scans the replies in place, recording each
 * answer's latency from its intended start into one HdrHistogram. It keeps nothing per operation
 * but its intended time in a ring. What it costs per operation is close to the floor of an
 * open-loop Node client on this machine: the runtime, the event loop, the kernel's socket calls.
 *
 * Usage: node bench/lib/lean-kv.js <port> <ops per second> <seconds> <keys>
 * Prints one JSON line: operations sent and answered, the p99 from the intended start (ms).
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import * as hdr from 'hdr-histogram-js';
import { zipfSampler } from '../../src/workloads/kv/zipf.js';
import { streamOf } from '../../src/workloads/kv/random.js';
import { scatter } from '../../src/workloads/kv/key-choosers.js';

const [portS, rateS, secondsS, keysS] = process.argv.slice(2);
const RATE = Number(rateS);
const SECONDS = Number(secondsS);
const KEYS = Number(keysS);

const zipf = zipfSampler(KEYS, 0.99, streamOf(1, 'keys'));
const spread = scatter(KEYS);
const op = streamOf(1, 'ops');
const size = streamOf(1, 'sizes');
const value = Buffer.alloc(1024, 'x');
const hist = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });

/** Intended start of each operation in flight, in send order (replies come back in that order). */
const RING = 1 << 20;
const due = new Float64Array(RING);
let head = 0;
let tail = 0;
let sent = 0;
let answered = 0;

const out = Buffer.allocUnsafe(4 << 20);
/** Writes a decimal number at `at`; the new offset. */
function num(n, at) {
  return at + out.write(String(n), at, 'latin1');
}
/** One operation due into `out` at `at`: GET kv:<k>, or SET kv:<k> <value>; the new offset. */
function one(at) {
  const set = op() >= 0.9;
  const k = spread(zipf() - 1);
  const ks = String(k);
  at += out.write(set ? '*3\r\n$3\r\nSET\r\n$' : '*2\r\n$3\r\nGET\r\n$', at, 'latin1');
  at = num(3 + ks.length, at);
  at += out.write('\r\nkv:', at, 'latin1');
  at += out.write(ks, at, 'latin1');
  out[at++] = 13;
  out[at++] = 10;
  if (set) {
    const n = 128 + Math.floor(size() * 897);
    out[at++] = 36; // $
    at = num(n, at);
    out[at++] = 13;
    out[at++] = 10;
    at += value.copy(out, at, 0, n);
    out[at++] = 13;
    out[at++] = 10;
  }
  return at;
}

/** Reply bytes not yet scanned (a reply may end in the next chunk). */
let pending = Buffer.alloc(0);
/** Counts whole replies in `buf` from its start: +OK, $-1, $<n> value; returns the bytes used. */
function scan(buf, now) {
  let i = 0;
  for (;;) {
    if (i >= buf.length) return i;
    const t = buf[i];
    let end = buf.indexOf(10, i);
    if (end < 0) return i;
    if (t === 36 /* $ */ && buf[i + 1] !== 45 /* - */) {
      let n = 0;
      for (let j = i + 1; buf[j] !== 13; j++) n = n * 10 + (buf[j] - 48);
      end += n + 2;
      if (end >= buf.length) return i;
    }
    hist.recordValue(Math.max(1, Math.round((now - due[head]) * 1000)));
    head = (head + 1) & (RING - 1);
    answered++;
    i = end + 1;
  }
}

const socket = net.connect(Number(portS), '127.0.0.1');
socket.setNoDelay(true);
socket.on('data', (chunk) => {
  const buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
  const used = scan(buf, performance.now());
  pending = used < buf.length ? Buffer.from(buf.subarray(used)) : Buffer.alloc(0);
});
socket.on('error', (e) => {
  process.stderr.write(`lean-kv: ${e.message}\n`);
  process.exit(1);
});
socket.on('connect', () => {
  const t0 = performance.now();
  const every = 1000 / RATE;
  let next = t0;
  const end = t0 + SECONDS * 1000;
  const tick = () => {
    const now = performance.now();
    let at = 0;
    while (next <= now && next < end) {
      at = one(at);
      due[tail] = next;
      tail = (tail + 1) & (RING - 1);
      sent++;
      next += every;
    }
    if (at) socket.write(Buffer.from(out.subarray(0, at)));
    if (next < end) setTimeout(tick, 1);
    else
      setTimeout(() => {
        process.stdout.write(`${JSON.stringify({ sent, answered, p99Ms: hist.getValueAtPercentile(99) / 1000 })}\n`);
        socket.destroy();
      }, 500);
  };
  tick();
});
