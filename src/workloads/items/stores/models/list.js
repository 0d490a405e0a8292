/**
 * --sl: items in SETEX keys, their key names pushed to a list trimmed to the newest
 * `listMax` entries ("the last K items" instead of "the last X seconds").
 */
import { settings } from '../../../../settings.js';
import { indexNames } from '../keys.js';
import { listCommands, setexCommands, setexReadBack } from '../common.js';
import { createListReadModel } from '../list-read.js';

/** @type {import('../contract.js').StoreModel} */
export default {
  name: 'list',
  order: 3,
  summary: 'ids pushed to a list trimmed to the newest --list-max, values in SETEX keys',
  flag: { name: 'sl', describe: 'a list (LPUSH + LTRIM) instead of the sorted set' },
  can: { actualValue: true, extraSets: true, script: false, uniques: false },
  write(cfg) {
    const names = indexNames(settings.keys.list, cfg);
    return {
      mode: 'list',
      scripts: [],
      epoch: () => 0,
      plan: (lo, hi) => [...setexCommands(lo, hi, cfg), ...listCommands(names, lo, hi, cfg)],
      purge: () => [],
    };
  },
  read: (cfg) => createListReadModel(cfg, { hll: false }),
  readBack: setexReadBack,
};
