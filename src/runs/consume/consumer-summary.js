/** A consumer run's summary.json: per-cycle figures, phases, staleness, CPU per node. */
import { commonSummary } from '../common/common-summary.js';
import { costSummary, flowsOf } from '../common/cost-summary.js';
import { round } from '../../record/numbers.js';

/**
 * @typedef {object} KeyTtl the TTL the item keys really have, sampled after the run (workloads/items/key-ttl.js)
 * @property {number} sampled keys asked for (members of the index)
 * @property {number} present of them, keys that were there
 * @property {number} noExpiry of them, keys without a TTL
 * @property {number|null} maxS the largest PTTL seen, in seconds (a lower bound of the TTL the keys were written with); null when none had one
 */

/**
 * Where a consumer's reads go: the replicas on a cluster unless told otherwise (the seed read only
 * from replicas), the master otherwise.
 * @param {{ readFrom?: string|null, cluster?: boolean }} flags
 * @returns {'master'|'replica'}
 */
export function readFromOf(flags) {
  return /** @type {'master'|'replica'} */ (flags.readFrom ?? (flags.cluster ? 'replica' : 'master'));
}

/**
 * @param {object} p
 * @param {import('../../record/run-recorder.js').SecondRow[]} p.rows
 * @param {Map<string, import('hdr-histogram-js').Histogram>} p.totals
 * @param {number} p.warmupS
 * @param {number} p.durationS
 * @param {number} p.readers
 * @param {number} p.periodMs
 * @param {Record<string, number>} p.totalCounts
 * @param {Record<string, number>} p.errorKinds
 * @param {boolean} p.measuresUniques the model counts uniques (a 0 is then a count, not a gap)
 * @param {Record<string, number>} [p.windowCounts] the counters summed over the window, when the
 *   rows do not carry them all (a report merging runs has each run's sums)
 * @param {number} [p.ttlS] --ttl: the read window (items newer than this are read)
 * @param {KeyTtl|null} [p.keyTtl] the TTL the item keys really have (sampled after
 *   the run): whether expiry can explain values gone missing; without it --ttl is taken for it
 * @param {number} [p.limit] --limit (0: every live item)
 * @param {string} [p.readFrom] 'master' or 'replica'
 * @param {null|{ silentS: number }} [p.unreachable] the run stopped because no node answered
 * @param {Array<{ worker: string, node: string, atS: number, reconnectMs: number|null }>} [p.drops] connections the
 *   readers lost (run-workers.js): said whether or not a cycle failed, as a reconnect costs nothing else
 * @param {Map<string, import('../common/cost-summary.js').NodeFlows>} [p.flows] each node's bytes over the
 *   window, when the rows do not carry them (runs merged: one run's, as they read one cluster)
 */
export function summarizeConsumer({
  rows,
  totals,
  warmupS,
  durationS,
  readers,
  periodMs,
  totalCounts,
  errorKinds,
  measuresUniques,
  windowCounts,
  ttlS,
  keyTtl = null,
  limit = 0,
  readFrom,
  unreachable = null,
  drops = [],
  flows,
}) {
  const common = commonSummary({ rows, totals, warmupS, durationS });
  const w = windowCounts ?? {};
  if (!windowCounts)
    for (const r of common.windowRows) for (const [k, v] of Object.entries(r.counters)) if (typeof v === 'number') w[k] = (w[k] || 0) + v;
  const cycles = w.cycles || 0;
  const per = (k) => (cycles ? round((w[k] || 0) / cycles) : null);
  const expected = common.window.seconds * readers * (1000 / periodMs);
  const out = {
    window: common.window,
    readers,
    cycles: {
      count: cycles,
      expected: round(expected),
      overruns: w.overruns || 0,
      failed: w.failedCycles || 0,
      empty: w.emptyCycles || 0,
      perSecond: common.window.seconds ? round(cycles / common.window.seconds) : null,
    },
    perCycle: {
      cardinality: per('cardinality'),
      uniques: measuresUniques ? per('uniques') : null,
      items: per('items'),
      fetched: per('fetched'),
      missing: per('missing'),
      duplicates: per('duplicates'),
      mismatched: per('mismatched'),
    },
    // reads sent to another node of the shard because the replica meant to serve them stopped answering
    replicaFallbacks: w.replicaFallbacks || 0,
    replicaFallbackSeconds: spanOf(common.windowRows.filter((r) => r.counters.replicaFallbacks > 0).map((r) => r.index)),
    connectionDrops: drops.map((d) => ({ node: d.node, reader: d.worker, atS: d.atS, reconnectMs: d.reconnectMs })),
    totals: totalCounts,
    windowCounts: w,
    unreachable,
    errorKinds,
    cpu: common.cpu,
    // per item read: the reads' cost on each node (a consumer adds nothing to memory)
    cost: costSummary({ cpu: common.cpu, flows: flows ?? flowsOf(common.windowRows), items: w.items || 0, per: 'item read' }),
    client: common.client,
    latency: common.latency,
  };
  if (keyTtl) out.keyTtl = keyTtl;
  out.missingWhy = ttlS === undefined ? null : missingWhy(out, { ttlS, keyTtl, limit, readFrom });
  out.verdict = consumerVerdict(out);
  return out;
}

