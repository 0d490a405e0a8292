/**
 * --sl: items in SETEX keys, their key names pushed to a list trimmed to the newest
 * `listMax` entries ("the last K items" instead of "the last X seconds").
 */
import { settings } from '../settings.js';
import { indexNames } from './keys.js';
import { indexCommands, keyCommand, setexCommands } from './common.js';

/**
 * List commands for lo..hi: LPUSH of the members, then LTRIM of every list touched.
 * @param {import('./keys.js').StoreConfig} cfg
 */
export function listCommands(names, lo, hi, cfg) {
  const pushes = indexCommands('LPUSH', names, lo, hi, cfg, false);
  const trims = pushes.map((p) => keyCommand(['LTRIM', p.key, 0, cfg.listMax - 1], 'ltrim', cfg));
  return [...pushes, ...trims];
}

/** @param {import('./keys.js').StoreConfig} cfg */
export function createListStore(cfg) {
  const names = indexNames(settings.keys.list, cfg);
  return {
    mode: 'list',
    scripts: [],
    epoch: () => 0,
    plan: (lo, hi) => [...setexCommands(lo, hi, cfg), ...listCommands(names, lo, hi, cfg)],
    purge: () => [],
  };
}
