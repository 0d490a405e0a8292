/** --sk: one EVALSHA of store-item.lua per item (the seed's store-item.lua experiment). */
import { settings } from '../settings.js';
import { indexNames, indexOf } from './keys.js';
import { SCORE } from '../targets/resp.js';
import { cmd, zsetPurge } from './common.js';
import { payload } from './payload.js';
import { loadScript } from './lua.js';
import { luaItemKey } from './lua-batch.js';

/** @param {import('./keys.js').StoreConfig} cfg */
export function createLuaItemStore(cfg) {
  const script = loadScript('store-item');
  const zsets = indexNames(settings.keys.zset, cfg).map((copies) => copies[0]);
  const mode = cfg.actualValue ? 'value' : 'ref';
  return {
    mode: 'lua-item',
    zsets,
    structures: zsets,
    scripts: [script],
    epoch: () => 0,
    plan(lo, hi) {
      const out = [];
      for (let id = lo; id <= hi; id++) {
        const zset = zsets[indexOf(id, cfg)];
        const args = ['EVALSHA', script.sha, 2, zset, luaItemKey(id, zset, cfg), cfg.ttl, SCORE, mode, payload(id, cfg.valueSize)];
        out.push(cmd(args, zset, 'evalsha', [id], cfg));
      }
      return out;
    },
    purge: (nowMs) => zsetPurge(zsets, cfg, nowMs),
  };
}
