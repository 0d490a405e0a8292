/**
 * Time and id arithmetic of the open-loop producer. Pure functions: the writer asks them when
 * each chunk is due and which ids it carries; nothing here waits for a reply.
 */

/**
 * Ids owned by writer `a` of `t` when `q` items are written per period. Seed-compatible: ids
 * start at 1, each writer gets trunc(q/t) consecutive ids and the last writer takes the rest.
 * @param {number} q items per period across all writers
 * @param {number} t writers
 * @param {number} a this writer, 1..t
 * @returns {{ min: number, max: number, count: number }}
 */
export function idRange(q, t, a) {
  if (!(t >= 1 && a >= 1 && a <= t)) throw new RangeError(`writer ${a} is not in 1..${t}`);
  if (q < t) throw new RangeError(`${q} items cannot be split across ${t} writers`);
  const per = Math.trunc(q / t);
  const min = per * (a - 1) + 1;
  const max = a === t ? q : min + per - 1;
  return { min, max, count: max - min + 1 };
}

/**
 * Splits [min, max] into `chunks` consecutive ranges whose sizes differ by at most one. More
 * chunks than ids gives one id per chunk (the seed looped forever there).
 * @param {number} min
 * @param {number} max
 * @param {number} chunks
 * @returns {Array<{ lo: number, hi: number }>}
 */
export function chunkRanges(min, max, chunks) {
  const n = max - min + 1;
  const c = Math.max(1, Math.min(chunks, n));
  const base = Math.floor(n / c);
  const extra = n % c;
  const out = [];
  let lo = min;
  for (let i = 0; i < c; i++) {
    const size = base + (i < extra ? 1 : 0);
    out.push({ lo, hi: lo + size - 1 });
    lo += size;
  }
  return out;
}

/**
 * Intended start of the k-th send (0-based) counted from t0: chunk k % c of period
 * floor(k / c). Computed from t0 every time, so lateness never accumulates into drift.
 * @param {number} t0 ms
 * @param {number} periodMs
 * @param {number} chunks chunks per period
 * @param {number} k
 */
export function intendedAt(t0, periodMs, chunks, k) {
  const period = Math.floor(k / chunks);
  return t0 + period * periodMs + ((k % chunks) * periodMs) / chunks;
}

/**
 * How many sends fall strictly before t0 + durationMs (0 duration: unbounded).
 * @param {number} periodMs
 * @param {number} chunks
 * @param {number} durationMs
 */
export function sendsWithin(periodMs, chunks, durationMs) {
  if (!durationMs) return Infinity;
  return Math.ceil((durationMs * chunks) / periodMs - 1e-9);
}
