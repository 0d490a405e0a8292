/**
 * --verify: after the run (and after any cluster action has finished), every id a writer had
 * acknowledged is read back from the masters: present (its value carries its id), or lost.
 * Reads follow the cluster as it is now (a fresh topology), and a batch that meets a redirect
 * or a lost connection is retried after a refresh, so a cluster that just changed is read right.
 */
import { performance } from 'node:perf_hooks';
import { RedisRouter } from '../../transports/redis-router.js';
import { Fetcher } from './fetch.js';
import { leadingId } from './item-ids.js';
import { within } from '../../transports/bounds.js';

const BATCH = 20_000;
const ATTEMPTS = 10;
/** One batch's read-back; a frozen node must not hold the run for ever. */
const FETCH_TIMEOUT_MS = 5000;
const LOST_SAMPLE = 20;

/**
 * Sorts and merges [lo, hi] runs (chunks are acknowledged in any order, by several writers).
 * @param {Array<[number, number]>} runs
 * @returns {Array<[number, number]>}
 */
export function mergeRuns(runs) {
  const sorted = runs.slice().sort((x, y) => x[0] - y[0]);
  /** @type {Array<[number, number]>} */
  const out = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/**
 * @param {object} p
 * @param {import('../../transports/redis.js').RedisConn} p.conn
 * @param {(id: number) => string} p.keyOf the item key of an id
 * @param {(key: string) => Array<string|number>} [p.valueArgs] the command reading an item's value, when not GET
 * @param {Array<[number, number]>} p.runs acknowledged ids
 * @param {(id: number) => number} [p.secondOf] the second of the run an id was written in
 * @returns {Promise<{ acked: number, present: number, lost: number, mismatched: number, lostSample: number[], lostBySecond: Record<number, number>, ms: number }>}
 */
export async function verifyAcked({ conn, keyOf, valueArgs, runs, secondOf = () => 0 }) {
  const t0 = performance.now();
  const router = new RedisRouter(conn);
  await router.open();
  const fetcher = new Fetcher(router, 'mget', undefined, valueArgs);
  const out = { acked: 0, present: 0, lost: 0, mismatched: 0, lostSample: [], lostBySecond: {}, ms: 0 };
  try {
    for (const ids of batches(mergeRuns(runs))) {
      const values = await fetchWithRetry(router, fetcher, ids.map(keyOf));
      for (let i = 0; i < ids.length; i++) {
        out.acked++;
        const v = values[i];
        if (v === null || v === undefined) {
          out.lost++;
          const sec = secondOf(ids[i]);
          out.lostBySecond[sec] = (out.lostBySecond[sec] || 0) + 1;
          if (out.lostSample.length < LOST_SAMPLE) out.lostSample.push(ids[i]);
        } else if (leadingId(v) !== ids[i]) out.mismatched++;
        else out.present++;
      }
    }
  } finally {
    router.close();
  }
  out.ms = Math.round(performance.now() - t0);
  return out;
}

function* batches(runs) {
  let ids = [];
  for (const [lo, hi] of runs) {
    for (let id = lo; id <= hi; id++) {
      ids.push(id);
      if (ids.length === BATCH) {
        yield ids;
        ids = [];
      }
    }
  }
  if (ids.length) yield ids;
}

async function fetchWithRetry(router, fetcher, keys) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await within(fetcher.fetch(keys), FETCH_TIMEOUT_MS, 'reading back');
    } catch (e) {
      if (attempt >= ATTEMPTS) throw new Error(`after ${ATTEMPTS} attempts: ${e.message}`, { cause: e });
      // a node that did not answer in time keeps its replies coming late: fresh connections
      if (e.timedOut) router.close();
      await new Promise((r) => setTimeout(r, 100 * attempt));
      await router.refresh().catch(() => {});
    }
  }
}
