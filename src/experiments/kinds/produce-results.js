/**
 * The Results section of `produce` steps (the Redis producer, and a consumer alongside): the
 * seed's table for its section (writers, items per writer, the varied flags, master and replica
 * CPU, achieved vs target, batch p99), CPU per node on a cluster, the consumers' timings, and the
 * cluster actions with what --verify read back.
 */
import { fixed, grouped, mdTable, short } from '../../record/format.js';
import { actionsMd } from '../../runs/common/actions-md.js';
import { PROCESS_HEADER, hasEngine } from '../../runs/common/cpu-md.js';
import { anyThin, pctCell, thinNote } from '../../runs/common/thin-percentiles.js';
import { MODEL_FLAGS, modelOf } from '../../workloads/items/stores/registry.js';
import { stepMetrics } from './produce-metrics.js';
import { costTable } from './produce-cost.js';
import { countsTable } from './produce-counts.js';

const NOT_RUN = 'not run yet';

/** Flags that vary between steps → the seed's column for them. */
const COLUMNS = {
  c: ['Chunks', (v) => v ?? 1],
  chunks: ['Chunks', (v) => v ?? 1],
  p: ['Interval ms', (v) => v ?? 1000],
  period: ['Interval ms', (v) => v ?? 1000],
  'extra-sets': ['Sorted sets', (v) => 1 + (v ?? 0)],
  'actual-value': ['Actual value?', (v) => (v ? 'Yes' : 'No')],
  ns: ['Sorted sets', (v) => v ?? 1],
  'same-slot': ['Same slot?', (v) => (v ? 'Yes' : 'No')],
};
const STORE_FLAGS = MODEL_FLAGS;
const SHOWN_ELSEWHERE = ['q', 'quantity', 't', 'writers'];

/**
 * @param {import('../spec.js').Spec} spec
 * @param {import('./kind-contract.js').StepRun[]} all
 * @returns {Promise<string[]>}
 */
export async function produceResults(spec, all) {
  // a counted step's CPU and latencies are Valgrind's: its figures are in its own table
  const steps = all.filter(({ step }) => !step.count);
  if (!steps.length) return countsTable(all);
  return [
    mainTable(spec, steps),
    '',
    ...seedUnitLine(spec),
    "CPU is % of one core from `INFO cpu` every second over each step's measured window (after its warm-up), averaged per role:" +
      " master and replica CPU are the main thread's, which runs every command and saturates first (CloudWatch's EngineCPUUtilization)," +
      " or the process's for a server that does not report it (each step's summary.md says so); process CPU adds the I/O and background threads;" +
      ' "Achieved" is items acknowledged per second by all writers vs the target; batch p99 is from the intended start (corrected for coordinated omission).',
    '',
    ...costTable(spec, steps),
    ...countsTable(all),
    ...nodeTable(steps, spec.seedNodeVcpus),
    ...consumerTable(steps),
    ...actionsSection(steps),
  ];
}

