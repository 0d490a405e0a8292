/**
 * What each command's timeline rows hold between `time` and the client's columns: how a merged
 * second fills them (rowOf), and what a row gives back (countsOf), so that `rqbench report` can
 * merge timelines written by separate processes with the same code that wrote them.
 */
import { stats } from '../measure/histogram.js';

/**
 * @typedef {object} TimelineRows
 * @property {string[]} columns
 * @property {string[]} histograms the per-second histograms rowOf reads
 * @property {(iv: { intended: number, counters: Record<string, number>, hist: Map<string, import('hdr-histogram-js').Histogram> }) => Record<string, number|null>} rowOf
 * @property {(row: Record<string, number|string|null>) => { intended: number, counters: Record<string, number> }} countsOf
 * @property {{ p99Column: string, countColumns: string[], ackedColumn?: string }} disturbedBy what marks a second
 *   as disturbed (results/disturbance.js), besides acknowledgements by the second they were due in
 */

const of = (h, q) => (h ? stats(h)[q] : null);
const ofNonEmpty = (h, q) => (h?.totalCount ? stats(h)[q] : null);
const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * @param {object} p
 * @param {string[]} p.columns in file order
 * @param {string[]} p.counted columns that are a counter of the same name, summed over the second
 * @param {string[]} p.histograms
 * @param {(iv: any) => Record<string, number|null>} p.derived the other columns
 * @param {(row: Record<string, any>, counters: Record<string, number>) => { intended: number, counters: Record<string, number> }} p.restore
 *   what the other columns give back
 * @param {TimelineRows['disturbedBy']} p.disturbedBy
 * @returns {TimelineRows}
 */
function rows({ columns, counted, histograms, derived, restore, disturbedBy }) {
  return {
    columns,
    histograms,
    disturbedBy,
    rowOf(iv) {
      const row = derived(iv);
      for (const k of counted) row[k] = iv.counters[k];
      return row;
    },
    countsOf(row) {
      /** @type {Record<string, number>} */
      const counters = {};
      for (const k of counted) counters[k] = num(row[k]);
      return restore(row, counters);
    },
  };
}

export const PRODUCER_ROWS = rows({
  columns: ['intended', 'sent', 'acked', 'failed', 'moved', 'ask', 'retries', 'tryagain', 'clusterdown', 'conn_retries', 'errors', 'batch_p50_ms', 'batch_p99_ms', 'lag_p99_ms', 'inflight_wait_ms'],
  counted: ['sent', 'acked', 'failed', 'moved', 'ask', 'retries', 'tryagain', 'clusterdown', 'errors'],
  histograms: ['batch.intended', 'lag'],
  derived: (iv) => {
    const b = iv.hist.get('batch.intended');
    return {
      intended: iv.intended, batch_p50_ms: ofNonEmpty(b, 'p50'), batch_p99_ms: ofNonEmpty(b, 'p99'),
      lag_p99_ms: of(iv.hist.get('lag'), 'p99'), inflight_wait_ms: Math.round(iv.counters.capWaitMs || 0),
      conn_retries: iv.counters.connRetries,
    };
  },
  restore: (row, counters) => ({ intended: num(row.intended), counters: { ...counters, connRetries: num(row.conn_retries), capWaitMs: num(row.inflight_wait_ms) } }),
  disturbedBy: { p99Column: 'batch_p99_ms', countColumns: ['moved', 'ask', 'retries', 'tryagain', 'clusterdown', 'conn_retries', 'failed', 'errors'], ackedColumn: 'acked' },
});

