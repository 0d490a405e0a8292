/**
 * Reading the sorted-set models (zset-ids, zset-values, and the Lua modes, which write the
 * same sets): ZCARD and the newest score, then the live members — all of them
 * (ZRANGEBYSCORE cutoff +inf) or the newest N (ZREVRANGEBYSCORE +inf cutoff LIMIT 0 N).
 */
import { settings } from '../../../settings.js';
import { indexNames } from './keys.js';
import { loadScript } from './lua.js';

/** @param {import('./keys.js').StoreConfig} cfg */
export function createZsetReadModel(cfg) {
  // --extra-sets copies hold the same members: reading the originals reads everything
  const names = indexNames(settings.keys.zset, cfg).map((copies) => copies[0]);
  const script = loadScript('fetch-latest-items');
  return {
    mode: 'zset',
    names,
    membersAreValues: cfg.actualValue,
    scripts: [script],

    /** @param {import('./contract.js').ReadIO} io */
    async cardinality(io) {
      const per = await Promise.all(
        names.map(async (name) => {
          const [card, top] = await Promise.all([io.call(name, ['ZCARD', name]), io.call(name, ['ZREVRANGE', name, 0, 0, 'WITHSCORES'])]);
          return { card: Number(card), newest: top.length ? Number(top[1]) : null };
        }),
      );
      return { count: sum(per.map((p) => p.card)), newest: newestOf(per.map((p) => p.newest)) };
    },

    /**
     * @param {import('./contract.js').ReadIO} io
     * @param {number} cutoff oldest live score
     * @param {number} limit 0: every live member
     */
    async range(io, cutoff, limit) {
      if (!limit) {
        const parts = await Promise.all(names.map((name) => io.call(name, ['ZRANGEBYSCORE', name, cutoff, '+inf'])));
        return parts.length === 1 ? parts[0] : parts.flat();
      }
      if (names.length === 1) return io.call(names[0], ['ZREVRANGEBYSCORE', names[0], '+inf', cutoff, 'LIMIT', 0, limit]);
      // the newest N across several sets: N from each, merged by score
      const parts = await Promise.all(
        names.map((name) => io.call(name, ['ZREVRANGEBYSCORE', name, '+inf', cutoff, 'WITHSCORES', 'LIMIT', 0, limit])),
      );
      return newestAcross(parts, limit);
    },

    /**
     * The range as commands whose replies, concatenated, are exactly what range() returns (the
     * consumer scans them in place), or null when the members need merging by score.
     * @param {number} cutoff
     * @param {number} limit
     */
    rangeCommands(cutoff, limit) {
      if (!limit) return names.map((name) => ({ key: name, args: ['ZRANGEBYSCORE', name, cutoff, '+inf'] }));
      if (names.length === 1) return [{ key: names[0], args: ['ZREVRANGEBYSCORE', names[0], '+inf', cutoff, 'LIMIT', 0, limit] }];
      return null;
    },

    /**
     * -s script: cardinality, newest score and members in one call per set.
     * @param {import('./contract.js').ReadIO} io
     */
    async viaScript(io, cutoff, limit) {
      const per = await Promise.all(names.map((name) => io.call(name, ['EVALSHA', script.sha, 1, name, cutoff, limit])));
      const members = limit
        ? newestAcross(
            per.map((p) => p[2]),
            limit,
          )
        : per.map((p) => p[2]).flat();
      return {
        count: sum(per.map((p) => Number(p[0]))),
        newest: newestOf(per.map((p) => (p[1] ? Number(p[1]) : null))),
        members,
      };
    },
  };
}

function sum(xs) {
  return xs.reduce((a, b) => a + b, 0);
}

function newestOf(scores) {
  const known = scores.filter((s) => s !== null);
  return known.length ? Math.max(...known) : null;
}

/** Merges [member, score, member, score, …] lists, newest first, and keeps `limit`. */
function newestAcross(parts, limit) {
  const all = [];
  for (const p of parts) for (let i = 0; i < p.length; i += 2) all.push([p[i], Number(p[i + 1])]);
  all.sort((x, y) => y[1] - x[1]);
  return all.slice(0, limit).map((x) => x[0]);
}