function mainTable(spec, steps) {
  const varied = spec.steps[0].varied.filter((k) => !SHOWN_ELSEWHERE.includes(k));
  const storeVaries = varied.some((k) => STORE_FLAGS.includes(k));
  // process CPU beside, once a step's figures are the main thread's (otherwise they are the process's)
  const withProcess = steps.some(({ r }) => r?.complete && hasEngine(r.producer?.cpu ?? {}));
  const extra = [...new Map(varied.filter((k) => !STORE_FLAGS.includes(k)).map((k) => [COLUMNS[k]?.[0] ?? `--${k}`, k])).entries()];
  const perPeriod = spec.steps.some((s) => (s.flags.p ?? s.flags.period ?? 1000) !== 1000);
  const header = [
    'Step',
    'Instance type',
    'Writers',
    perPeriod ? 'Items per writer per period' : 'Items per writer per sec',
    ...(storeVaries ? ['Store'] : []),
    ...extra.map(([h]) => h),
    'master CPU',
    'replica CPU',
    ...(withProcess ? PROCESS_HEADER : []),
    ...seedUnitHeader(spec),
    'Achieved / target items/s',
    'Batch p99 ms',
  ];
  const rows = steps.map(({ step, r }) => {
    const t = step.flags.t ?? step.flags.writers ?? 1;
    const q = step.flags.q ?? step.flags.quantity;
    const fixedCells = [
      step.label,
      spec.topology.label,
      t,
      short(q / t),
      ...(storeVaries ? [r?.producer?.mode ?? storeOf(step.flags)] : []),
      ...extra.map(([, k]) => (COLUMNS[k] ? COLUMNS[k][1](step.flags[k]) : String(step.flags[k] ?? '-'))),
    ];
    if (!r?.complete) return [...fixedCells, NOT_RUN, ...Array((withProcess ? 5 : 3) + seedUnitHeader(spec).length).fill('')];
    const m = stepMetrics(r.producer, r.consumer);
    const pct = m.achieved_ratio === undefined ? '' : ` (${Math.round(m.achieved_ratio * 1000) / 10}%)`;
    const processCells = withProcess ? [fixed(m.master_process_cpu), fixed(m.replica_process_cpu)] : [];
    const seedUnitCells = spec.seedNodeVcpus
      ? [ofNode(m.master_process_cpu, spec.seedNodeVcpus), ofNode(m.replica_process_cpu, spec.seedNodeVcpus)]
      : [];
    return [
      ...fixedCells,
      fixed(m.master_cpu),
      fixed(m.replica_cpu),
      ...processCells,
      ...seedUnitCells,
      `${short(m.achieved)} / ${short(m.target)}${pct}`,
      // a step of 8 s sends a few dozen batches: their p99 is the largest, flagged as such
      pctCell(fixed(m.batch_p99_ms), r.producer?.latency?.batch?.intended?.count ?? 0, 0.99),
    ];
  });
  return [mdTable(header, rows), ...(anyThin(rows) ? ['', thinNote('batches')] : [])].join('\n');
}

/**
 * The seed's CPU unit: CloudWatch's CPUUtilization, % of the whole node (on its 2-vCPU nodes 50% is
 * one core saturated). The process's CPU (every thread, as the host sees it) over the node's vCPUs.
 */
function seedUnitHeader(spec) {
  return spec.seedNodeVcpus ? [`master, % of ${spec.seedNodeVcpus} vCPUs`, `replica, % of ${spec.seedNodeVcpus} vCPUs`] : [];
}

/** @param {number|undefined} pctOfCore @param {number} vcpus */
function ofNode(pctOfCore, vcpus) {
  return pctOfCore === undefined ? '-' : fixed(pctOfCore / vcpus);
}

/**
 * What the seed-unit figures are, and what they can reach: a node capped below a core saturates
 * well under the seed's "one core" mark, so 20.7 beside the seed's 50 is not "less than half as busy"
 * (issue 37: a reader compared levels without the ceiling or the load beside them).
 */
function seedUnitLine(spec) {
  if (!spec.seedNodeVcpus) return [];
  const n = spec.seedNodeVcpus;
  const unit = (cores) => Math.round((1000 * cores) / n) / 10;
  const cap = spec.topology?.local?.cpus ?? null;
  const ceiling =
    cap && cap < 1
      ? ` Each node here is capped at ${cap} of a core, so in that unit it saturates at ${unit(cap)}, where the seed's node saturated at ${unit(1)}: read each figure against its own ceiling, or per item in Cost per item.`
      : '';
  return [
    `The seed's CPU figures are CloudWatch's CPUUtilization, % of a whole ${n}-vCPU node (${unit(1)}% is one core saturated, the host's own work included). The "here" CPU beside the seed's and the "% of ${n} vCPUs" columns are this run's process CPU in that unit (process CPU ÷ ${n}), averaged over the nodes of the role.${ceiling} The load differs from the seed's too: this run's items/s are the Achieved column, the seed's are in its row. The other CPU columns are % of one core.`,
    '',
  ];
}

