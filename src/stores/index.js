/** Picks the data model the flags name. Adding a model: one file here and its flag. */
import { createZsetStore } from './zset.js';
import { createListStore } from './list.js';
import { createListHllStore } from './list-hll.js';
import { createSetPerMinuteStore } from './set-per-minute.js';
import { createLuaBatchStore } from './lua-batch.js';
import { createLuaItemStore } from './lua-item.js';
import { luaItemKey } from './lua.js';
import { indexNames, indexOf, itemKey } from './keys.js';
import { settings } from '../settings.js';

export const STORE_MODES = ['zset', 'list', 'list-hll', 'set-per-minute', 'lua-batch', 'lua-item'];

const factories = {
  zset: createZsetStore,
  list: createListStore,
  'list-hll': createListHllStore,
  'set-per-minute': createSetPerMinuteStore,
  'lua-batch': createLuaBatchStore,
  'lua-item': createLuaItemStore,
};

/**
 * @param {string} mode one of STORE_MODES
 * @param {import('./keys.js').StoreConfig} cfg
 */
export function createStore(mode, cfg) {
  const make = factories[mode];
  if (!make) throw new RangeError(`unknown store mode ${mode}`);
  return make(cfg);
}

/**
 * The item key a store writes for an id (what --verify reads back), or null when the store
 * keeps no item keys (--actual-value: the index structures hold the values).
 * @param {string} mode
 * @param {import('./keys.js').StoreConfig} cfg
 * @returns {((id: number) => string) | null}
 */
export function itemKeyFn(mode, cfg) {
  if (cfg.actualValue) return null;
  if (mode === 'lua-batch' || mode === 'lua-item') {
    const zsets = indexNames(settings.keys.zset, cfg).map((copies) => copies[0]);
    return (id) => luaItemKey(id, zsets[indexOf(id, cfg)], cfg);
  }
  return (id) => itemKey(id);
}
