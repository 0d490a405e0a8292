/**
 * The summary of merged queue runs (several publishers, or several consumers of one queue or
 * subscription), in the shape each run's own summary.json has, so one run reported alone reads
 * like its own summary.md and N runs read like one: latency from the .hlog histograms added up
 * over the window (merge-runs.js), counts summed, rates added (publishers) or taken over the span
 * in which any consumer applied messages.
 */
import { stats } from '../measure/histogram.js';
import { commonSummary } from './summary.js';
import { mergeHistograms, oneOf, sumRecords } from './merge-runs.js';
import { QUEUE_HISTOGRAMS } from './run-kind.js';
import { mergePublishers, nothingLostOf } from './queue-progress.js';

/** @typedef {import('./merge-runs.js').MergedRuns} MergedRuns */

/**
 * @param {MergedRuns} m of kind queue-publish or queue-consume
 * @returns {Record<string, any>}
 */
export function summarizeQueue(m) {
  const { runs, rows, warmupS, durationS } = m;
  const sums = runs.map((r) => r.summary);
  // only the files the summary has fields for (not e2e_publisher.hlog)
  const totals = mergeHistograms(runs, { fromSec: warmupS, toSec: durationS, ops: [...new Set(QUEUE_HISTOGRAMS[m.kind].map(([, op]) => op))] });
  // the load generators' CPU, memory and event-loop delay over the window, as Redis reports have them
  const { client } = commonSummary({ rows, totals: new Map(), warmupS, durationS });
  const one = runs.length === 1;
  const toS = Math.max(...sums.map((s) => s.window.toS ?? s.window.toSecond));
  const common = {
    name: sums[0].name, target: oneOf(sums.map((s) => s.target)), interrupted: sums.find((s) => s.interrupted)?.interrupted ?? false,
    stoppedBy: one ? sums[0].stoppedBy ?? null : null,
    // one run keeps its own window (toS may end inside a second); runs merged span the longest
    window: one && sums[0].window.fromS !== undefined ? sums[0].window : { fromS: warmupS, toS, seconds: Math.max(0, toS - warmupS) },
    durationS: Math.max(...sums.map((s) => s.durationS)),
    client,
  };
  /** @type {Record<string, any>} */
  const latency = {};
  for (const [field, op, tag] of QUEUE_HISTOGRAMS[m.kind]) {
    const h = totals.get(op === tag ? op : `${op}.${tag}`);
    setPath(latency, field, h?.totalCount ? stats(h) : null);
  }
  return m.kind === 'queue-publish' ? publishers(sums, common, latency) : consumers(sums, common, latency.latency, one);
}

/**
 * Publishers side by side: their schedules add up (rates, messages), their latencies merge.
 * @param {Array<Record<string, any>>} sums
 * @param {Record<string, any>} common
 * @param {Record<string, any>} latency publish.intended, publish.sent, lag
 */
function publishers(sums, common, latency) {
  // each publisher's achieved rate over its own window: concurrent publishers' rates add
  const rateOf = (s, n) => (s.window.seconds > 0 ? n / s.window.seconds : 0);
  return {
    ...common, kind: 'publisher', publisherId: sums.map((s) => s.publisherId).join(', '),
    rate: sum(sums, (s) => s.rate), batchSize: oneOf(sums.map((s) => s.batchSize)), keySize: oneOf(sums.map((s) => s.keySize)), valueSize: oneOf(sums.map((s) => s.valueSize)),
    messages: { ...sumRecords(sums.map((s) => s.messages)), planned: sums.every((s) => typeof s.messages.planned === 'number') ? sum(sums, (s) => s.messages.planned) : null },
    inWindow: sumRecords(sums.map((s) => s.inWindow)),
    achievedMessagesPerSec: sum(sums, (s) => rateOf(s, s.inWindow.acked)),
    updatesPerSec: sum(sums, (s) => rateOf(s, s.inWindow.acked * s.batchSize)),
    bytes: sum(sums, (s) => s.bytes),
    publish: latency.publish, lag: latency.lag,
    lastError: sums.map((s) => s.lastError).filter(Boolean).at(-1) ?? null,
  };
}

/**
 * Consumers of one queue: what each applied adds up; the rates are over the span from the first
 * message any of them applied to the last (each run's own span, when a run has no `active`).
 * @param {Array<Record<string, any>>} sums
 * @param {Record<string, any>} common
 * @param {Record<string, any>} latency read, processing, e2e, e2eSent, e2eCloud
 * @param {boolean} one a run reported alone keeps its own rates and its own word on what was lost
 */
function consumers(sums, common, latency, one) {
  const counts = sumRecords(sums.map((s) => s.counts));
  const countsAll = sumRecords(sums.map((s) => s.countsAll));
  const spans = sums.map((s) => s.active).filter(Boolean);
  let activeS = one ? sums[0].activeS : null;
  if (!one && spans.length) activeS = Math.max(1, (Math.max(...spans.map((x) => x.toMs)) - Math.min(...spans.map((x) => x.fromMs))) / 1000);
  // runs from before `active` was written: the longest of their spans (consumers of one queue run side by side)
  if (!one && spans.length < sums.filter((s) => s.activeS).length) activeS = Math.max(activeS ?? 0, ...sums.map((s) => s.activeS ?? 0));
  const rate = (n) => (activeS ? n / activeS : null);
  const merged = one ? { publishers: sums[0].publishers, nothingLost: sums[0].nothingLost, ok: sums[0].ok } : mergedProgress(sums, countsAll);
  return {
    ...common, kind: 'consumer', threads: sum(sums, (s) => s.threads), cache: oneOf(sums.map((s) => s.cache)),
    ok: merged.ok, latency, counts, countsAll,
    messagesPerSec: rate(counts.messages), rowsPerSec: rate(counts.rows), bytesPerSec: rate(counts.bytes), activeS,
    active: spans.length ? { fromMs: Math.min(...spans.map((x) => x.fromMs)), toMs: Math.max(...spans.map((x) => x.toMs)) } : null,
    averageBatchSize: counts.messages ? counts.rows / counts.messages : 0,
    publishers: merged.publishers, nothingLost: merged.nothingLost, ...(merged.progressNote && { progressNote: merged.progressNote }),
    errors: { count: sum(sums, (s) => s.errors.count), last: sums.map((s) => s.errors.last).filter(Boolean).at(-1) ?? null },
  };
}

/**
 * Every publisher's sequence numbers over the consumers, and whether anything was lost.
 * @param {Array<Record<string, any>>} sums
 * @param {Record<string, number>} countsAll
 */
function mergedProgress(sums, countsAll) {
  const { publishers: list, note } = mergePublishers(sums);
  const nothingLost = nothingLostOf(list, countsAll);
  return { publishers: list, nothingLost, ok: nothingLost.ok, progressNote: note };
}

function sum(items, f) {
  return items.reduce((a, x) => a + (Number(f(x)) || 0), 0);
}

/** Sets o.a.b = v for field 'a.b'. */
function setPath(o, field, v) {
  const keys = field.split('.');
  const last = keys.pop();
  let at = o;
  for (const k of keys) at = at[k] ??= {};
  at[last] = v;
}
