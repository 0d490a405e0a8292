/**
 * What a producer run killed before its end (SIGKILL, its host went down) still says: its files
 * stand as they were after its last whole second, and its summary is made from them by the same
 * summarize() a finished run's came from (report/read/stopped-run.js reads the files). Its share
 * after that second is missing, and the summary says who stopped, where and when.
 */
import path from 'node:path';
import { summarize } from './produce-summary.js';

/**
 * The stopped run's summary.json, as its own end would have written it for the seconds it has.
 * @param {Parameters<import('../run-kind.js').StoppedReading['summarize']>[0]} p
 */
export function stoppedSummary({ dir, manifest, rows, totals, fromSecond, toSecond, idRange }) {
  // the run's counts: its seconds, as mergeTimelines summed them
  /** @type {Record<string, number>} */
  const totalCounts = { intended: 0 };
  for (const row of rows) {
    totalCounts.intended += row.intended;
    for (const [k, v] of Object.entries(row.counters)) totalCounts[k] = (totalCounts[k] ?? 0) + v;
  }
  // sent but neither acknowledged nor failed by its last second: in flight when it was killed
  totalCounts.unacked = Math.max(0, (totalCounts.sent ?? 0) - (totalCounts.acked ?? 0) - (totalCounts.failed ?? 0));
  // acknowledged items by the second they were due in are the run's end's to write: by the second
  // the reply came is the nearest the timeline has (they differ by a reply's latency at the edges)
  const ackedInWindow = rows.filter((r) => r.index >= fromSecond && r.index < toSecond).reduce((n, r) => n + (r.counters.acked ?? 0), 0);
  const flags = manifest.flags;
  const writers = manifest.writers?.length ? manifest.writers : [flags.writer ?? 1];
  // the items per period of the writers this directory ran: their share of -q
  const perPeriod = writers.reduce((n, a) => n + idRange(flags.quantity, flags.writers ?? writers.length, a).count, 0);
  const targetRate = (perPeriod * 1000) / flags.period;
  const summary = summarize({
    rows,
    totals,
    ackedInWindow,
    warmupS: fromSecond,
    durationS: toSecond,
    targetRate,
    writers: writers.length,
    totalCounts,
    errorKinds: {},
  });
  const name = path.basename(path.resolve(dir)).replace(/^\d{8}-\d{6}-/, '');
  return Object.assign(summary, {
    name,
    mode: manifest.mode ?? 'zset',
    sentBy: flags.client ?? 'rqbench',
    interrupted: false,
    writerErrors: [],
    itemsPerWriterPerSecTarget: targetRate / writers.length,
  });
}

/**
 * The stopped run in words, for the outcome and the merged summary.
 * @param {import('../common/merging.js').Stopped} s
 */
export function stoppedWords(s) {
  const writers = s.writers ?? [];
  const who = `writer${writers.length === 1 ? '' : 's'} ${writers.join(', ') || '?'}${s.host ? ` on host ${s.host}` : ''}`;
  if (s.unsaved)
    return `${who} ran to second ${s.second}, but its summary is missing (${s.unsaved}); its counts up to second ${s.second - 1} are read from timeline.csv and its .hlog files`;
  return `${who} stopped in second ${s.second} (no summary.json: the process was killed or its host went down); its counts up to second ${s.lastSecond} are included, its share after that is missing`;
}
