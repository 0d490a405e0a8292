/**
 * --slh: the list of --sl plus a HyperLogLog per minute counting unique items
 * (`latest-hll:<minute>`); the previous minute's HLL gives the unique count, a minute late.
 */
import { settings } from '../../../../settings.js';
import { indexNames, minuteOf } from '../keys.js';
import { listCommands, perMinuteCommands, setexCommands, setexReadBack } from '../common.js';
import { createListReadModel } from '../list-read.js';

/** @type {import('../contract.js').StoreModel} */
export default {
  name: 'list-hll',
  order: 4,
  summary: 'the list of --sl plus a HyperLogLog per minute (unique count, a minute late)',
  flag: { name: 'slh', describe: 'the list plus a HyperLogLog per minute (implies --sl)', implies: ['sl'] },
  can: { actualValue: true, extraSets: true, script: false, uniques: true },
  write(cfg) {
    const lists = indexNames(settings.keys.list, cfg);
    return {
      mode: 'list-hll',
      scripts: [],
      epoch: (nowMs) => minuteOf(nowMs),
      plan: (lo, hi, nowMs) => [
        ...setexCommands(lo, hi, cfg),
        ...listCommands(lists, lo, hi, cfg),
        ...perMinuteCommands('PFADD', settings.keys.hll, lo, hi, cfg, nowMs),
      ],
      purge: () => [],
    };
  },
  read: (cfg) => createListReadModel(cfg, { hll: true }),
  readBack: setexReadBack,
};
