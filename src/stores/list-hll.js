/**
 * --slh: the list of --sl plus a HyperLogLog per minute counting unique items
 * (`latest-hll:<minute>`); the previous minute's HLL gives the unique count, a minute late.
 */
import { settings } from '../settings.js';
import { indexNames, minuteOf } from './keys.js';
import { indexCommands, keyCommand, setexCommands } from './common.js';
import { listCommands } from './list.js';

/**
 * Adds lo..hi to this minute's structures and keeps them alive for perMinuteTtlSeconds.
 * @param {string} verb 'PFADD' or 'SADD'
 */
export function perMinuteCommands(verb, base, lo, hi, cfg, nowMs) {
  const names = indexNames(base, cfg, `:${minuteOf(nowMs)}`);
  const adds = indexCommands(verb, names, lo, hi, cfg, false);
  const ttl = settings.perMinuteTtlSeconds;
  return [...adds, ...adds.map((a) => keyCommand(['EXPIRE', a.key, ttl], 'expire', cfg))];
}

/** @param {import('./keys.js').StoreConfig} cfg */
export function createListHllStore(cfg) {
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
}
