/**
 * The kv workload's operations, its mix of them (`--mix get:90,set:10`), and YCSB's core
 * workloads A–F as named presets. Each operation is one Redis command on a key the key chooser
 * picked (read-modify-write is two: a GET, then a SET of the same key once the GET answered).
 * Each kind of value lives under its own key name (`<key>`, `<key>:h`, `<key>:z`, `<key>:n`), so a
 * mix of string, hash, sorted-set and counter operations never meets a key of another type.
 */

/**
 * @typedef {object} KvOp
 * @property {boolean} read served by a replica with --read-from replica
 * @property {string} command what it sends, in words (--help, the docs)
 * @property {boolean} [value] it carries a value of the drawn size
 * @property {boolean} [insert] its key is the next one written, not a chosen one (YCSB's insert)
 */

/** @type {Record<string, KvOp>} */
export const KV_OPS = {
  get: { read: true, command: 'GET <key>' },
  set: { read: false, command: 'SET <key> <value> [EX --ttl]', value: true },
  del: { read: false, command: 'DEL <key>' },
  incr: { read: false, command: 'INCR <key>:n' },
  hget: { read: true, command: 'HGET <key>:h f' },
  hset: { read: false, command: 'HSET <key>:h f <value>', value: true },
  zadd: { read: false, command: 'ZADD <key>:z <score> m<0..99>' },
  zrange: { read: true, command: 'ZRANGE <key>:z 0 9 (a short range)' },
  insert: { read: false, command: 'SET <the next key> <value> [EX --ttl] (keys written in turn: what latest: reads)', value: true },
  rmw: { read: false, command: 'GET <key>, then SET <key> <value> once it answered (read-modify-write)', value: true },
};

export const OP_NAMES = Object.keys(KV_OPS);

/** Members a sorted set of the zadd operation holds at most, and the range zrange reads. */
export const ZSET_MEMBERS = 100;
export const ZRANGE_LEN = 10;

/** @typedef {Array<{ op: string, weight: number }>} Mix */

export const MIX_FORMS = `OP:WEIGHT,OP:WEIGHT,… (OP one of ${OP_NAMES.join(', ')}; weights above 0), e.g. get:90,set:10`;

/**
 * `--mix get:90,set:10` → its operations and weights, or what is wrong with it.
 * @param {string} text
 * @returns {Mix|string}
 */
export function parseMix(text) {
  const parts = String(text)
    .split(',')
    .map((p) => /^\s*([a-z]+)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(p));
  if (!parts.length || parts.some((m) => !m)) return MIX_FORMS;
  const mix = /** @type {RegExpExecArray[]} */ (parts).map((m) => ({ op: m[1], weight: Number(m[2]) }));
  const unknown = mix.find((m) => !(m.op in KV_OPS));
  if (unknown) return `${MIX_FORMS}; ${unknown.op} is not an operation`;
  if (mix.some((m) => !(m.weight > 0))) return MIX_FORMS;
  if (new Set(mix.map((m) => m.op)).size !== mix.length) return `${MIX_FORMS}, each operation once`;
  return mix;
}

/**
 * Draws operations in the mix's proportions.
 * @param {Mix} mix
 * @param {() => number} random
 * @returns {() => string}
 */
export function opChooser(mix, random) {
  if (mix.length === 1) return () => mix[0].op;
  const total = mix.reduce((n, m) => n + m.weight, 0);
  const upTo = [];
  let acc = 0;
  for (const m of mix) upTo.push((acc += m.weight / total));
  return () => {
    const u = random();
    for (let i = 0; i < upTo.length; i++) if (u < upTo[i]) return mix[i].op;
    return mix[mix.length - 1].op;
  };
}

/**
 * YCSB's core workloads, in Redis commands. YCSB's record is a key with ten 100-byte fields; here
 * a record is one key with one value of --sizes. "update" is a SET of the whole value, "insert" a
 * SET of the next key in turn, "scan" a short ZRANGE of the key's sorted set (YCSB's own Redis
 * binding reads an index sorted set for its scans), "read-modify-write" a GET then a SET.
 * @type {Record<string, { mix: string, keyDist: string, what: string }>}
 */
export const YCSB = {
  'ycsb-a': { mix: 'get:50,set:50', keyDist: 'zipf:0.99:scrambled', what: 'update heavy: 50 % reads, 50 % updates' },
  'ycsb-b': { mix: 'get:95,set:5', keyDist: 'zipf:0.99:scrambled', what: 'read mostly: 95 % reads, 5 % updates' },
  'ycsb-c': { mix: 'get:100', keyDist: 'zipf:0.99:scrambled', what: 'read only' },
  'ycsb-d': { mix: 'get:95,insert:5', keyDist: 'latest:0.99', what: 'read latest: 95 % reads of the newest keys, 5 % inserts' },
  'ycsb-e': { mix: 'zrange:95,zadd:5', keyDist: 'zipf:0.99:scrambled', what: 'short ranges: 95 % scans, 5 % inserts' },
  'ycsb-f': { mix: 'get:50,rmw:50', keyDist: 'zipf:0.99:scrambled', what: 'read-modify-write: 50 % reads, 50 % read-modify-writes' },
};

/**
 * `--key-pattern` → the name of key i: its `{n}` replaced by the index.
 * @param {string} pattern
 * @returns {(i: number) => string}
 */
export function keyNamer(pattern) {
  const at = pattern.indexOf('{n}');
  const head = pattern.slice(0, at);
  const tail = pattern.slice(at + 3);
  return (i) => head + i + tail;
}

/**
 * The arguments of one operation on key `key` (as named), the value bytes given.
 * @param {string} op
 * @param {string} key
 * @param {Buffer|null} value
 * @param {number} ttl seconds, 0: none
 * @param {number} pick a draw in [0, 1): the sorted-set member and score
 * @returns {Array<string|Buffer>}
 */
export function argsOf(op, key, value, ttl, pick) {
  switch (op) {
    case 'get':
    case 'rmw':
      return ['GET', key];
    case 'set':
    case 'insert':
      return ttl ? ['SET', key, /** @type {Buffer} */ (value), 'EX', String(ttl)] : ['SET', key, /** @type {Buffer} */ (value)];
    case 'del':
      return ['DEL', key];
    case 'incr':
      return ['INCR', `${key}:n`];
    case 'hget':
      return ['HGET', `${key}:h`, 'f'];
    case 'hset':
      return ['HSET', `${key}:h`, 'f', /** @type {Buffer} */ (value)];
    case 'zadd': {
      const m = Math.floor(pick * ZSET_MEMBERS);
      return ['ZADD', `${key}:z`, String(m), `m${m}`];
    }
    case 'zrange':
      return ['ZRANGE', `${key}:z`, '0', String(ZRANGE_LEN - 1)];
    default:
      throw new TypeError(`not a kv operation: ${op}`);
  }
}

/**
 * The key name a command routes by (its slot): the second argument of every command here.
 * @param {Array<string|Buffer>} args
 */
export const routedKey = (args) => /** @type {string} */ (args[1]);
