/**
 * --fill: every key of the key space written once before the run, as YCSB's load phase does, so
 * that a GET finds a value (a miss costs Redis less than a hit, and a key space that fills during
 * the run would make the hot keys, written first, the only hits). Each key's string value, of a
 * size drawn from --sizes, with --ttl; the hashes and sorted sets of hget, hset, zadd and zrange
 * start empty, as they do without it. The keys go down bulk-load's Redis sink (pipelined SETs
 * grouped by node, MOVED and ASK followed), and the fill is over before the run's clock starts.
 */
import { redisSink } from '../bulk-load/redis-sink.js';
import { streamOf } from './random.js';
import { sizeChooser, valueBytes } from './sizes.js';
import { keyNamer } from './kv-ops.js';
import { grouped } from '../../record/format.js';

/** Keys a batch: the sink's buffer, about a megabyte at 128 B values. */
const BATCH = 5000;

/**
 * @param {import('../../transports/redis.js').RedisConn} conn
 * @param {{ keys: number, keyPattern: string, sizes: import('./sizes.js').SizeDist, ttl: number, seed: number }} plan
 * @returns {Promise<{ keys: number, ms: number }>}
 * @throws {Error} when a key could not be written (its first error)
 */
export async function fillKeys(conn, { keys, keyPattern, sizes, ttl, seed }) {
  const started = performance.now();
  const sink = await redisSink({ conn, connections: 2, ttl });
  try {
    const name = keyNamer(keyPattern);
    const size = sizeChooser(sizes, streamOf(seed, 'fill'));
    const value = valueBytes(sizes, seed);
    const offs = new Int32Array(BATCH * 4);
    for (let from = 0; from < keys; from += BATCH) {
      const n = Math.min(BATCH, keys - from);
      const parts = [];
      let at = 0;
      for (let i = 0; i < n; i++) {
        const key = Buffer.from(name(from + i), 'latin1');
        const v = value.subarray(0, size());
        offs.set([at, at + key.length, at + key.length, at + key.length + v.length], i * 4);
        parts.push(key, v);
        at += key.length + v.length;
      }
      await sink.write(Buffer.concat(parts, at), offs, n);
    }
    const r = /** @type {{ stored: number, errors: number, firstError: string|null }} */ (await sink.finish());
    if (r.errors) throw new Error(`--fill: ${grouped(r.errors)} of ${grouped(keys)} keys were not written (${r.firstError})`);
    return { keys: r.stored, ms: Math.round(performance.now() - started) };
  } finally {
    sink.close();
  }
}
