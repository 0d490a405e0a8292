/**
 * The Results section of `produce` steps (the Redis producer, and a consumer alongside): the
 * seed's table for its section (writers, items per writer, the varied flags, master and replica
 * CPU, achieved vs target, batch p99), CPU per node on a cluster, the consumers' timings, and the
 * cluster actions with what --verify read back.
 */
import { fixed, grouped, mdTable, short } from '../../record/format.js';
import { actionsMd } from '../../runs/common/actions-md.js';
import { PROCESS_HEADER, hasEngine } from '../../runs/common/cpu-md.js';
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
      fixed(m.batch_p99_ms),
    ];
  });
  return mdTable(header, rows);
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

function seedUnitLine(spec) {
  if (!spec.seedNodeVcpus) return [];
  const n = spec.seedNodeVcpus;
  return [
    `The seed's CPU figures are CloudWatch's CPUUtilization, % of a whole ${n}-vCPU node (${Math.round(1000 / n) / 10}% is one core saturated): the "% of ${n} vCPUs" columns put this run's process CPU in that unit (process CPU ÷ ${n}), the figures to read beside the seed's. The other CPU columns, and the Finding's figures, are % of one core; the check compares steps with each other, where the unit does not matter.`,
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
    return [
      step.label,
      flags,
      grouped(m.cardinality),
      grouped(m.responses),
      fixed(m.cycle_p50_ms),
      fixed(m.cycle_p99_ms),
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
