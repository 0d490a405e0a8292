/**
 * Key naming shared by every data model, the purge and the readers. Names follow the seed:
 * `item:<id>`, `latest-ids`, `latest-ids:<n>` with --ns, `latest-ids:<n>{forced-slot}` with
 * --same-slot.
 */
import calculateSlot from 'cluster-key-slot';
import { settings } from '../../../settings.js';

/**
 * @typedef {object} StoreConfig
 * @property {boolean} cluster
 * @property {number} ttl           seconds
 * @property {number} valueSize     bytes
 * @property {number} ns            index structures the items are split across (>= 1)
 * @property {boolean} sameSlot     force every index structure into one slot
 * @property {number} extraSets     extra copies of each index structure written with it
 * @property {boolean} actualValue  index holds the values themselves, no item keys
 * @property {number} listMax       list length kept by LTRIM (list modes)
 * @property {number} [ttlScale]    --time-scale: the TTLs Redis counts down are ttl x this; cutoffs use ttl on the model's clock
 */

/**
 * Name of index structure n (0-based) of `base`, copy `copy` (0 = the original).
 * @param {string} base
 * @param {StoreConfig} cfg
 * @param {number} n
 * @param {number} [copy]
 * @param {string} [suffix] e.g. ':<minute>' for per-minute structures
 */
export function indexName(base, cfg, n, copy = 0, suffix = '') {
  let name = base;
  if (cfg.ns > 1) name += `:${n}`;
  if (copy > 0) name += `${settings.keys.extraSuffix}${copy}`;
  name += suffix;
  if (cfg.sameSlot) name += settings.keys.forcedSlotTag;
  return name;
}

/**
 * Every name of `base` this configuration writes: ns structures times (1 + extraSets) copies.
 * @param {string} base
 * @param {StoreConfig} cfg
 * @param {string} [suffix]
 * @returns {string[][]} names[n][copy]
 */
export function indexNames(base, cfg, suffix = '') {
  const out = [];
  for (let n = 0; n < cfg.ns; n++) {
    const copies = [];
    for (let c = 0; c <= cfg.extraSets; c++) copies.push(indexName(base, cfg, n, c, suffix));
    out.push(copies);
  }
  return out;
}

/** Which index structure (0-based) item `id` belongs to. */
export function indexOf(id, cfg) {
  return id % cfg.ns;
}

/**
 * Key of item `id`. `tagWith` co-locates the item with an index structure (Lua scripts on a
 * cluster must touch one slot per call).
 * @param {number} id
 * @param {string} [tagWith]
 */
export function itemKey(id, tagWith) {
  if (!tagWith) return `${settings.keys.item}${id}`;
  const open = tagWith.indexOf('{');
  const tag = open >= 0 ? tagWith.slice(open + 1, tagWith.indexOf('}', open)) : tagWith;
  return `${settings.keys.item}{${tag}}:${id}`;
}

/**
 * Cluster slot of a key (0 when not in cluster mode, where slots do not matter).
 * @param {string} key
 * @param {boolean} cluster
 */
export function slotOf(key, cluster) {
  return cluster ? calculateSlot(key) : 0;
}

/** The minute a per-minute structure covers. */
export function minuteOf(ms) {
  return Math.floor(ms / 60_000);
}

/**
 * The store configuration of a run's plan (the producer's or the consumer's).
 * @param {Readonly<Record<string, any>>} plan
 * @returns {StoreConfig}
 */
export function storeConfigOf(plan) {
  return {
    cluster: !!plan.cluster,
    ttl: plan.ttl,
    valueSize: plan.valueSize ?? settings.valueSize,
    ns: plan.ns,
    sameSlot: !!plan.sameSlot,
    extraSets: plan.extraSets ?? 0,
    actualValue: !!plan.actualValue,
    // the consumer has no -q: it only reads lists, never trims them
    // the items live within the TTL, counted in the undilated period (--time-scale keeps them so)
    listMax:
      plan.listMax ??
      (plan.quantity ? Math.max(1, Math.ceil((plan.quantity * plan.ttl * 1000) / (plan.undilated?.period ?? plan.period))) : 0),
    ttlScale: plan.timeScale ?? 1,
  };
}

/**
 * A TTL as Redis counts it down (SETEX, EXPIRE): the model's seconds x --time-scale.
 * @param {number} seconds
 * @param {StoreConfig} cfg
 */
export function redisTtl(seconds, cfg) {
  return Math.round(seconds * (cfg.ttlScale ?? 1));
}