/**
 * Why values were missing, as far as the numbers tell. A value can expire between the range and
 * the fetch only if its item was among the oldest live ones: those written within one cycle's
 * length of the TTL. More missing than that is not expiry. The TTL is the keys' own when it was
 * sampled (the producer set it; --ttl is only what the consumer reads): keys that outlive the read
 * window by more than a cycle cannot expire while they are read, whatever --ttl says.
 * @param {{ perCycle: Record<string, number|null>, latency: Record<string, any> }} s
 * @param {{ ttlS: number, keyTtl?: KeyTtl|null, limit: number, readFrom?: string }} p
 */
function missingWhy(s, { ttlS, keyTtl, limit, readFrom }) {
  const missing = s.perCycle.missing;
  if (!missing) return null;
  const cycleMs = s.latency.cycle?.sent?.p99 ?? 0;
  const lost =
    readFrom === 'replica'
      ? 'not yet on the replica read, or lost (evicted, deleted, never written)'
      : 'lost (evicted, deleted, never written)';
  const sampled = keyTtl?.present ? `${keyTtl.present} of the newest ${keyTtl.sampled} keys read back after the run` : null;
  if (sampled && keyTtl && keyTtl.noExpiry === keyTtl.present)
    return `not expiry: the item keys have no TTL (${sampled}); the missing ones were ${lost}`;
  if (sampled && keyTtl?.maxS && keyTtl.maxS * 1000 > ttlS * 1000 + 2 * cycleMs) {
    return `not expiry: the item keys live at least ${keyTtl.maxS} s (their PTTL, ${sampled}), longer than the ${ttlS} s the consumer reads back (--ttl), so none read was close to expiring; the missing ones were ${lost}`;
  }
  const ttl = sampled && keyTtl?.maxS ? keyTtl.maxS : ttlS;
  const said = ttl === ttlS ? `--ttl ${ttlS}` : `keys that live about ${ttl} s (their PTTL, ${sampled}; --ttl ${ttlS})`;
  const card = s.perCycle.cardinality ?? 0;
  // the share of the keys read that are within a cycle of their expiry
  const share = Math.min(1, cycleMs / (ttl * 1000));
  if (ttl < ttlS && !limit) {
    // the window reaches further back than the keys live: its oldest part is gone before the range
    const gone = card * (1 - ttl / ttlS) + card * share;
    if (missing <= 2 * gone)
      return `expired: the item keys live about ${ttl} s (their PTTL, ${sampled}), less than the ${ttlS} s the consumer reads back (--ttl), so about ${round(gone)} items per cycle had expired or were within a cycle of it`;
  }
  // the items within a cycle of their expiry, among those read (the newest --limit may hold none)
  const expirable = limit ? Math.max(0, (s.perCycle.items ?? 0) - card * (1 - share)) : card * share;
  if (missing <= Math.max(1, 2 * expirable))
    return `expired between range and fetch (with ${said} and cycles of up to ${round(cycleMs)} ms, about ${round(expirable)} items per cycle are that close to expiry)`;
  const where =
    readFrom === 'replica'
      ? 'not yet on the replica read, lost, or their keys expire sooner than --ttl says'
      : 'lost, or their keys expire sooner than --ttl says';
  return `more than expiry explains with ${said} (cycles of up to ${round(cycleMs)} ms: at most about ${round(expirable)} items per cycle are that close to expiry): the rest were ${where}`;
}

/** [first, last] of some seconds, or null when there are none. @param {number[]} xs */
function spanOf(xs) {
  return xs.length ? [Math.min(...xs), Math.max(...xs)] : null;
}

/** @param {ReturnType<typeof summarizeConsumer>} s */
function consumerVerdict(s) {
  if (!s.cycles.count)
    return s.unreachable
      ? `the target stopped answering (nothing for ${s.unreachable.silentS} s); no cycle completed in the window`
      : 'no cycle completed in the window';
  const notes = [];
  if (s.unreachable) notes.push(`the target stopped answering (nothing for ${s.unreachable.silentS} s) and the run stopped`);
  const c = s.cycles;
  if (c.failed) notes.push(`${c.failed} of ${c.count} cycles failed`);
  if (c.empty === c.count) notes.push('every cycle found the index empty');
  else if (c.empty) notes.push(`${c.empty} of ${c.count} cycles found the index empty`);
  if (c.overruns) notes.push(`${c.overruns} of ${c.count} cycles overran their period`);
  else if (!c.failed) notes.push('every cycle finished within its period');
  if (s.replicaFallbacks) notes.push(`${s.replicaFallbacks} reads went to another node of their shard while a replica did not answer`);
  if (s.perCycle.mismatched) notes.push(`${s.perCycle.mismatched} values per cycle did not match their key`);
  if (s.perCycle.missing) notes.push(`${s.perCycle.missing} items per cycle missing${s.missingWhy ? `: ${s.missingWhy}` : ''}`);
  if (s.totals.errors) notes.push(`${s.totals.errors} errors`);
  return notes.join('; ');
}
