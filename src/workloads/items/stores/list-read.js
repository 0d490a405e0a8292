/**
 * Reading the list models: LLEN and LRANGE of the newest entries (--sl); with --slh also
 * PFCOUNT of the previous minute's HyperLogLog, the unique count a minute late.
 */
import { settings } from '../../../settings.js';
import { indexNames, minuteOf } from './keys.js';

/**
 * @param {import('./keys.js').StoreConfig} cfg
 * @param {{ hll: boolean }} opts
 */
export function createListReadModel(cfg, { hll }) {
  const names = indexNames(settings.keys.list, cfg).map((copies) => copies[0]);
  return {
    mode: hll ? 'list-hll' : 'list',
    names,
    membersAreValues: cfg.actualValue,
    scripts: [],

    /** @param {import('./contract.js').ReadIO} io */
    async cardinality(io, nowMs) {
      const lens = await Promise.all(names.map((name) => io.call(name, ['LLEN', name])));
      const out = { count: lens.reduce((a, b) => a + Number(b), 0), newest: null };
      if (hll) {
        const prev = indexNames(settings.keys.hll, cfg, `:${minuteOf(nowMs) - 1}`).map((c) => c[0]);
        const counts = await Promise.all(prev.map((name) => io.call(name, ['PFCOUNT', name])));
        out.uniques = counts.reduce((a, b) => a + Number(b), 0);
      }
      return out;
    },

    /** Like zset-read's: the range as commands whose replies concatenate to range()'s result, or null. */
    rangeCommands(_cutoff, limit) {
      if (limit && names.length > 1) return null;
      return names.map((name) => ({ key: name, args: ['LRANGE', name, 0, limit ? limit - 1 : -1] }));
    },

    /** @param {import('./contract.js').ReadIO} io */
    async range(io, _cutoff, limit) {
      const parts = await Promise.all(names.map((name) => io.call(name, ['LRANGE', name, 0, limit ? limit - 1 : -1])));
      return limit ? parts.flat().slice(0, limit) : parts.flat();
    },
  };
}
