/**
 * --stream: a Redis Stream as the time-ordered index. Each item is one entry
 * (`XADD latest-stream * m <item key or value>`; the server's clock gives its ID, so several
 * writers never collide), items in SETEX keys as in the baseline (none with --actual-value).
 * The stream is trimmed to the TTL window with `XTRIM latest-stream MINID ~ <now - ttl>` every
 * purge period: XADD's own `MINID ~` option would put a cutoff that changes every second into
 * commands the writer encodes once and re-sends, so the trim rides with the purge instead, as
 * the sorted set's ZREMRANGEBYSCORE does. `~` lets Redis trim whole macro nodes only, so XLEN
 * (the cardinality) can count a few entries past the window, as ZCARD counts unpurged members.
 * Reads: XLEN and the newest entry's ID for the count and staleness; the live entries with
 * `XRANGE <cutoff> +`, the newest N with `XREVRANGE + <cutoff> COUNT N`. Entry IDs are the
 * server's milliseconds, so the cutoff assumes the consumer's clock agrees with Redis's.
 */
import { indexNames } from '../keys.js';
import { cmd, idsByIndex, keyCommand, member, setexCommands, setexReadBack } from '../common.js';

/** Key base of the streams (`latest-stream`, `latest-stream:<n>` with --ns). */
const STREAM = 'latest-stream';
/** The entry field holding the member. */
const FIELD = 'm';

/**
 * One XADD per item into its stream (and each --extra-sets copy).
 * @param {string[][]} names names[n][copy]
 * @param {number} lo
 * @param {number} hi
 * @param {import('../keys.js').StoreConfig} cfg
 */
function xaddCommands(names, lo, hi, cfg) {
  const out = [];
  idsByIndex(lo, hi, cfg).forEach((ids, n) => {
    for (const id of ids) {
      const m = member(id, cfg);
      for (const name of names[n]) out.push(cmd(['XADD', name, '*', FIELD, m], name, 'xadd', [id], cfg));
    }
  });
  return out;
}

/** Milliseconds of a stream entry ID (`<ms>-<seq>`). */
const msOf = (id) => Number(String(id).slice(0, String(id).indexOf('-')));

/** The member of each entry of an XRANGE/XREVRANGE reply ([[id, [field, value]], …]). */
const membersOf = (entries) => entries.map((e) => e[1][1]);

/**
 * @param {import('../keys.js').StoreConfig} cfg
 * @returns {import('../contract.js').ReadModel}
 */
function streamReader(cfg) {
  // --extra-sets copies hold the same entries: reading the originals reads everything
  const names = indexNames(STREAM, cfg).map((copies) => copies[0]);
  return {
    mode: 'stream',
    names,
    membersAreValues: cfg.actualValue,
    scripts: [],

    async cardinality(io) {
      const per = await Promise.all(
        names.map(async (name) => {
          const [len, top] = await Promise.all([io.call(name, ['XLEN', name]), io.call(name, ['XREVRANGE', name, '+', '-', 'COUNT', 1])]);
          return { len: Number(len), newest: top.length ? msOf(top[0][0]) : null };
        }),
      );
      const known = per.map((p) => p.newest).filter((x) => x !== null);
      return { count: per.reduce((s, p) => s + p.len, 0), newest: known.length ? Math.max(...known) : null };
    },

    async range(io, cutoff, limit) {
      if (!limit) return (await Promise.all(names.map((name) => io.call(name, ['XRANGE', name, cutoff, '+'])))).flatMap(membersOf);
      const parts = await Promise.all(names.map((name) => io.call(name, ['XREVRANGE', name, '+', cutoff, 'COUNT', limit])));
      if (parts.length === 1) return membersOf(parts[0]);
      // the newest N across several streams: N from each, merged by entry time
      return parts
        .flat()
        .sort((x, y) => msOf(y[0]) - msOf(x[0]))
        .slice(0, limit)
        .map((e) => e[1][1]);
    },
  };
}

/** @type {import('../contract.js').StoreModel} */
export default {
  name: 'stream',
  order: 7,
  summary: 'one stream entry per item (XADD; XTRIM MINID ~ each purge), values in SETEX keys',
  flag: {
    name: 'stream',
    describe:
      'a Redis Stream (one XADD per item; a separate XTRIM MINID ~ every purge period keeps it to the TTL) instead of the sorted set',
  },
  can: { actualValue: true, extraSets: true, script: false, uniques: false },
  why: { script: 'the script reads a sorted set' },
  write(cfg) {
    const names = indexNames(STREAM, cfg);
    const streams = names.flat();
    return {
      mode: cfg.actualValue ? 'stream-values' : 'stream',
      scripts: [],
      epoch: () => 0,
      plan: (lo, hi) => [...setexCommands(lo, hi, cfg), ...xaddCommands(names, lo, hi, cfg)],
      purge: (nowMs) => streams.map((name) => keyCommand(['XTRIM', name, 'MINID', '~', Math.floor(nowMs - cfg.ttl * 1000)], 'purge', cfg)),
    };
  },
  read: streamReader,
  readBack: setexReadBack,
};
