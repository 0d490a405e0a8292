/** Picks the read side of the data model the flags name (the consumer reads what the producer wrote). */
import { createZsetReadModel } from './zset-read.js';
import { createListReadModel } from './list-read.js';
import { createSetReadModel } from './set-read.js';

/**
 * @param {string} mode a store mode (see stores/index.js)
 * @param {import('./keys.js').StoreConfig} cfg
 */
export function createReadModel(mode, cfg) {
  switch (mode) {
    case 'zset':
    case 'lua-batch':
    case 'lua-item':
      return createZsetReadModel(cfg);
    case 'list':
      return createListReadModel(cfg, { hll: false });
    case 'list-hll':
      return createListReadModel(cfg, { hll: true });
    case 'set-per-minute':
      return createSetReadModel(cfg);
    default:
      throw new RangeError(`unknown store mode ${mode}`);
  }
}
