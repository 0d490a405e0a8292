/**
 * The Redis operations `rqbench ops` times, one call at a time (seed 003's per-operation
 * baseline): GET, SET, ZADD, ZRANGEBYSCORE and MGET, on keys that share one hash tag, so they
 * live in one slot and MGET works on a cluster too. Each operation's bytes are encoded once.
 */
import { encodeCommand } from '../../transports/resp.js';
import { keySlot } from '../../transports/slot.js';

const TAG = '{rqbench:ops}';
const VALUE = 'v'.repeat(128);
const MGET_KEYS = 10;
const ZSET_MEMBERS = 1000;

const key = (n) => `${TAG}:k:${n}`;
const ZKEY = `${TAG}:z`;

/** @typedef {{ name: string, bytes: Buffer }} RedisOp */

/** @type {RedisOp[]} in table order: reads, then writes */
export const REDIS_OPS = [
  { name: 'GET', bytes: encodeCommand(['GET', key(0)]) },
  { name: 'MGET', bytes: encodeCommand(['MGET', ...Array.from({ length: MGET_KEYS }, (_, i) => key(i))]) },
  { name: 'ZRANGEBYSCORE', bytes: encodeCommand(['ZRANGEBYSCORE', ZKEY, '-inf', '+inf', 'LIMIT', 0, 100]) },
  { name: 'SET', bytes: encodeCommand(['SET', key(0), VALUE]) },
  { name: 'ZADD', bytes: encodeCommand(['ZADD', ZKEY, 1, 'm:0']) },
];

/** The slot every operation's keys live in. */
export const OPS_SLOT = keySlot(TAG);

/** What the reads need in place: MGET's keys (128 B values) and a sorted set of 1000 members. */
export function setupCommands() {
  /** @type {Array<string|number>} */
  const zadd = ['ZADD', ZKEY];
  for (let i = 0; i < ZSET_MEMBERS; i++) zadd.push(i, `m:${i}`);
  return [['DEL', ZKEY], ['MSET', ...Array.from({ length: MGET_KEYS }, (_, i) => [key(i), VALUE]).flat()], zadd];
}

/** Removes every key the operations touched. */
export function teardownCommands() {
  return [['DEL', ZKEY, ...Array.from({ length: MGET_KEYS }, (_, i) => key(i))]];
}

/**
 * What each operation does, for the summary.
 * @type {Record<string, string>}
 */
export const OP_NOTES = {
  GET: 'one key, 128 B value',
  MGET: `${MGET_KEYS} keys, 128 B values`,
  ZRANGEBYSCORE: `100 of ${ZSET_MEMBERS} members (LIMIT 0 100)`,
  SET: 'one key, 128 B value',
  ZADD: 'one member of a 1000-member set',
};
