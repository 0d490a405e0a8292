/** Lua scripts of scripts/lua/, read once, addressed by SHA1 (EVALSHA); the Lua stores' shared shape. */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { settings } from '../../../settings.js';
import { indexNames, indexOf, itemKey } from './keys.js';
import { zsetPurge } from './common.js';

const dir = fileURLToPath(new URL('../../../../scripts/lua/', import.meta.url));

/**
 * @param {string} name file name without .lua
 * @returns {{ name: string, lua: string, sha: string }}
 */
export function loadScript(name) {
  const lua = readFileSync(`${dir}${name}.lua`, 'utf8');
  return { name, lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * Item key as the Lua modes write it: on a cluster it carries its sorted set's hash tag, so
 * every script call touches one slot.
 */
export function luaItemKey(id, zset, cfg) {
  return cfg.cluster ? itemKey(id, zset) : itemKey(id);
}

/**
 * A store whose writes are EVALSHA calls of one script into the --ns sorted sets.
 * @param {import('./keys.js').StoreConfig} cfg
 * @param {string} mode store mode name
 * @param {string} scriptName
 * @param {(ctx: { script: object, zsets: string[], mode: 'ref'|'value' }, lo: number, hi: number) => import('./common.js').Cmd[]} plan
 */
export function createLuaStore(cfg, mode, scriptName, plan) {
  const script = loadScript(scriptName);
  const zsets = indexNames(settings.keys.zset, cfg).map((copies) => copies[0]);
  /** @type {Parameters<typeof plan>[0]} */
  const ctx = { script, zsets, mode: cfg.actualValue ? 'value' : 'ref' };
  return {
    mode,
    scripts: [script],
    epoch: () => 0,
    plan: (lo, hi) => plan(ctx, lo, hi),
    purge: (nowMs) => zsetPurge(zsets, cfg, nowMs),
  };
}

/** Why the Lua models refuse a flag (the error says it). */
export const LUA_WHY = { extraSets: 'the Lua scripts write one sorted set' };

/**
 * What --verify reads back for the Lua models: the item keys as the scripts wrote them.
 * @param {import('./keys.js').StoreConfig} cfg
 */
export function luaReadBack(cfg) {
  if (cfg.actualValue) return null;
  const zsets = indexNames(settings.keys.zset, cfg).map((copies) => copies[0]);
  return { keyOf: (id) => luaItemKey(id, zsets[indexOf(id, cfg)], cfg) };
}
