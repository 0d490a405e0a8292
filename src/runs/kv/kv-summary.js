/**
 * A kv run's summary.json: the rate asked for and held, latency per operation, each node's share
 * of the operations beside its CPU (where a hot shard shows: the capacity of a cluster is that of
 * its busiest shard), the cost per operation on each node, and a verdict in words.
 */
import { commonSummary } from '../common/common-summary.js';
import { engineOrProcess } from '../common/cpu-summary.js';
import { costSummary, flowsOf } from '../common/cost-summary.js';
import { round } from '../../record/numbers.js';

/** A master whose share of the operations is this many times the even share is named hot. */
export const HOT_FACTOR = 1.25;

/**
 * @param {object} p
 * @param {import('../../record/run-recorder.js').SecondRow[]} p.rows every second of the run
 * @param {Map<string, import('hdr-histogram-js').Histogram>} p.totals histograms after the warm-up
 * @param {number} p.warmupS
 * @param {number} p.durationS
 * @param {number} p.clients
 * @param {string[]} p.ops the operations of the mix, in table order
 * @param {Record<string, number>} p.totalCounts counters over the whole run
 * @param {Record<string, number>} p.errorKinds
 * @param {null|{ silentS: number }} [p.unreachable]
 * @param {Array<{ worker: string, node: string, atS: number, reconnectMs: number|null }>} [p.drops]
 * @param {Map<string, { usedMemory: number, keys: number }>} [p.starts] each node's first reading
 * @param {Record<string, number>} [p.windowCounts] the window's counters, where the seconds no longer hold
 *   them all (runs read back: timeline.csv has no column per node, summary.json's windowCounts has)
 * @param {Map<string, import('../common/cost-summary.js').NodeFlows>} [p.flows] the nodes' bytes and memory, where the seconds
 *   no longer hold them (runs read back: summary.json's)
 */
export function summarizeKv({
  rows,
  totals,
  warmupS,
  durationS,
  clients,
  ops,
  totalCounts,
  errorKinds,
  unreachable = null,
  drops = [],
  starts,
  windowCounts,
  flows,
}) {
  const common = commonSummary({ rows, totals, warmupS, durationS });
  const { seconds } = common.window;
  /** @type {Record<string, number>} */
  const w = windowCounts ? { ...windowCounts } : {};
  if (!windowCounts)
    for (const r of common.windowRows) for (const [k, v] of Object.entries(r.counters)) if (typeof v === 'number') w[k] = (w[k] || 0) + v;
  const intended = common.windowRows.reduce((n, r) => n + (r.intended || 0), 0);
  const acked = w.acked || 0;
  const perSec = (n) => (seconds ? round(n / seconds) : null);
  const capWait = seconds ? (w.capWaitMs || 0) / (seconds * 1000 * clients) : 0;
  const out = {
    window: common.window,
    clients,
    rate: {
      intendedPerSec: perSec(intended),
      achievedPerSec: perSec(acked),
      ratio: intended ? round(acked / intended, 4) : null,
      intended,
      acked,
    },
    inflightWaitShare: round(capWait, 3),
    operations: Object.fromEntries(
      ops.map((op) => [
        op,
        {
          count: common.latency[op]?.intended?.count ?? 0,
          intended: common.latency[op]?.intended ?? null,
          sent: common.latency[op]?.sent ?? null,
        },
      ]),
    ),
    nodes: nodeShares(w, common.cpu),
    unreachable,
    connectionDrops: drops.map((d) => ({ node: d.node, client: d.worker, atS: d.atS, reconnectMs: d.reconnectMs })),
    totals: totalCounts,
    windowCounts: w,
    errorKinds,
    cpu: common.cpu,
    cost: costSummary({ cpu: common.cpu, flows: flows ?? flowsOf(common.windowRows, starts), items: acked, per: 'operation' }),
    client: common.client,
    latency: common.latency,
  };
  return { ...out, hot: hotShard(out.nodes), verdict: kvVerdict(out) };
}

/**
 * Each node's share of the operations sent in the window (its `ops@<addr>` counters) beside its CPU.
 * @param {Record<string, number>} w the window's counters
 * @param {import('../common/cpu-summary.js').CpuSummary} cpu
 */
function nodeShares(w, cpu) {
  const sent = Object.entries(w).filter(([k]) => k.startsWith('ops@'));
  const total = sent.reduce((n, [, v]) => n + v, 0);
  const addrs = new Set([...cpu.nodes.map((n) => n.addr), ...sent.map(([k]) => k.slice(4))]);
  return [...addrs].map((addr) => {
    const n = cpu.nodes.find((x) => x.addr === addr);
    const ops = w[`ops@${addr}`] || 0;
    return {
      addr,
      role: n?.role ?? null,
      shard: n?.shard ?? null,
      ops,
      opsShare: total ? round(ops / total, 4) : null,
      engineAvg: n?.engineAvg ?? null,
      cpuAvg: n ? engineOrProcess(n) : null,
    };
  });
}

/**
 * The node that took the most operations, when it took more than its even share by HOT_FACTOR:
 * named with its share and its CPU (the summary's "shard 2 took 61 % of the operations, its engine 97 %").
 * @param {ReturnType<typeof nodeShares>} nodes
 */
function hotShard(nodes) {
  const serving = nodes.filter((n) => n.ops > 0);
  if (serving.length < 2) return null;
  const top = serving.reduce((x, y) => (y.ops > x.ops ? y : x));
  const even = 1 / serving.length;
  if (!(top.opsShare !== null && top.opsShare >= even * HOT_FACTOR)) return null;
  const cpu = top.cpuAvg === null ? '' : `, its ${top.engineAvg === null ? 'process' : 'engine'} ${round(top.cpuAvg)} % of a core`;
  return {
    addr: top.addr,
    shard: top.shard,
    opsShare: top.opsShare,
    evenShare: round(even, 4),
    cpuAvg: top.cpuAvg,
    words: `${top.shard === null ? top.addr : `shard ${top.shard} (${top.addr})`} took ${round(top.opsShare * 100)} % of the operations (an even share is ${round(even * 100)} %)${cpu}`,
  };
}

/**
 * One sentence: was the rate held, and what limited it.
 * @param {Record<string, any>} s
 */
function kvVerdict(s) {
  if (s.unreachable) return `target unreachable: no node answered for ${s.unreachable.silentS} s and the run stopped`;
  if (!s.window.seconds) return 'too short to judge: no full second after the warm-up';
  const ratio = s.rate.ratio ?? 0;
  const pct = `${round(ratio * 100)}%`;
  const failed = s.totals.failed ? `, ${s.totals.failed} operations failed` : '';
  if (ratio >= 0.95) return `rate held (${pct} of the operations due)${failed}`;
  const busiest = s.nodes.filter((n) => n.cpuAvg !== null).sort((a, b) => b.cpuAvg - a.cpuAvg)[0];
  if (s.client.cpuPctMaxWriter >= 90 || s.client.loopP99MsMax >= 100)
    return `client-bound: ${pct} of the operations due; a client process reached ${s.client.cpuPctMaxWriter}% of a core${failed}`;
  if (busiest && busiest.cpuAvg >= 85)
    return `server-bound: ${pct} of the operations due; ${busiest.addr}${busiest.shard === null ? '' : ` (shard ${busiest.shard})`} at ${busiest.cpuAvg}% of a core${failed}`;
  return `rate not held: ${pct} of the operations due${failed}`;
}
