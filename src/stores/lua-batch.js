/**
 * --ws: one EVALSHA of store-items.lua per sorted set per chunk; the script writes the item
 * keys and the sorted set. On a cluster the item keys carry their sorted set's hash tag so
 * every call touches one slot; use --ns to spread the sets (and their items) over shards.
 */
import { settings } from '../settings.js';
import { indexNames, itemKey } from './keys.js';
import { SCORE } from '../targets/resp.js';
import { cmd, idsByIndex, zsetPurge } from './common.js';
import { payload } from './payload.js';
import { loadScript } from './lua.js';

/** Item key as the Lua modes write it. */
export function luaItemKey(id, zset, cfg) {
  return cfg.cluster ? itemKey(id, zset) : itemKey(id);
}

/** @param {import('./keys.js').StoreConfig} cfg */
export function createLuaBatchStore(cfg) {
  const script = loadScript('store-items');
  const zsets = indexNames(settings.keys.zset, cfg).map((copies) => copies[0]);
  const mode = cfg.actualValue ? 'value' : 'ref';
  return {
    mode: 'lua-batch',
    zsets,
    structures: zsets,
    scripts: [script],
    epoch: () => 0,
    plan(lo, hi) {
      const out = [];
      idsByIndex(lo, hi, cfg).forEach((ids, n) => {
        if (ids.length === 0) return;
        const zset = zsets[n];
        const keys = ids.map((id) => luaItemKey(id, zset, cfg));
        const values = ids.map((id) => payload(id, cfg.valueSize));
        const args = ['EVALSHA', script.sha, 1 + keys.length, zset, ...keys, cfg.ttl, SCORE, mode, ...values];
        out.push(cmd(args, zset, 'evalsha', ids, cfg));
      });
      return out;
    },
    purge: (nowMs) => zsetPurge(zsets, cfg, nowMs),
  };
}
