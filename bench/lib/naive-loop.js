#!/usr/bin/env node
/**
 * The seed's approach as a reference (luciopaiva/redis-nodejs-test after its cluster change):
 * one ioredis client with enableAutoPipelining, a closed loop that issues, per iteration,
 * `setex(item:<id>, 3, <128 B>)` for each of B ids plus one `zadd('latest-ids', now, item:<id>, …)`
 * of those B ids (spread, as the seed did), awaits Promise.all, and goes again at once.
 * Keys and payloads are built once up front, as the seed did (its itemKeys / itemValues maps).
 *
 * Runs in its own process so its CPU is its own. Prints one JSON line on stdout:
 * items acknowledged per second over a window that starts and ends at iteration boundaries
 * (so no partial batch is counted), this process's CPU and Redis's CPU over that same window.
 *
 * Usage: node bench/lib/naive-loop.js <host> <port> <idSpace> <batch> <warmupS> <windowS>
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { payload } from '../../src/workloads/items/stores/payload.js';
import { redisCpuSample, cpuPctBetween } from './redis-cpu.js';

const [host, portS, idSpaceS, batchS, warmupS, windowS] = process.argv.slice(2);
const port = Number(portS);
const idSpace = Number(idSpaceS);
const batch = Number(batchS);
const warmupMs = Number(warmupS) * 1000;
const windowMs = Number(windowS) * 1000;
const TTL = 3;

const keys = new Array(idSpace + 1);
const values = new Array(idSpace + 1);
for (let id = 1; id <= idSpace; id++) {
  keys[id] = `item:${id}`;
  values[id] = payload(id, 128);
}

const client = new Redis({ host, port, enableAutoPipelining: true, lazyConnect: true });
const meter = new Redis({ host, port, lazyConnect: true }); // INFO cpu, outside the load's pipeline
await client.connect();
await meter.connect();

let next = 1;
/** One iteration of the seed's loop: B SETEX + one ZADD, all auto-pipelined, then await them all. */
async function iteration() {
  const now = Date.now();
  const lo = next;
  const hi = Math.min(lo + batch - 1, idSpace);
  next = hi >= idSpace ? 1 : hi + 1;
  const pending = [];
  const scoreIdPairs = [];
  for (let id = lo; id <= hi; id++) {
    pending.push(client.setex(keys[id], TTL, values[id]));
    scoreIdPairs.push(now, keys[id]);
  }
  pending.push(client.zadd('latest-ids', ...scoreIdPairs));
  await Promise.all(pending);
  return hi - lo + 1;
}

const start = performance.now();
let acked = 0;
let from = null;
let to;
let iterations = 0;
let errors = 0;
for (;;) {
  try {
    acked += await iteration();
    iterations++;
  } catch (e) {
    errors++;
    if (errors > 10) throw e;
  }
  const now = performance.now();
  if (!from && now - start >= warmupMs) {
    from = { at: now, acked, iterations, cpu: process.cpuUsage(), redis: await redisCpuSample(meter) };
  } else if (from && now - from.at >= windowMs) {
    to = { at: performance.now(), acked, iterations, cpu: process.cpuUsage(from.cpu), redis: await redisCpuSample(meter) };
    break;
  }
}

const seconds = (to.at - from.at) / 1000;
const out = {
  phase: 'naive',
  batch,
  idSpace,
  windowS: seconds,
  iterations: to.iterations - from.iterations,
  items: to.acked - from.acked,
  itemsPerSec: (to.acked - from.acked) / seconds,
  clientCpuPct: ((to.cpu.user + to.cpu.system) / 1000 / (to.at - from.at)) * 100,
  redisCpuPct: cpuPctBetween(from.redis, to.redis),
  errors,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
client.disconnect();
meter.disconnect();
