/**
 * Turns a run's per-second rows and total histograms into summary.json's object, and says in
 * words whether the rate was held and, if not, whether the client or the server was the limit.
 */
import { engineOrProcess } from '../common/cpu-summary.js';
import { commonSummary } from '../common/common-summary.js';
import { costSummary, flowsOf, liveAt, startedEmpty as startedEmptyOf } from '../common/cost-summary.js';
import { round } from '../../record/numbers.js';

/** @typedef {import('../../record/run-recorder.js').SecondRow} SecondRow */

/**
 * @param {object} p
 * @param {SecondRow[]} p.rows every second of the run
 * @param {Map<string, import('hdr-histogram-js').Histogram>} p.totals histograms after warm-up
 * @param {number} p.warmupS
 * @param {number} p.durationS seconds of schedule that ran (window end)
 * @param {number} p.targetRate items/s of the writers this run covers
 * @param {number} p.writers
 * @param {Record<string, number>} p.totalCounts counters summed over the whole run
 * @param {Record<string, number>} p.errorKinds
 * @param {Map<number, number>} [p.ackedDue] acknowledged items by the second they were due in
 * @param {number} [p.ackedInWindow] instead of ackedDue: their sum over the window (a report
 *   merging runs has only each run's sum)
 * @param {null|{ silentS: number }} [p.unreachable] the run stopped because no node answered
 * @param {Array<{ worker: string, node: string, atS: number, reconnectMs: number|null }>} [p.drops] connections the
 *   writers lost (run-workers.js): said whether or not an item failed, as the retries hide a reconnect
 * @param {object} [p.cost] what the cost per item needs beyond the seconds: each node's first reading
 *   (`starts`) and the TTL (live items from ackedDue); or, for runs merged, the flows and live items as summed
 * @param {Map<string, { usedMemory: number, keys: number }>} [p.cost.starts]
 * @param {number} [p.cost.ttlS]
 * @param {number|null} [p.cost.distinctIds] the ids the writers here write every period (without --verify
 *   each period writes the same ones again, so no more are ever live); null: fresh ids each period
 * @param {Map<string, import('../common/cost-summary.js').NodeFlows>} [p.cost.flows]
 * @param {number|null} [p.cost.liveItems]
 * @param {boolean|null} [p.cost.startedEmpty]
 * @param {string|null} [p.cost.partOf] the writers here are part of a run's (-a): no figure per item
 */
export function summarize({
  rows,
  totals,
  ackedDue,
  ackedInWindow,
  warmupS,
  durationS,
  targetRate,
  writers,
  totalCounts,
  errorKinds,
  unreachable = null,
  drops = [],
  cost = {},
}) {
  const common = commonSummary({ rows, totals, warmupS, durationS });
  const { seconds } = common.window;
  // achieved: items due in the window that were acknowledged (whenever the reply came), per
  // second; counting by reply time would credit the window with the warm-up's late replies
  let acked = ackedInWindow ?? 0;
  if (ackedInWindow === undefined) for (const [sec, n] of ackedDue) if (sec >= warmupS && sec < durationS) acked += n;
  // as a share of what the schedule put in the window: with periods longer than a second the
  // window holds a whole number of sends, not seconds x rate, and acked / seconds over- or undershoots
  const intended = common.windowRows.reduce((a, r) => a + (r.intended || 0), 0);
  const ratio = intended ? acked / intended : 0;
  const achieved = targetRate * ratio;
  // share of the window the writers spent unable to send because replies were outstanding
  const capWait = seconds ? common.windowRows.reduce((a, r) => a + (r.counters.capWaitMs || 0), 0) / (seconds * 1000 * writers) : 0;
  // resends per item sent in the window: a load generator this busy retrying is not the bottleneck
  const w = (k) => common.windowRows.reduce((n, r) => n + (r.counters[k] || 0), 0);
  const sentInWindow = w('sent');
  const resends = w('retries') + w('moved') + w('ask');
  const out = {
    window: common.window,
    inflightWaitShare: round(capWait, 3),
    retrying: { resends, sent: sentInWindow, perItem: sentInWindow ? round(resends / sentInWindow, 3) : null },
    unreachable,
    connectionDrops: drops.map((d) => ({ node: d.node, writer: d.worker, atS: d.atS, reconnectMs: d.reconnectMs })),
    writers,
    target: { itemsPerSec: round(targetRate), itemsPerWriterPerSec: round(targetRate / writers) },
    achieved: {
      itemsPerSec: round(achieved),
      itemsPerWriterPerSec: round(achieved / writers),
      ratio: intended ? round(ratio, 4) : null,
      items: acked,
      intended,
    },
    totals: totalCounts,
    errorKinds,
    cpu: common.cpu,
    cost: costSummary({
      cpu: common.cpu,
      flows: cost.flows ?? flowsOf(common.windowRows, cost.starts),
      items: acked,
      per: 'item written',
      liveItems:
        cost.liveItems !== undefined
          ? cost.liveItems
          : ackedDue && cost.ttlS
            ? liveAt(ackedDue, durationS, cost.ttlS, cost.distinctIds)
            : null,
      startedEmpty: cost.startedEmpty !== undefined ? cost.startedEmpty : cost.starts ? startedEmptyOf(cost.starts) : null,
      partOf: cost.partOf ?? null,
    }),
    client: common.client,
    latency: common.latency,
  };
  out.verdict = verdict(out);
  return out;
}

