/**
 * --ss: items in SETEX keys, their key names added to a set per minute
 * (`latest-set:<minute>`): the latest items and an exact unique count, a minute late.
 */
import { settings } from '../settings.js';
import { minuteOf } from './keys.js';
import { setexCommands } from './common.js';
import { perMinuteCommands } from './list-hll.js';

/** @param {import('./keys.js').StoreConfig} cfg */
export function createSetPerMinuteStore(cfg) {
  return {
    mode: 'set-per-minute',
    scripts: [],
    epoch: (nowMs) => minuteOf(nowMs),
    plan: (lo, hi, nowMs) => [
      ...setexCommands(lo, hi, cfg),
      ...perMinuteCommands('SADD', settings.keys.set, lo, hi, cfg, nowMs),
    ],
    purge: () => [],
  };
}
