/** --sk: one EVALSHA of store-item.lua per item (the seed's store-item.lua experiment). */
import { indexOf } from './keys.js';
import { SCORE } from '../targets/resp.js';
import { cmd } from './common.js';
import { payload } from './payload.js';
import { createLuaStore, luaItemKey } from './lua.js';

/** @param {import('./keys.js').StoreConfig} cfg */
export function createLuaItemStore(cfg) {
  return createLuaStore(cfg, 'lua-item', 'store-item', ({ script, zsets, mode }, lo, hi) => {
    const out = [];
    for (let id = lo; id <= hi; id++) {
      const zset = zsets[indexOf(id, cfg)];
      const args = ['EVALSHA', script.sha, 2, zset, luaItemKey(id, zset, cfg), cfg.ttl, SCORE, mode, payload(id, cfg.valueSize)];
      out.push(cmd(args, zset, 'evalsha', [id], cfg));
    }
    return out;
  });
}
