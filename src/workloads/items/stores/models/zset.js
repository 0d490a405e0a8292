/**
 * The seed's baseline: items in SETEX keys, their key names in a sorted set scored by send
 * time (`zset-ids`); or, with --actual-value, the values themselves in the sorted set and no
 * item keys (`zset-values`).
 */
import { settings } from '../../../../settings.js';
import { indexNames } from '../keys.js';
import { indexCommands, setexCommands, setexReadBack, zsetPurge } from '../common.js';
import { createZsetReadModel } from '../zset-read.js';

/** @type {import('../contract.js').StoreModel} */
export default {
  name: 'zset',
  order: 0,
  summary: "ids in a sorted set scored by send time, values in SETEX keys (the seed's baseline)",
  flag: null,
  can: { actualValue: true, extraSets: true, script: true, uniques: false },
  write(cfg) {
    const names = indexNames(settings.keys.zset, cfg);
    const zsets = names.flat(); // every set written, copies included: the purge covers them all
    return {
      mode: cfg.actualValue ? 'zset-values' : 'zset-ids',
      scripts: [],
      epoch: () => 0,
      plan: (lo, hi) => [...setexCommands(lo, hi, cfg), ...indexCommands('ZADD', names, lo, hi, cfg, true)],
      purge: (nowMs) => zsetPurge(zsets, cfg, nowMs),
    };
  },
  read: createZsetReadModel,
  readBack: setexReadBack,
};
