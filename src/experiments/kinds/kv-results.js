/**
 * What a `kv` step measured, for `check:` and RESULTS.md: its rate, latency, each role's CPU and
 * cost per operation, and the hot shard (the share of the operations the busiest node and shard
 * took, beside the busiest master's CPU), from its summary.json (runs/kv/kv-summary.js).
 */
import { fixed, grouped, mdTable, short } from '../../record/format.js';

/** Metric name → what it is (shown in errors and docs/experiments.md). */
export const KV_METRICS = {
  target: 'kv: operations/s due, every client together',
  achieved: 'kv: operations/s answered after the warm-up',
  achieved_ratio: 'kv: answered / due',
  op_p50_ms: "kv: any operation's latency p50 from its intended start, ms",
  op_p99_ms: "kv: any operation's latency p99 from its intended start, ms",
  master_cpu: 'kv: master CPU (main thread where reported), % of one core, averaged over the masters',
  replica_cpu: 'kv: replica CPU (main thread where reported), % of one core, averaged over the replicas',
  master_process_cpu: 'kv: master process CPU, % of one core, averaged over the masters',
  top_master_cpu: 'kv: CPU of the busiest master (main thread where reported), % of one core',
  top_node_cpu: 'kv: CPU of the busiest node, master or replica (main thread where reported), % of one core',
  top_node_ops_share: 'kv: the share of the operations (0..1) the node that took the most took',
  top_shard_ops_share: 'kv: the share of the operations (0..1) the shard (its master and replicas) that took the most took',
  master_us_per_op: 'kv: master CPU (main thread where reported) per operation, µs, every master together',
  replica_us_per_op: 'kv: replica CPU (main thread where reported) per operation, µs, every replica together',
  failed: 'kv: operations failed or not answered',
};

/**
 * @param {any} s a kv summary.json
 * @returns {Record<string, number|undefined>}
 */
export function kvStepMetrics(s) {
  const v = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
  const nodes = /** @type {Array<Record<string, any>>} */ (s?.nodes ?? []);
  const cpuOf = (role) =>
    nodes
      .filter((n) => !role || n.role === role)
      .map((n) => n.cpuAvg)
      .filter((x) => typeof x === 'number');
  const max = (xs) => (xs.length ? Math.max(...xs) : undefined);
  const total = nodes.reduce((t, n) => t + (n.ops || 0), 0);
  /** @type {Map<string, number>} */
  const byShard = new Map();
  for (const n of nodes) byShard.set(String(n.shard ?? n.addr), (byShard.get(String(n.shard ?? n.addr)) ?? 0) + (n.ops || 0));
  const all = s?.latency?.all?.intended;
  return {
    target: v(s?.rate?.intendedPerSec),
    achieved: v(s?.rate?.achievedPerSec),
    achieved_ratio: v(s?.rate?.ratio),
    op_p50_ms: v(all?.p50),
    op_p99_ms: v(all?.p99),
    master_cpu: v(s?.cpu?.master),
    replica_cpu: v(s?.cpu?.replica),
    master_process_cpu: v(s?.cpu?.process?.master ?? s?.cpu?.master),
    top_master_cpu: max(cpuOf('master')),
    top_node_cpu: max(cpuOf(null)),
    top_node_ops_share: total ? max(nodes.map((n) => (n.ops || 0) / total)) : undefined,
    top_shard_ops_share: total ? max([...byShard.values()].map((x) => x / total)) : undefined,
    master_us_per_op: v(s?.cost?.roles?.master?.engineUs),
    replica_us_per_op: v(s?.cost?.roles?.replica?.engineUs),
    failed: s ? (s.totals?.failed ?? 0) + (s.totals?.unacked ?? 0) : undefined,
  };
}

/** The step's workload in a few words: its preset or mix, its keys. @param {Record<string, any>} flags */
function workloadOf(flags) {
  const what = flags.preset ?? flags.mix ?? 'get:90,set:10';
  const dist = flags['key-dist'] ?? (flags.preset ? (flags.preset === 'ycsb-d' ? 'latest:0.99' : 'zipf:0.99:scrambled') : 'uniform');
  const from = flags['read-from'] && flags['read-from'] !== 'master' ? `, reads from ${flags['read-from']}` : '';
  return `${what}, ${short(flags.keys ?? 10000)} keys ${dist}${from}`;
}

/**
 * The Results section: a row per step (the trial shown), then each step's operations per node.
 * @param {import('../spec.js').Spec} _spec
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @returns {Promise<string[]>}
 */
export async function kvResults(_spec, steps) {
  const rows = steps.map(({ step, r }) => {
    const s = r?.complete ? r.summary : null;
    if (!s) return [step.label, workloadOf(step.flags), step.flags.t ?? step.flags.clients ?? 1, 'not run yet', '', '', '', '', '', ''];
    const m = kvStepMetrics(s);
    return [
      step.label,
      workloadOf(step.flags),
      s.clients,
      `${short(m.achieved)} / ${short(m.target)}`,
      fixed(m.op_p50_ms, 2),
      fixed(m.op_p99_ms, 2),
      fixed(m.master_cpu, 1),
      fixed(m.top_master_cpu, 1),
      m.top_shard_ops_share === undefined ? '-' : `${fixed(m.top_shard_ops_share * 100, 1)}%`,
      fixed(m.master_us_per_op, 2),
    ];
  });
  const out = [
    mdTable(
      [
        'Step',
        'Workload',
        'Clients',
        'Answered / due operations/s',
        'p50 ms',
        'p99 ms',
        'master CPU',
        'Busiest master CPU',
        'Busiest shard: share of operations',
        'master µs/operation',
      ],
      rows,
    ),
    '',
    "CPU is % of one core from `INFO cpu` every second over each step's measured window, the main thread's where the server reports it (the process's otherwise); latency is any operation's, from its intended start (corrected for coordinated omission); a shard's share counts the operations sent to its master and its replicas; master µs/operation is every master's CPU over the operations answered.",
    '',
  ];
  for (const { step, r } of steps) {
    const s = r?.complete ? r.summary : null;
    if (!s?.nodes?.length) continue;
    out.push(`### Operations per node: ${step.label}`, '');
    if (s.hot) out.push(`Hot shard: ${s.hot.words}.`, '');
    out.push(
      mdTable(
        ['Node', 'Role', 'Shard', 'Operations', 'Share', 'CPU avg'],
        s.nodes.map((n) => [
          n.addr,
          n.role ?? '-',
          n.shard ?? '-',
          grouped(n.ops),
          n.opsShare === null ? '-' : `${fixed(n.opsShare * 100, 1)}%`,
          fixed(n.cpuAvg ?? NaN, 1),
        ]),
      ),
      '',
    );
  }
  return out;
}
