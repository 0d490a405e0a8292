/** Picks the data model the flags name. Adding a model: one file here and its flag. */
import { createZsetStore } from './zset.js';
import { createListStore } from './list.js';
import { createListHllStore } from './list-hll.js';
import { createSetPerMinuteStore } from './set-per-minute.js';
import { createLuaBatchStore } from './lua-batch.js';
import { createLuaItemStore } from './lua-item.js';

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
