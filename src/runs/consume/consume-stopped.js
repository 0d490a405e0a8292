/**
 * What a consumer run killed before its end, or whose final save failed, still says: its seconds
 * up to its last whole one (timeline.csv and its .hlog files, both appended every second) are
 * summarized by the same summarizeConsumer() its end would have used. What only its end knew is
 * not there, and the summary does not pretend it is: the item keys' TTL read back after the run
 * (missing values are explained by --ttl alone), the connections its readers lost (their events
 * are on the timeline), the kinds of its errors, and whether its model counts unique items.
 */
import path from 'node:path';
import { readFromOf, summarizeConsumer } from './consumer-summary.js';

/**
 * The stopped run's summary.json, as its own end would have written it for the seconds it has.
 * @param {Parameters<import('../run-kind.js').StoppedReading['summarize']>[0]} p
 */
export function stoppedSummary({ dir, manifest, rows, totals, fromSecond, toSecond }) {
  /** @type {Record<string, number>} */
  const totalCounts = {};
  for (const row of rows)
    for (const [k, v] of Object.entries(row.counters)) if (typeof v === 'number') totalCounts[k] = (totalCounts[k] ?? 0) + v;
  const flags = manifest.flags;
  const readers = Array.isArray(manifest.readers) && manifest.readers.length ? manifest.readers.length : (flags.readers ?? 1);
  // as the run chose it
  const readFrom = readFromOf(flags);
  const limit = flags.limit ?? 0;
  const summary = summarizeConsumer({
    rows,
    totals,
    warmupS: fromSecond,
    durationS: toSecond,
    readers,
    periodMs: flags.period,
    totalCounts,
    errorKinds: {},
    // the timeline does not carry the uniques: unknown, not 0
    measuresUniques: false,
    // in the run's seconds: --time-scale makes the TTLs Redis counts down K times longer
    ttlS: flags.ttl * (flags.timeScale ?? 1),
    limit,
    readFrom,
  });
  const name = path.basename(path.resolve(dir)).replace(/^\d{8}-\d{6}-/, '');
  return Object.assign(summary, {
    name,
    mode: manifest.mode ?? 'zset',
    fetch: flags.fetch ?? 'mget',
    readFrom,
    limit,
    interrupted: false,
    readerErrors: [],
  });
}

/**
 * The stopped run in words, for the outcome and the merged summary.
 * @param {import('../common/merging.js').Stopped} s
 */
export function stoppedWords(s) {
  const readers = s.readers ?? [];
  const who = `reader${readers.length === 1 ? '' : 's'} ${readers.join(', ') || '?'}${s.host ? ` on host ${s.host}` : ''}`;
  if (s.unsaved)
    return `${who} ran to second ${s.second}, but its summary is missing (${s.unsaved}); its cycles up to second ${s.second - 1} are read from timeline.csv and its .hlog files (not the keys' TTL read back after the run, nor its errors' kinds)`;
  return `${who} stopped in second ${s.second} (no summary.json: the process was killed or its host went down); its cycles up to second ${s.lastSecond} are included, what it read after that is missing`;
}
