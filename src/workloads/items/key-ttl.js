/**
 * The TTL the item keys really have. A consumer's --ttl is only its read window (items newer than
 * that are read); the producer set the keys' TTL, and the two need not agree. When values went
 * missing, the summary may blame expiry only if the keys' own TTL explains it: so, after the run,
 * the newest members of the index are read from the masters and their keys' PTTL asked for.
 */
import { RedisRouter } from '../../transports/redis-router.js';
import { within } from '../../transports/bounds.js';

/** Keys asked: the newest ones, so the largest PTTL seen is close to the TTL they were written with. */
const SAMPLE = 32;
const WAIT_MS = 3000;

/** @typedef {import('../../runs/consume/consumer-summary.js').KeyTtl} KeyTtl what was sampled (the summary reads it) */

/**
 * @param {import('../../transports/redis.js').RedisConn} conn
 * @param {import('./stores/contract.js').ReadModel} model the consumer's read model
 * @returns {Promise<KeyTtl|null>} null when the model keeps no item keys, or they could not be read (the summary then says less)
 */
export async function sampleKeyTtl(conn, model) {
  if (model.membersAreValues) return null;
  const router = new RedisRouter(conn);
  try {
    await within(router.open(), WAIT_MS, 'the key TTL sample');
    /** @type {import('./stores/contract.js').ReadIO} */
    const io = { call: (key, args) => router.pipe(router.addrFor(conn.cluster ? router.slotOf(key) : 0)).then((p) => p.call(args)) };
    // every member (cutoff 0): the producer may have stopped longer ago than the read window
    const members = (await within(model.range(io, 0, SAMPLE, Date.now()), WAIT_MS, 'the key TTL sample')).slice(0, SAMPLE).map(String);
    const pttls = await within(Promise.all(members.map((k) => io.call(k, ['PTTL', k]))), WAIT_MS, 'the key TTL sample');
    const live = pttls.map(Number).filter((ms) => ms >= 0);
    return {
      sampled: members.length,
      present: pttls.filter((ms) => Number(ms) !== -2).length,
      noExpiry: pttls.filter((ms) => Number(ms) === -1).length,
      maxS: live.length ? Math.ceil(Math.max(...live) / 1000) : null,
    };
  } catch {
    // a sample that cannot be taken leaves the explanation to what the counts alone tell
    return null;
  } finally {
    router.close();
  }
}
