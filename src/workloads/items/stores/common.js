/**
 * Command builders shared by the data models. A command is what the writer sends:
 * `{ slot, tpl, kind, ids }` — the slot routes it, tpl holds its bytes (with score slots),
 * kind names its histogram, ids are the items it carries (for failure accounting).
 */
import { encodeTemplate, encodeCommand, SCORE } from '../../../transports/resp.js';
import { payload } from './payload.js';
import { indexNames, indexOf, itemKey, minuteOf, redisTtl, slotOf } from './keys.js';
import { settings } from '../../../settings.js';

/**
 * @typedef {object} Cmd
 * @property {string} key   the key that routes it
 * @property {number} slot
 * @property {{ buf: Buffer, scoreOffsets: number[] }} tpl
 * @property {string} kind
 * @property {number[]} ids
 */

/**
 * @param {Array<string|number|Buffer|symbol>} args
 * @param {string} routeKey
 * @param {string} kind
 * @param {number[]} ids
 * @param {import('./keys.js').StoreConfig} cfg
 * @returns {Cmd}
 */
export function cmd(args, routeKey, kind, ids, cfg) {
  return { key: routeKey, slot: slotOf(routeKey, cfg.cluster), tpl: encodeTemplate(args), kind, ids };
}

/** Ids lo..hi grouped by the index structure they belong to. */
export function idsByIndex(lo, hi, cfg) {
  const groups = Array.from({ length: cfg.ns }, () => []);
  for (let id = lo; id <= hi; id++) groups[indexOf(id, cfg)].push(id);
  return groups;
}

/** What an index structure holds for item `id`: its key name, or the value itself. */
export function member(id, cfg) {
  return cfg.actualValue ? payload(id, cfg.valueSize) : itemKey(id);
}

/** SETEX of every item lo..hi (nothing in actual-value mode, where the index holds the values). */
export function setexCommands(lo, hi, cfg) {
  if (cfg.actualValue) return [];
  const out = [];
  for (let id = lo; id <= hi; id++) {
    const key = itemKey(id);
    out.push(cmd(['SETEX', key, redisTtl(cfg.ttl, cfg), payload(id, cfg.valueSize)], key, 'setex', [id], cfg));
  }
  return out;
}

/**
 * One command per index structure (and copy) adding that structure's share of lo..hi.
 * @param {string} verb e.g. 'ZADD', 'LPUSH', 'SADD', 'PFADD'
 * @param {string[][]} names names[n][copy]
 * @param {boolean} scored members are preceded by the send-time score (ZADD)
 */
export function indexCommands(verb, names, lo, hi, cfg, scored) {
  const out = [];
  const groups = idsByIndex(lo, hi, cfg);
  for (let n = 0; n < groups.length; n++) {
    const ids = groups[n];
    if (ids.length === 0) continue;
    const members = [];
    for (const id of ids) {
      if (scored) members.push(SCORE);
      members.push(member(id, cfg));
    }
    for (const name of names[n]) out.push(cmd([verb, name, ...members], name, verb.toLowerCase(), ids, cfg));
  }
  return out;
}

/**
 * A command on a structure that carries no items (LTRIM, EXPIRE, purges).
 * @param {Array<string|number>} args args[1] is the key
 */
export function keyCommand(args, kind, cfg) {
  return cmd(args, String(args[1]), kind, [], cfg);
}

/** ZREMRANGEBYSCORE of every member older than the TTL window, for each sorted set. */
export function zsetPurge(zsets, cfg, nowMs) {
  const cutoff = Math.floor(nowMs - cfg.ttl * 1000);
  return zsets.map((name) => keyCommand(['ZREMRANGEBYSCORE', name, '-inf', cutoff], 'purge', cfg));
}

/**
 * List commands for lo..hi: LPUSH of the members, then LTRIM of every list touched.
 * @param {string[][]} names
 * @param {number} lo
 * @param {number} hi
 * @param {import('./keys.js').StoreConfig} cfg
 */
export function listCommands(names, lo, hi, cfg) {
  const pushes = indexCommands('LPUSH', names, lo, hi, cfg, false);
  const trims = pushes.map((p) => keyCommand(['LTRIM', p.key, 0, cfg.listMax - 1], 'ltrim', cfg));
  return [...pushes, ...trims];
}

/**
 * Adds lo..hi to this minute's structures and keeps them alive for perMinuteTtlSeconds.
 * @param {string} verb 'PFADD' or 'SADD'
 * @param {string} base key base name
 * @param {number} lo
 * @param {number} hi
 * @param {import('./keys.js').StoreConfig} cfg
 * @param {number} nowMs
 */
export function perMinuteCommands(verb, base, lo, hi, cfg, nowMs) {
  const names = indexNames(base, cfg, `:${minuteOf(nowMs)}`);
  const adds = indexCommands(verb, names, lo, hi, cfg, false);
  const ttl = redisTtl(settings.perMinuteTtlSeconds, cfg);
  return [...adds, ...adds.map((a) => keyCommand(['EXPIRE', a.key, ttl], 'expire', cfg))];
}

/**
 * What --verify reads back for a model that keeps its items in SETEX keys (`item:<id>`): those
 * keys, or nothing with --actual-value, where the index holds the values.
 * @param {import('./keys.js').StoreConfig} cfg
 */
export function setexReadBack(cfg) {
  return cfg.actualValue ? null : { keyOf: (id) => itemKey(id) };
}

export { encodeCommand };
