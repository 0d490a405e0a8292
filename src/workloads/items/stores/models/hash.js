/**
 * --hash: the seed's parent experiment, "sorted set and hash": each item's fields in a hash
 * (`HSET item:<id> id <id> v <payload>` + `EXPIRE item:<id> <ttl>`, since a hash has no
 * SETEX), its key name in the sorted set scored by send time, purged to the TTL window like
 * the baseline. The consumer reads the sorted set as the baseline does and each value with
 * `HGET item:<id> v` (an MGET cannot read a hash); --verify reads the hashes back the same way.
 * Compared with the baseline it costs one more command per item (HSET + EXPIRE vs SETEX) and
 * buys fields that can be read or updated one at a time.
 */
import { settings } from '../../../../settings.js';
import { indexNames, itemKey, redisTtl } from '../keys.js';
import { cmd, indexCommands, zsetPurge } from '../common.js';
import { payload } from '../payload.js';
import { createZsetReadModel } from '../zset-read.js';

/** The hash field holding the payload (the id has its own field). */
const VALUE_FIELD = 'v';

/** @param {string} key */
const valueArgs = (key) => ['HGET', key, VALUE_FIELD];

/**
 * HSET and EXPIRE of every item lo..hi.
 * @param {number} lo
 * @param {number} hi
 * @param {import('../keys.js').StoreConfig} cfg
 */
function hashCommands(lo, hi, cfg) {
  const out = [];
  for (let id = lo; id <= hi; id++) {
    const key = itemKey(id);
    out.push(cmd(['HSET', key, 'id', id, VALUE_FIELD, payload(id, cfg.valueSize)], key, 'hset', [id], cfg));
    out.push(cmd(['EXPIRE', key, redisTtl(cfg.ttl, cfg)], key, 'expire', [id], cfg));
  }
  return out;
}

/** @type {import('../contract.js').StoreModel} */
export default {
  name: 'hash',
  order: 6,
  summary: 'item fields in a hash per item (HSET + EXPIRE), ids in the sorted set',
  flag: { name: 'hash', describe: 'item fields in a hash (HSET + EXPIRE) instead of a SETEX string; ids in the sorted set' },
  can: { actualValue: false, extraSets: true, script: true, uniques: false },
  why: { actualValue: 'the hash model keeps every item in its own hash; --actual-value puts the values in the index instead' },
  write(cfg) {
    const names = indexNames(settings.keys.zset, cfg);
    const zsets = names.flat();
    return {
      mode: 'hash',
      scripts: [],
      epoch: () => 0,
      plan: (lo, hi) => [...hashCommands(lo, hi, cfg), ...indexCommands('ZADD', names, lo, hi, cfg, true)],
      purge: (nowMs) => zsetPurge(zsets, cfg, nowMs),
    };
  },
  read: (cfg) => ({ ...createZsetReadModel(cfg), mode: 'hash', valueArgs }),
  readBack: () => ({ keyOf: (id) => itemKey(id), valueArgs }),
};
