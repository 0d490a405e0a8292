/**
 * Where a data model's bytes are, read once after a producer's run: every key of each master by
 * its shape (the name with each run of digits written '#', so `item:{3}:1234` and `item:{7}:99`
 * are one shape), its type and encoding, how many there are, and MEMORY USAGE of a few of each.
 * used_memory says how much one item costs; this says which structure holds it (the index, the
 * item keys, the per-minute HyperLogLog, …).
 *
 * SCAN walks each master's whole keyspace within a time budget; a keyspace too large for it is
 * counted from the part walked, scaled by DBSIZE, and marked as an estimate. MEMORY USAGE is asked
 * with SAMPLES 0 (every element): a few keys per shape, exact, once.
 */
import { openPipe } from '../transports/redis.js';
import { within } from '../transports/bounds.js';

/** Keys SCAN is asked for per call: few calls, each a few milliseconds on a server at rest. */
const SCAN_COUNT = 10_000;
/** One call's bound: a node that does not answer in this is left out. */
const CALL_MS = 5_000;

/**
 * @typedef {object} KeyShape
 * @property {string} shape the key's name, digits as '#'
 * @property {string} type
 * @property {string|null} encoding
 * @property {number} keys how many (counted, or estimated when `estimated`)
 * @property {number|null} bytesPerKey MEMORY USAGE, averaged over the keys sampled
 * @property {number|null} bytes keys × bytesPerKey
 * @property {number} sampled keys MEMORY USAGE was asked of
 * @property {boolean} estimated the keyspace was not walked to its end
 */

/**
 * @param {string} key
 */
export const shapeOf = (key) => key.replace(/\d+/g, '#');

/**
 * Every master's keys by shape, added up over the masters (a replica holds the same keys).
 * @param {import('../transports/redis.js').RedisConn} conn
 * @param {Array<{ host: string, port: number, role: string, addr: string }>} nodes
 * @param {{ budgetMs?: number, samples?: number }} [opts] budgetMs: per master
 * @returns {Promise<{ shapes: KeyShape[], errors: string[] }>}
 */
export async function keyMemory(conn, nodes, { budgetMs = 3_000, samples = 3 } = {}) {
  /** @type {Map<string, KeyShape & { total: number }>} */
  const by = new Map();
  const errors = [];
  for (const n of nodes.filter((x) => x.role === 'master')) {
    try {
      for (const s of await nodeShapes(conn, n, { budgetMs, samples })) {
        const had = by.get(s.shape);
        if (!had) by.set(s.shape, { ...s, total: (s.bytesPerKey ?? 0) * s.sampled });
        else {
          had.keys += s.keys;
          had.sampled += s.sampled;
          had.total += (s.bytesPerKey ?? 0) * s.sampled;
          had.estimated ||= s.estimated;
        }
      }
    } catch (e) {
      errors.push(`${n.addr}: ${e.message}`);
    }
  }
  const shapes = [...by.values()].map(({ total, ...s }) => {
    const bytesPerKey = s.sampled ? Math.round(total / s.sampled) : null;
    return { ...s, bytesPerKey, bytes: bytesPerKey === null ? null : Math.round(bytesPerKey * s.keys) };
  });
  return { shapes: shapes.sort((a, b) => (b.bytes ?? 0) - (a.bytes ?? 0) || a.shape.localeCompare(b.shape)), errors };
}

/**
 * One master's keys by shape.
 * @param {import('../transports/redis.js').RedisConn} conn
 * @param {{ host: string, port: number }} n
 * @param {{ budgetMs: number, samples: number }} opts
 * @returns {Promise<KeyShape[]>}
 */
async function nodeShapes(conn, n, { budgetMs, samples }) {
  const pipe = await within(openPipe(conn, n.host, n.port), CALL_MS, 'connect');
  const call = (args) => within(pipe.call(args), CALL_MS, args[0]);
  try {
    /** @type {Map<string, { keys: number, some: string[] }>} */
    const by = new Map();
    const until = Date.now() + budgetMs;
    let cursor = '0';
    let scanned = 0;
    do {
      const [next, keys] = await call(['SCAN', cursor, 'COUNT', SCAN_COUNT]);
      cursor = String(next);
      for (const k of keys) {
        const key = String(k);
        const shape = shapeOf(key);
        let s = by.get(shape);
        if (!s) by.set(shape, (s = { keys: 0, some: [] }));
        s.keys++;
        if (s.some.length < samples) s.some.push(key);
      }
      scanned += keys.length;
    } while (cursor !== '0' && Date.now() < until);
    const estimated = cursor !== '0';
    // a walk cut short: the shapes' shares of what was walked, scaled to every key
    const scale = estimated && scanned ? Number(await call(['DBSIZE'])) / scanned : 1;
    /** @type {KeyShape[]} */
    const out = [];
    for (const [shape, s] of by) {
      const type = String(await call(['TYPE', s.some[0]]));
      const encoding = await call(['OBJECT', 'ENCODING', s.some[0]]).catch(() => null);
      const sizes = [];
      for (const key of s.some) {
        const bytes = await call(['MEMORY', 'USAGE', key, 'SAMPLES', '0']);
        // a key that expired since the walk has no size
        if (typeof bytes === 'number') sizes.push(bytes);
      }
      out.push({
        shape,
        type,
        encoding: encoding === null ? null : String(encoding),
        keys: Math.round(s.keys * scale),
        bytesPerKey: sizes.length ? Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length) : null,
        bytes: null,
        sampled: sizes.length,
        estimated,
      });
    }
    return out;
  } finally {
    pipe.close();
  }
}
