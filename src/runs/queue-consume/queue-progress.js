/**
 * "Nothing lost?" over several consumers of one queue: every publisher's sequence numbers as the
 * consumers' summaries saw them, put together. Each summary holds counts, not the numbers
 * themselves, so what can be said exactly depends on where the consumers kept them:
 * - `--cache redis`: in Redis bitmaps shared by every consumer of that cache, so each summary
 *   already counts what all of them applied by the time it ended; the latest view (the most
 *   received) is the whole picture, and adding them would count messages twice;
 * - `--cache memory`: each consumer knows only its own, so the received counts add up. A message
 *   applied by two consumers (delivered again after the visibility timeout) is then counted twice,
 *   so "missing" can read low: the report says so.
 */

/**
 * @typedef {{ publisher: string, received: number, duplicates: number, last: number|null, highest: number, missing: number|null, missingSample: number[] }} PublisherProgress what the consumers' caches applied of one publisher's messages
 */

const SHARED = 'each consumer counted every consumer of its Redis cache (shared bitmaps): the latest count is taken, none added';
const SEPARATE =
  'each consumer counted only what it applied itself (--cache memory): the received counts are added, so a message applied by two consumers counts twice and Missing can read low';

/**
 * @param {Array<Record<string, any>>} sums the consumers' summary.json
 * @returns {{ publishers: PublisherProgress[], note: string }}
 */
export function mergePublishers(sums) {
  const shared = sums.every((s) => s.cache === 'redis');
  /** @type {Map<string, PublisherProgress>} */
  const by = new Map();
  for (const s of sums) {
    for (const p of s.publishers) {
      const had = by.get(p.publisher);
      if (!had) by.set(p.publisher, { ...p, missingSample: [...(p.missingSample ?? [])] });
      else by.set(p.publisher, shared ? latest(had, p) : added(had, p));
    }
  }
  const publishers = [...by.values()].map((p) => {
    // seq starts at 1 and none is above the last (or, before the last arrived, the highest seen)
    if (shared) return p;
    const upTo = p.last ?? p.highest ?? 0;
    return { ...p, missing: Math.max(0, upTo - p.received) };
  });
  return { publishers, note: shared ? SHARED : SEPARATE };
}

/** @param {PublisherProgress} a @param {PublisherProgress} b */
function latest(a, b) {
  return b.received > a.received ? { ...b } : a;
}

/** @param {PublisherProgress} a @param {PublisherProgress} b */
function added(a, b) {
  return {
    publisher: a.publisher,
    received: a.received + b.received,
    duplicates: a.duplicates + b.duplicates,
    last: a.last ?? b.last,
    highest: Math.max(a.highest ?? 0, b.highest ?? 0),
    missing: 0,
    // a sequence number one consumer lacks may be another's: no sample can be named
    missingSample: [],
  };
}

/**
 * The verdict's figures, as a consumer's own summary has them (queue-consumer-summary.js).
 * @param {PublisherProgress[]} publishers
 * @param {Record<string, number>} countsAll summed over the consumers
 */
export function nothingLostOf(publishers, countsAll) {
  const missing = publishers.reduce((n, p) => n + (p.missing ?? 0), 0);
  const unfinished = publishers.filter((p) => p.last === null).map((p) => p.publisher);
  return {
    publishers: publishers.length,
    missing,
    duplicates: countsAll.duplicates ?? 0,
    malformed: countsAll.malformed ?? 0,
    malformedMessages: countsAll.malformedMessages ?? 0,
    unidentified: countsAll.unidentified ?? 0,
    complete: missing === 0 && unfinished.length === 0 && publishers.length > 0,
    unfinished,
    ok: publishers.length > 0 && missing === 0 && unfinished.length === 0 && !countsAll.malformed,
  };
}
