/** --sk: one EVALSHA of store-item.lua per item (the seed's store-item.lua experiment). */
import { indexOf, redisTtl } from '../keys.js';
import { SCORE } from '../../../../transports/resp.js';
import { cmd } from '../common.js';
import { payload } from '../payload.js';
import { createLuaStore, luaReadBack, luaItemKey, LUA_WHY } from '../lua.js';
import { createZsetReadModel } from '../zset-read.js';

/** @type {import('../contract.js').StoreModel} */
export default {
  name: 'lua-item',
  order: 2,
  summary: 'the sorted set and item key written by one store-item.lua call per item',
  flag: { name: 'sk', describe: 'one Lua call (store-item.lua) per item' },
  can: { actualValue: true, extraSets: false, script: true, uniques: false },
  why: LUA_WHY,
  write: (cfg) =>
    createLuaStore(cfg, 'lua-item', 'store-item', ({ script, zsets, mode }, lo, hi) => {
      const out = [];
      for (let id = lo; id <= hi; id++) {
        const zset = zsets[indexOf(id, cfg)];
        const args = [
          'EVALSHA',
          script.sha,
          2,
          zset,
          luaItemKey(id, zset, cfg),
          redisTtl(cfg.ttl, cfg),
          SCORE,
          mode,
          payload(id, cfg.valueSize),
        ];
        out.push(cmd(args, zset, 'evalsha', [id], cfg));
      }
      return out;
    }),
  read: createZsetReadModel,
  readBack: luaReadBack,
};