/** Resends per item sent from which a busy load generator is said to be busy retrying. */
const RETRYING_PER_ITEM = 0.1;

/**
 * One sentence: was the rate held, and who was the bottleneck? A load generator whose CPU went
 * into resending (a cluster that was down, a node that was gone) was busy retrying: that is not
 * the same as a load generator too small for the rate.
 * @param {ReturnType<typeof summarize>} s
 */
export function verdict(s) {
  const ratio = s.achieved.ratio ?? 0;
  const pct = `${(ratio * 100).toFixed(1)}%`;
  // the main thread saturates first: with I/O threads the process shows far more than it
  const busiest = s.cpu.nodes
    .filter((n) => n.role === 'master' && n.samples > 0)
    .map((n) => ({ ...n, figure: engineOrProcess(n) ?? 0 }))
    .sort((a, b) => b.figure - a.figure)[0];
  const clientBusy = s.client.cpuPctMaxWriter >= 90 || s.client.loopP99MsMax >= 100;
  const failed = s.totals.failed || 0;
  const lost = failed ? `, ${failed} items failed` : '';
  const r = s.retrying ?? { perItem: 0, resends: 0, sent: 0 };
  const retrying = (r.perItem ?? 0) >= RETRYING_PER_ITEM;
  const busyRetrying = `the load generator was busy retrying (${r.resends} resends for ${r.sent} items sent), not the bottleneck`;
  if (s.unreachable)
    return `target unreachable: no node answered for ${s.unreachable.silentS} s and the run stopped; ${pct} of the window's items acknowledged${lost}`;
  if (s.window.seconds === 0) return 'too short to judge: no full second after the warm-up';
  if (ratio >= 0.95) {
    const held = `rate held (${pct} of target)${failed ? `, but ${failed} items failed` : ''}`;
    if (!clientBusy) return held;
    return retrying
      ? `${held}; ${busyRetrying}`
      : `${held}, but the load generator was near its limit (CPU ${s.client.cpuPctMaxWriter}% of a core)`;
  }
  if (clientBusy && retrying) return `rate not held: ${pct} of target${lost}; ${busyRetrying}`;
  if (clientBusy)
    return `client-bound: ${pct} of target; the load generator was the bottleneck (writer CPU up to ${s.client.cpuPctMaxWriter}% of a core, event-loop delay p99 up to ${s.client.loopP99MsMax} ms)`;
  const waited =
    s.inflightWaitShare >= 0.2
      ? `; the writers waited for replies ${Math.round(s.inflightWaitShare * 100)}% of the time with every in-flight slot taken`
      : '';
  const of = busiest?.engineAvg === null ? ' (process CPU: it does not report its main thread)' : ' on its main thread';
  if (busiest && (busiest.figure >= 85 || waited))
    return `server-bound: ${pct} of target; busiest master ${busiest.addr} (shard ${busiest.shard}) at ${busiest.figure}% of a core${of}${waited}`;
  if (failed > 0) return `rate not held: ${pct} of target, ${failed} items failed`;
  return `rate not held: ${pct} of target, neither the load generator nor a master was saturated (network or latency bound)`;
}
