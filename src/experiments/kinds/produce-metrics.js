/**
 * The numbers a RESULTS.md table shows and a `check:` can name, taken from a step's summary.json
 * files (producer, and consumer when one ran alongside). CPU is each node's main thread, the
 * figure that saturates, where the server reports it (process CPU otherwise: the summary's
 * cpu.basis says which); the *_process_cpu metrics are the whole process.
 */
/** Metric name → what it is (shown in errors and docs/experiments.md). */
export const METRICS = {
  master_cpu: 'master CPU (main thread where reported), % of one core, averaged over the masters',
  replica_cpu: 'replica CPU (main thread where reported), % of one core, averaged over the replicas',
  master_process_cpu: 'master process CPU (I/O and background threads included), % of one core, averaged over the masters',
  replica_process_cpu: 'replica process CPU, % of one core, averaged over the replicas',
  master_cpu_node: "master process CPU as % of the seed's whole node, its unit (process CPU ÷ seedNodeVcpus), averaged over the masters",
  replica_cpu_node: "replica process CPU as % of the seed's whole node (process CPU ÷ seedNodeVcpus), averaged over the replicas",
  master_cpu_total: 'master CPU summed over every master',
  replica_cpu_total: 'replica CPU summed over every replica',
  top_master_cpu: 'CPU of the busiest master',
  top_master_share: "the busiest master's share of all master CPU (0..1)",
  master_us_per_item: 'master CPU (main thread where reported) per item written, µs, every master together (summary cost.roles)',
  master_process_us_per_item: 'master process CPU per item written, µs, every master together',
  replica_us_per_item: 'replica CPU (main thread where reported) per item written, µs, every replica together',
  replica_process_us_per_item: 'replica process CPU per item written, µs, every replica together',
  master_bytes_in_per_item: "bytes the masters read from clients per item written (INFO stats, replication's apart)",
  master_bytes_out_per_item: 'bytes the masters wrote to clients per item written',
  master_repl_bytes_per_item: 'replication bytes the masters wrote per item written',
  memory_per_item: "the masters' used_memory growth per item live at the window's end, bytes",
  replica_memory_per_item: "the replicas' used_memory growth per item live at the window's end, bytes",
  master_ir_per_item:
    "a counted step's (count:): Redis's instructions per item written on the masters, idle cost and the sampler's commands taken out (summary instructions.roles)",
  replica_ir_per_item: "a counted step's: Redis's instructions per item written on the replicas",
  top_master_ir_per_item: "a counted step's: the busiest master's instructions per item written (its share of an item's cost)",
  top_master_ir_share: "a counted step's: the busiest master's share of all masters' instructions (0..1)",
  master_syscalls_per_item: "a counted step's: the masters' read and write system calls per item written (/proc/<pid>/io)",
  read_master_us_per_item: 'consumer: master CPU (main thread where reported) per item read, µs',
  read_replica_us_per_item: 'consumer: replica CPU (main thread where reported) per item read, µs',
  target: 'target items/s (all writers)',
  achieved: 'achieved items/s (all writers)',
  achieved_ratio: 'achieved / target',
  batch_p50_ms: 'batch latency p50 from the intended start, ms',
  batch_p99_ms: 'batch latency p99 from the intended start, ms',
  failed: 'items not acknowledged',
  lost: 'items acknowledged but not read back (--verify)',
  moved_errors: "MOVED replies a writer's client gave up on as errors (ioredis throws them; rqbench follows them)",
  cardinality: 'consumer: cardinality per cycle',
  responses: 'consumer: values received per cycle',
  cycle_p50_ms: 'consumer: batch processed (whole cycle) p50, ms',
  cycle_p99_ms: 'consumer: batch processed (whole cycle) p99, ms',
  overruns: 'consumer: cycles that overran their period',
};

/**
 * The metrics that are counts, not timings: they do not move with the host's load (0.1 % apart
 * at light load, bench:cost; a few per cent where several writers interleave), so a check on
 * them is decided by the counter's rule (verdict.js).
 */
export const COUNTS = [
  'master_ir_per_item',
  'replica_ir_per_item',
  'top_master_ir_per_item',
  'top_master_ir_share',
  'master_syscalls_per_item',
];

/**
 * @param {any} producer a producer summary.json
 * @param {any} [consumer] a consumer summary.json
 * @param {number|null} [vcpus] the seed node's vCPUs (the spec's seedNodeVcpus): the *_cpu_node metrics, as the
 *   Results table's "% of N vCPUs" columns compute them; none: undefined
 * @returns {Record<string, number|undefined>}
 */
