/**
 * Reading the set-per-minute model (--ss): this minute's set holds the latest items (SMEMBERS);
 * the previous minute's SCARD is the exact unique count, a minute late.
 */
import { settings } from '../../../settings.js';
import { indexNames, minuteOf } from './keys.js';

/** @param {import('./keys.js').StoreConfig} cfg */
export function createSetReadModel(cfg) {
  const namesAt = (minute) => indexNames(settings.keys.set, cfg, `:${minute}`).map((c) => c[0]);
  return {
    mode: 'set-per-minute',
    names: [`${settings.keys.set}:<minute>`],
    membersAreValues: cfg.actualValue,
    scripts: [],

    /** @param {import('./contract.js').ReadIO} io */
    async cardinality(io, nowMs) {
      const minute = minuteOf(nowMs);
      const card = async (names) => (await Promise.all(names.map((n) => io.call(n, ['SCARD', n])))).reduce((a, b) => a + Number(b), 0);
      const [count, uniques] = await Promise.all([card(namesAt(minute)), card(namesAt(minute - 1))]);
      return { count, uniques, newest: null };
    },

    /** @param {import('./contract.js').ReadIO} io */
    async range(io, _cutoff, limit, nowMs) {
      const names = namesAt(minuteOf(nowMs));
      const parts = await Promise.all(names.map((n) => io.call(n, ['SMEMBERS', n])));
      return limit ? parts.flat().slice(0, limit) : parts.flat();
    },
  };
}
