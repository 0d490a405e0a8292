/**
 * --ws: one EVALSHA of store-items.lua per sorted set per chunk; the script writes the item
 * keys and the sorted set. On a cluster the item keys carry their sorted set's hash tag so
 * every call touches one slot; use --ns to spread the sets (and their items) over shards.
 */
import { SCORE } from '../../../../transports/resp.js';
import { cmd, idsByIndex } from '../common.js';
import { payload } from '../payload.js';
import { redisTtl } from '../keys.js';
import { createLuaStore, luaReadBack, luaItemKey, LUA_WHY } from '../lua.js';
import { createZsetReadModel } from '../zset-read.js';

/** @type {import('../contract.js').StoreModel} */
export default {
  name: 'lua-batch',
  order: 1,
  summary: 'the sorted set and item keys written by one store-items.lua call per chunk',
  flag: { name: 'ws', describe: 'write each chunk with the Lua script store-items.lua' },
  can: { actualValue: true, extraSets: false, script: true, uniques: false },
  why: LUA_WHY,
  write: (cfg) =>
    createLuaStore(cfg, 'lua-batch', 'store-items', ({ script, zsets, mode }, lo, hi) => {
      const out = [];
      idsByIndex(lo, hi, cfg).forEach((ids, n) => {
        if (ids.length === 0) return;
        const zset = zsets[n];
        const keys = ids.map((id) => luaItemKey(id, zset, cfg));
        const values = ids.map((id) => payload(id, cfg.valueSize));
        const args = ['EVALSHA', script.sha, 1 + keys.length, zset, ...keys, redisTtl(cfg.ttl, cfg), SCORE, mode, ...values];
        out.push(cmd(args, zset, 'evalsha', ids, cfg));
      });
      return out;
    }),
  read: createZsetReadModel,
  readBack: luaReadBack,
};