export function stepMetrics(producer, consumer, vcpus = null) {
  const cpu = producer?.cpu;
  const nodes = cpu?.nodes ?? [];
  // a summary from before the main thread was read has no basis: its figures are the process's
  const processCpu = cpu?.basis === undefined ? cpu : cpu.process;
  const figure = (n) => n.engineAvg ?? n.avg ?? 0;
  const sum = (role) => round(nodes.filter((n) => n.role === role).reduce((s, n) => s + figure(n), 0));
  const masters = nodes.filter((n) => n.role === 'master').map(figure);
  const total = masters.reduce((s, x) => s + x, 0);
  const top = masters.length ? Math.max(...masters) : undefined;
  const batch = producer?.latency?.batch?.intended;
  return {
    master_cpu: cpu?.master,
    replica_cpu: cpu?.replica,
    master_process_cpu: processCpu?.master,
    replica_process_cpu: processCpu?.replica,
    master_cpu_node: vcpus && processCpu?.master !== undefined ? processCpu.master / vcpus : undefined,
    replica_cpu_node: vcpus && processCpu?.replica !== undefined ? processCpu.replica / vcpus : undefined,
    master_cpu_total: nodes.length ? sum('master') : undefined,
    replica_cpu_total: nodes.length ? sum('replica') : undefined,
    top_master_cpu: top,
    top_master_share: total > 0 ? round(top / total, 3) : undefined,
    ...costMetrics(producer?.cost?.roles, consumer?.cost?.roles),
    ...countMetrics(producer?.instructions),
    target: producer?.target?.itemsPerSec,
    achieved: producer?.achieved?.itemsPerSec,
    achieved_ratio: producer?.achieved?.ratio,
    batch_p50_ms: batch?.p50,
    batch_p99_ms: batch?.p99,
    failed: producer?.totals?.failed,
    lost: producer?.verify?.lost,
    moved_errors: producer ? (producer.errorKinds?.MOVED ?? 0) : undefined,
    cardinality: consumer?.perCycle?.cardinality,
    responses: consumer?.perCycle?.fetched,
    cycle_p50_ms: consumer?.latency?.cycle?.sent?.p50,
    cycle_p99_ms: consumer?.latency?.cycle?.sent?.p99,
    overruns: consumer?.cycles?.overruns,
  };
}

/**
 * The cost per item metrics (runs/common/cost-summary.js), from the producer's and the consumer's roles.
 * @param {any} written the producer summary's cost.roles
 * @param {any} read the consumer summary's cost.roles
 */
function costMetrics(written, read) {
  const v = (x) => (typeof x === 'number' ? x : undefined);
  return {
    master_us_per_item: v(written?.master?.engineUs),
    master_process_us_per_item: v(written?.master?.processUs),
    replica_us_per_item: v(written?.replica?.engineUs),
    replica_process_us_per_item: v(written?.replica?.processUs),
    master_bytes_in_per_item: v(written?.master?.netIn),
    master_bytes_out_per_item: v(written?.master?.netOut),
    master_repl_bytes_per_item: v(written?.master?.replOut),
    memory_per_item: v(written?.master?.memory),
    replica_memory_per_item: v(written?.replica?.memory),
    read_master_us_per_item: v(read?.master?.engineUs),
    read_replica_us_per_item: v(read?.replica?.engineUs),
  };
}

/**
 * A counted run's figures (runs/common/instructions-summary.js); none for a run that did not count.
 * A master's figure is its share of an item's cost, so on a cluster the busiest master's over the
 * masters' sum is its share of their work, as top_master_share is of their CPU.
 * @param {any} counted the producer summary's instructions
 */
function countMetrics(counted) {
  const v = (x) => (typeof x === 'number' ? x : undefined);
  const roles = counted?.roles;
  const sys = roles?.master?.syscalls;
  const masters = (counted?.nodes ?? []).filter((n) => n.role === 'master' && typeof n.irPerItem === 'number').map((n) => n.irPerItem);
  const top = masters.length ? Math.max(...masters) : undefined;
  const all = masters.reduce((s, x) => s + x, 0);
  return {
    master_ir_per_item: v(roles?.master?.irPerItem),
    replica_ir_per_item: v(roles?.replica?.irPerItem),
    top_master_ir_per_item: top,
    top_master_ir_share: top !== undefined && all > 0 ? round(top / all, 4) : undefined,
    master_syscalls_per_item: sys && typeof sys.readPerItem === 'number' ? round(sys.readPerItem + sys.writePerItem, 3) : undefined,
  };
}

function round(x, d = 1) {
  const f = 10 ** d;
  return Math.round(x * f) / f;
}