export const CONSUMER_ROWS = rows({
  columns: ['cycles', 'failed_cycles', 'empty_cycles', 'overruns', 'cardinality_avg', 'items', 'fetched', 'missing', 'duplicates', 'mismatched', 'errors', 'replica_fallbacks', 'cycle_p50_ms', 'cycle_p99_ms', 'staleness_p99_ms'],
  counted: ['cycles', 'overruns', 'items', 'fetched', 'missing', 'duplicates', 'mismatched', 'errors'],
  histograms: ['cycle.sent', 'staleness.sent'],
  derived: (iv) => {
    const c = iv.counters;
    const cycle = iv.hist.get('cycle.sent');
    return {
      failed_cycles: c.failedCycles ?? 0, empty_cycles: c.emptyCycles ?? 0, replica_fallbacks: c.replicaFallbacks ?? 0,
      cardinality_avg: c.cycles ? Math.round(c.cardinality / c.cycles) : null,
      cycle_p50_ms: of(cycle, 'p50'), cycle_p99_ms: of(cycle, 'p99'), staleness_p99_ms: of(iv.hist.get('staleness.sent'), 'p99'),
    };
  },
  // the row keeps the average; the sum comes back to within rounding (summary.json has it exactly)
  restore: (row, counters) => ({
    intended: 0,
    counters: {
      ...counters, failedCycles: num(row.failed_cycles), emptyCycles: num(row.empty_cycles), replicaFallbacks: num(row.replica_fallbacks),
      cardinality: num(row.cardinality_avg) * counters.cycles,
    },
  }),
  // overruns are not a disturbance: a consumer whose cycles are longer than its period overruns every second;
  // reads moved off a replica that stopped answering are (replica_fallbacks: reads sent to a stand-in)
  disturbedBy: { p99Column: 'cycle_p99_ms', countColumns: ['errors', 'failed_cycles', 'replica_fallbacks'] },
});

// Queue runs (workloads/queue-updates/run-queue-publisher.js and run-queue-consumer.js write these columns): every count
// is a counter of the second, so rows add up across runs exactly (`updates` too, whatever each
// publisher's batch size); the percentile columns come from the second's histograms added up.

export const QUEUE_PUBLISH_ROWS = rows({
  columns: ['intended', 'sent', 'acked', 'failed', 'unanswered', 'updates', 'bytes', 'publish_p50_ms', 'publish_p99_ms', 'lag_p99_ms'],
  counted: ['sent', 'acked', 'failed', 'unanswered', 'updates', 'bytes'],
  histograms: ['publish.intended', 'lag'],
  derived: (iv) => {
    const p = iv.hist.get('publish.intended');
    return { intended: iv.intended, publish_p50_ms: of(p, 'p50'), publish_p99_ms: of(p, 'p99'), lag_p99_ms: of(iv.hist.get('lag'), 'p99') };
  },
  restore: (row, counters) => ({ intended: num(row.intended), counters }),
  disturbedBy: { p99Column: 'publish_p99_ms', countColumns: ['failed', 'unanswered'], ackedColumn: 'acked' },
});

export const QUEUE_CONSUME_ROWS = rows({
  columns: ['messages', 'receives', 'rows', 'bytes', 'duplicates', 'malformed', 'e2e_p50_ms', 'e2e_p99_ms', 'e2e_sent_p50_ms', 'e2e_sent_p99_ms'],
  counted: ['messages', 'receives', 'rows', 'bytes', 'duplicates', 'malformed'],
  histograms: ['e2e.intended', 'e2e.sent'],
  derived: (iv) => {
    const e2e = iv.hist.get('e2e.intended');
    const sent = iv.hist.get('e2e.sent');
    return { e2e_p50_ms: of(e2e, 'p50'), e2e_p99_ms: of(e2e, 'p99'), e2e_sent_p50_ms: of(sent, 'p50'), e2e_sent_p99_ms: of(sent, 'p99') };
  },
  restore: (row, counters) => ({ intended: 0, counters }),
  disturbedBy: { p99Column: 'e2e_p99_ms', countColumns: ['malformed'] },
});

/** Rows by kind of run (results/run-kind.js). */
export const ROWS_OF = { produce: PRODUCER_ROWS, consume: CONSUMER_ROWS, 'queue-publish': QUEUE_PUBLISH_ROWS, 'queue-consume': QUEUE_CONSUME_ROWS };
