/**
 * --ss: items in SETEX keys, their key names added to a set per minute
 * (`latest-set:<minute>`): the latest items and an exact unique count, a minute late.
 */
import { settings } from '../../../../settings.js';
import { minuteOf } from '../keys.js';
import { perMinuteCommands, setexCommands, setexReadBack } from '../common.js';
import { createSetReadModel } from '../set-read.js';

/** @type {import('../contract.js').StoreModel} */
export default {
  name: 'set-per-minute',
  order: 5,
  summary: 'ids in a set per minute (exact unique count, a minute late), values in SETEX keys',
  flag: { name: 'ss', describe: 'a set per minute instead of the sorted set' },
  can: { actualValue: true, extraSets: true, script: false, uniques: true },
  write(cfg) {
    return {
      mode: 'set-per-minute',
      scripts: [],
      epoch: (nowMs) => minuteOf(nowMs),
      plan: (lo, hi, nowMs) => [...setexCommands(lo, hi, cfg), ...perMinuteCommands('SADD', settings.keys.set, lo, hi, cfg, nowMs)],
      purge: () => [],
    };
  },
  read: createSetReadModel,
  readBack: setexReadBack,
};