/** Seed: "Node | CPU" per shard on a cluster; here one column per step, each node's main thread where reported. */
function nodeTable(steps, vcpus) {
  const done = steps.filter((s) => s.r?.complete);
  const names = new Set();
  for (const s of done) for (const n of s.r.producer.cpu?.nodes ?? []) names.add(`${n.role} ${n.shard}`);
  if (!done.length || names.size <= 2) return [];
  const order = [...names].sort((a, b) =>
    a.split(' ')[0] === b.split(' ')[0] ? Number(a.split(' ')[1]) - Number(b.split(' ')[1]) : a.startsWith('master') ? -1 : 1,
  );
  const rows = order.map((name) => [
    name,
    ...done.map((s) => {
      // after a reshard or failover a shard can hold several nodes of a role: sum them
      const nodes = (s.r.producer.cpu?.nodes ?? []).filter((n) => `${n.role} ${n.shard}` === name);
      if (!nodes.length) return '-';
      // a shard added near the end of the window may never have been sampled: not a 0 % node
      if (nodes.every((n) => !n.samples || typeof (n.engineAvg ?? n.avg) !== 'number')) return 'not sampled';
      const own = fixed(nodes.reduce((x, n) => x + (n.engineAvg ?? n.avg), 0));
      return vcpus
        ? `${own} (${ofNode(
            nodes.reduce((x, n) => x + n.avg, 0),
            vcpus,
          )})`
        : own;
    }),
  ]);
  const note =
    "Main thread where the server reports it, process otherwise (per node, with both figures: each step's summary.md)." +
    (vcpus ? ` In brackets, the seed's unit: the process's CPU as % of ${vcpus} vCPUs (÷ ${vcpus}).` : '');
  return ['### CPU per node', '', mdTable(['Node', ...done.map((s) => s.step.label)], rows), '', note, ''];
}

/** Seed: Cardinality | Responses received | Batch processed (took … ms). */
function consumerTable(steps) {
  const withConsumer = steps.filter((s) => s.step.consumer);
  if (!withConsumer.length) return [];
  const withProcess = withConsumer.some(({ r }) => r?.complete && hasEngine(r.consumer?.cpu ?? {}));
  const rows = withConsumer.map(({ step, r }) => {
    const flags =
      Object.entries(step.consumer)
        .map(([k, v]) => (v === true ? `--${k}` : `--${k} ${v}`))
        .join(' ') || '(defaults)';
    if (!r?.complete) return [step.label, flags, NOT_RUN, '', '', '', '', '', ...(withProcess ? [''] : [])];
    const c = r.consumer;
    const m = stepMetrics(r.producer, c);
    const processCells = withProcess ? [fixed(c.cpu?.basis === undefined ? c.cpu?.replica : c.cpu?.process?.replica)] : [];
    // the cycles the percentiles were read from (a step's window holds a handful)
    const cyclesTimed = c.latency?.cycle?.sent?.count ?? c.cycles?.count ?? 0;
    return [
      step.label,
      flags,
      grouped(m.cardinality),
      grouped(m.responses),
      pctCell(fixed(m.cycle_p50_ms), cyclesTimed, 0.5),
      pctCell(fixed(m.cycle_p99_ms), cyclesTimed, 0.99),
      `${c.cycles?.count ?? '-'} (${c.cycles?.overruns ?? 0})`,
      fixed(c.cpu?.replica),
      ...processCells,
    ];
  });
  const header = [
    'Step',
    'Consumer flags',
    'Cardinality',
    'Responses received',
    'Batch processed p50 ms',
    'Batch processed p99 ms',
    'Cycles (overruns)',
    'replica CPU',
    ...(withProcess ? [PROCESS_HEADER[1]] : []),
  ];
  return [
    '### Consumers',
    '',
    mdTable(header, rows),
    '',
    "Cardinality and values received are per cycle, averaged over the step's window (rounded, as in the consumer's own summary.md); batch processed is the whole cycle (cardinality, range, values), its p50 and p99.",
    '',
    ...(anyThin(rows) ? [thinNote('cycles'), ''] : []),
  ];
}

function actionsSection(steps) {
  const out = [];
  for (const { step, r } of steps) {
    if (!step.at.length) continue;
    out.push(`### Cluster actions: ${step.label}`, '');
    if (!r?.complete) {
      out.push(`${NOT_RUN}.`, '');
      continue;
    }
    out.push(...actionsMd(r.producer.actions, r.producer.disturbance ?? [], 'writes'));
    const v = r.producer.verify;
    if (v) out.push(`Verify: ${v.acked} acknowledged, ${v.present} read back, ${v.lost} lost, ${v.mismatched} mismatched.`, '');
  }
  return out;
}

function storeOf(flags) {
  return modelOf(flags).name;
}
