/**
 * `rqbench kv`'s run directory: a key-value workload's seconds (timeline.csv), its latency per
 * operation (one .hlog each, and `all`), and summary.json with each node's share of the operations
 * and of the CPU. The reports do not read it back yet: its summary.md is its report.
 */
import { rows, of, ofNonEmpty, num } from '../common/timeline-rows.js';

export const KV_ROWS = rows({
  columns: [
    'intended',
    'sent',
    'acked',
    'failed',
    'moved',
    'ask',
    'retries',
    'errors',
    'op_p50_ms',
    'op_p99_ms',
    'lag_p99_ms',
    'inflight_wait_ms',
  ],
  needed: ['intended', 'sent', 'acked', 'failed', 'errors'],
  counted: ['sent', 'acked', 'failed', 'moved', 'ask', 'retries', 'errors'],
  histograms: ['all.intended', 'lag'],
  derived: (iv) => {
    const all = iv.hist.get('all.intended');
    return {
      intended: iv.intended,
      op_p50_ms: ofNonEmpty(all, 'p50'),
      op_p99_ms: ofNonEmpty(all, 'p99'),
      lag_p99_ms: of(iv.hist.get('lag'), 'p99'),
      inflight_wait_ms: Math.round(iv.counters.capWaitMs || 0),
    };
  },
  restore: (row, counters) => ({ intended: num(row.intended), counters: { ...counters, capWaitMs: num(row.inflight_wait_ms) } }),
  disturbedBy: {
    p99Column: 'op_p99_ms',
    countColumns: ['moved', 'ask', 'retries', 'failed', 'errors'],
  },
});

/** @type {import('../run-kind.js').UnreadableKind} */
export const kvRun = {
  name: 'kv',
  words: 'kv',
  readable: false,
  why: 'a kv run (report, compare and chart do not read it back yet: its summary.md and summary.json are its report)',
};
