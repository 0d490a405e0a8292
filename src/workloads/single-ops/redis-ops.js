/**
 * The Redis operations `rqbench ops` times, one call at a time (seed 003's per-operation
 * baseline): GET, SET, ZADD, ZRANGEBYSCORE and MGET, on keys that share one hash tag, so they
 * live in one slot and MGET works on a cluster too. Each call encodes its command afresh, as a
 * client would: encoding is part of the client's overhead.
 */
import { performance } from 'node:perf_hooks';
import { encodeCommand } from '../../transports/resp.js';
import { keySlot } from '../../transports/slot.js';

const TAG = '{rqbench:ops}';
const VALUE = 'v'.repeat(128);
const MGET_KEYS = 10;
const ZSET_MEMBERS = 1000;

const key = (n) => `${TAG}:k:${n}`;
const ZKEY = `${TAG}:z`;

/** @typedef {{ name: string, args: Array<string|number> }} RedisOp */

/** @type {RedisOp[]} in table order: reads, then writes */
export const REDIS_OPS = [
  { name: 'GET', args: ['GET', key(0)] },
  { name: 'MGET', args: ['MGET', ...Array.from({ length: MGET_KEYS }, (_, i) => key(i))] },
  { name: 'ZRANGEBYSCORE', args: ['ZRANGEBYSCORE', ZKEY, '-inf', '+inf', 'LIMIT', 0, 100] },
  { name: 'SET', args: ['SET', key(0), VALUE] },
  { name: 'ZADD', args: ['ZADD', ZKEY, 1, 'm:0'] },
];

/**
 * One call on a pipe, timed as seed 003 times an SDK's: the client's overhead is encoding the
 * command and, once the reply's bytes arrive, parsing it and handing its value back; the time
 * between (writing, the server, the wire) is the call's time on the wire.
 * @param {import('../../transports/redis-pipe.js').RespPipe} pipe
 * @param {Array<string|number>} args
 * @returns {Promise<number>} the overhead, ms
 */
export function timedCall(pipe, args) {
  const t0 = performance.now();
  const bytes = encodeCommand(args);
  const encodeMs = performance.now() - t0;
  return new Promise((resolve, reject) => {
    let failure;
    let value;
    pipe.send(bytes, {
      n: 1,
      value: (_s, _i, v) => {
        value = v;
      },
      error: (_s, _i, err) => {
        failure = err;
      },
      // pipe.now: when the reply's bytes arrived, before the parser ran
      done: () => (failure ? reject(failure) : resolve(value)),
    });
  }).then(() => encodeMs + (performance.now() - pipe.now));
}

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
