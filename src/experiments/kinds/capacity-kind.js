/**
 * Steps of kind `capacity`: `rqbench capacity` run by the runner, as a person would type it, on
 * the spec's Redis (a local one is started by the search itself, so each step can cap its nodes
 * with its own `cpus:`), with the step's instance facts. RESULTS.md answers with the seed's
 * instance table (max sustainable items/s, cost per 100k items/s, shards for `forRate`, the
 * cheapest choice) and each search's answer and projection.
 *
 *   capacity: { start-rate: 25000, slo-p99: 1000 }     # the search's flags, spec-wide and per step
 *   forRate: 200000
 *   steps:
 *     - { name: half, kind: capacity, cpus: 0.5, instance: { type: local-0.5, vcpu: 0.5, memoryGb: 1, hourlyPrice: 0.05 } }
 */
import fs from 'node:fs';
import path from 'node:path';
import { fixed, grouped, mdTable } from '../../record/format.js';
import { flagMapProblem, toArgs } from '../flags.js';
import { stepArgv } from '../command-line.js';
import { capacityArgvProblem } from '../capacity/capacity-args.js';
import { instanceRows, instanceTableMd, monthlyFor } from '../../report/capacity/cost-table.js';
import { newestRun, readJson, stepRecord } from '../layout.js';
import { commandLine, runChild } from '../children.js';
import { KindProblem } from './kind-contract.js';

export const name = 'capacity';
export const fields = ['cpus', 'instance', 'capacity'];
export const specFields = ['capacity', 'forRate'];
/** A spec of searches without a check (a capacity per data model) still shows each search's answer over its trials. */
export const headline = 'max_rate';
const INSTANCE = { type: 'instance-type', vcpu: 'vcpu', memoryGb: 'memory-gb', hourlyPrice: 'hourly-price' };
/** A search's runs before one has been measured: a ramp of about five, a bisection of about four. */
const FIRST_GUESS_RUNS = 9;
/**
 * The re-tests' runs besides --confirm's first round: on this host an end rarely repeats itself at
 * first, and the widened ends took 21–23 runs a search in all (bench:capacity, run 6).
 */
const FIRST_GUESS_WIDEN_RUNS = 6;
const OVERHEAD_S = 5;

/** @param {import('../spec.js').Topology} t */
export function topologyProblem(t) {
  return t.local || t.url ? null : 'a capacity step needs Redis: topology local: or url:';
}

/**
 * @param {Record<string, any>} s the step as written
 * @param {string} p its path, e.g. 'steps[1]'
 * @param {Record<string, any>} raw the spec as written (its capacity: map)
 */
export function read(s, p, raw) {
  const shape = flagMapProblem(s.capacity, `${p}.capacity`) ?? flagMapProblem(raw.capacity, 'capacity');
  if (shape) throw new KindProblem(shape);
  if (s.cpus !== undefined && (typeof s.cpus !== 'number' || !(s.cpus > 0)))
    throw new KindProblem(`${p}.cpus must be a number of cores > 0 (got ${JSON.stringify(s.cpus)})`);
  let instance = null;
  if (s.instance !== undefined) {
    if (!s.instance || typeof s.instance !== 'object' || Array.isArray(s.instance))
      throw new KindProblem(`${p}.instance must be a map: { type, vcpu, memoryGb, hourlyPrice }`);
    const extra = Object.keys(s.instance).find((k) => !(k in INSTANCE));
    if (extra) throw new KindProblem(`${p}.instance.${extra} is not a field here (known: ${Object.keys(INSTANCE).join(', ')})`);
    instance = s.instance;
  }
  return { capacity: { ...raw.capacity, ...s.capacity }, cpus: s.cpus ?? null, instance };
}

/** @param {Record<string, any>} raw */
export function readSpec(raw) {
  if (raw.forRate === undefined) return { forRate: null };
  if (typeof raw.forRate !== 'number' || !Number.isFinite(raw.forRate) || raw.forRate <= 0)
    throw new KindProblem(`forRate must be a number > 0 (got ${JSON.stringify(raw.forRate)})`);
  return { forRate: raw.forRate };
}

/**
 * The search sets the rate and runs its own consumer (capacity.consumer), so -q, consumer: and
 * at: are not for it; the rest goes through `rqbench capacity`'s own checks.
 * @param {Record<string, any>} d the step as read
 * @param {import('./kind-contract.js').CommonFields} common
 */
export function complete(d, { flags, duration, warmup, consumer, at, topology }) {
  const owned = ['q', 'quantity', 'per-writer'].find((k) => flags[k] !== undefined);
  if (owned)
    throw new KindProblem(
      `${d.flagPaths[owned] ?? `flags.${owned}`} is set by the capacity search (use ${d.path}.capacity's start-rate and max-rate)`,
    );
  if (consumer || d.consumer)
    throw new KindProblem(`${d.path}: a capacity step runs its consumer through capacity.consumer ("<consumer flags>"), not consumer:`);
  if (at.length || d.at?.length) throw new KindProblem(`${d.path}: a capacity step needs a steady cluster (no at:)`);
  const step = {
    kind: name,
    name: d.name,
    label: d.label,
    duration,
    warmup,
    flags,
    consumer: null,
    at: [],
    varied: [],
    capacity: d.capacity,
    cpus: d.cpus,
    instance: d.instance,
  };
  const bad = problemOf({ ...step, path: d.path }, topology);
  if (bad) throw new KindProblem(bad);
  return step;
}

/**
 * The command a capacity step runs (relative paths, so it can be pasted from the repo root).
 * @param {any} step
 * @param {import('../spec.js').Topology} topology
 * @param {string} out the step's directory
 * @returns {string[]} argv after `node`
 */
function argvOf(step, topology, out) {
  const l = topology.local;
  const cpus = step.cpus ?? l?.cpus ?? null;
  const target = l
    ? [
        '--local',
        ...(l.cluster ? ['--cluster', '--masters', String(l.masters)] : []),
        '--replicas',
        String(l.replicas),
        ...(cpus ? ['--node-cpus', String(cpus)] : []),
      ]
    : ['--url', topology.url, ...(topology.cluster ? ['--cluster'] : [])];
  const instance = step.instance ? Object.fromEntries(Object.entries(step.instance).map(([k, v]) => [INSTANCE[k], v])) : {};
  // the search's own step length and instance flags; the producer's length is the search's to set
  const own = [
    ...toArgs(step.capacity ?? {}),
    ...toArgs(instance),
    '--step-seconds',
    String(step.duration),
    '--step-warmup',
    String(step.warmup),
  ];
  return stepArgv({ cli: ['src/cli.js', 'capacity'], flags: step.flags, args: own, target, output: { out, name: 'capacity' } });
}

/**
 * The step's argv through the command's own checks: one line naming the spec field, or null.
 * @param {any} step
 * @param {import('../spec.js').Topology} topology
 * @returns {string|null}
 */
function problemOf(step, topology) {
  const argv = argvOf(step, topology, '.')
    .slice(2)
    .filter((x, i, all) => x !== '--out' && all[i - 1] !== '--out');
  const fields = {
    '--step-seconds': `${step.path}.duration (or duration)`,
    '--step-warmup': `${step.path}.warmup (or warmup)`,
    '--node-cpus': `${step.path}.cpus`,
    ...Object.fromEntries(Object.entries(INSTANCE).map(([k, flag]) => [`--${flag}`, `${step.path}.instance.${k}`])),
  };
  return capacityArgvProblem(
    argv,
    (flag) =>
      fields[flag] ??
      (step.capacity?.[flag.replace(/^-+/, '')] !== undefined
        ? `${step.path}.capacity.${flag.replace(/^-+/, '')}`
        : `${step.path}.flags (${flag})`),
  );
}

/**
 * Runs the step to its end; writes step.json before and after.
 * @param {any} step
 * @param {import('./kind-contract.js').RunContext} ctx
 * @returns {Promise<{ ok: boolean, error?: string }>}
 */
export async function run(step, { stepDir, out, topology, stopper }) {
  fs.mkdirSync(stepDir, { recursive: true });
  const argv = argvOf(step, topology, out);
  const meta = {
    name: step.name,
    label: step.label,
    kind: 'capacity',
    startedAt: new Date().toISOString(),
    commands: [commandLine('node', argv)],
    ok: false,
  };
  const save = stepRecord(stepDir, meta);
  const r = await runChild(argv, stopper);
  const doc = readBack(stepDir, null).capacity;
  // exit 1 with a capacity.json is a search that ran and found nothing held: its RESULTS row says so
  const finished = doc && (r.code === 0 || r.code === 1);
  Object.assign(meta, { endedAt: new Date().toISOString(), exitCodes: [r.code ?? r.signal], ok: Boolean(finished) && !stopper.stopped });
  if (!finished) meta.error = r.lastLine;
  save();
  return finished ? { ok: true } : { ok: false, error: `rqbench capacity exited with ${r.code ?? r.signal}: ${r.lastLine}` };
}

/**
 * The step's search directory and its capacity.json; complete when the search ran to its end.
 * @param {string} stepDir
 * @param {any} meta step.json
 */
export function readBack(stepDir, meta) {
  const { dir: capacityDir, doc: capacity } = newestRun(stepDir, 'capacity', 'capacity.json');
  return { capacityDir, capacity, complete: Boolean(capacity) && capacity.search?.end !== 'stopped' && meta?.ok === true };
}

/**
 * Every step's row of the instance table (null for a step without a complete search).
 * @param {import('../spec.js').Spec} spec
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @returns {Array<import('../../report/capacity/cost-table.js').InstanceRow|null>}
 */
function rowsOf(spec, steps) {
  const done = steps.filter((s) => s.r?.complete);
  const rows = instanceRows(
    done.map((s) => ({ label: s.step.label, doc: s.r.capacity })),
    { forRate: spec.kindSpec.forRate ?? undefined },
  );
  return steps.map((s) => (s.r?.complete ? rows[done.indexOf(s)] : null));
}

/**
 * The check's metrics for each step.
 * @param {import('../spec.js').Spec} spec
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @returns {(s: import('./kind-contract.js').StepRun) => Record<string, number|undefined>}
 */
export function metricsOf(spec, steps) {
  const rows = rowsOf(spec, steps);
  return (s) => metricsOfRow(s.r?.capacity, rows[steps.indexOf(s)]);
}

/**
 * The Results section.
 * @param {import('../spec.js').Spec} spec
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @returns {Promise<string[]>}
 */
export async function results(spec, steps) {
  const rows = rowsOf(spec, steps).filter(Boolean);
  const headroom = steps.find((s) => s.r?.complete)?.r.capacity.criteria?.headroom ?? 60;
  // a kv search's rates are operations (capacity --kv), a producer's items
  const unit = steps.find((s) => s.r?.complete)?.r.capacity.criteria?.unit ?? 'items';
  const searches = steps.map(({ step, r }) => {
    const c = r?.complete ? r.capacity : null;
    return [
      step.label,
      step.cpus ?? spec.topology.local?.cpus ?? '-',
      c ? c.answer : 'not run yet',
      c ? c.projectionLine.replace(/^projection: /, '') : '',
      c ? c.steps.length : '',
    ];
  });
  const c0 = steps.find((s) => s.r?.complete)?.r.capacity;
  const held = c0
    ? `Held means: achieved ≥ ${c0.criteria.minAchieved * 100}% of the target, nothing failed, p99 of ${unit === 'operations' ? 'an operation' : 'a chunk'} from its intended start ≤ ${c0.criteria.sloP99Ms} ms, every node's engine below ${c0.criteria.engineCeiling}% of its CPU.`
    : '';
  return [
    rows.length ? instanceTableMd(rows, { forRate: spec.kindSpec.forRate ?? undefined, headroom, unit }) : 'No search has completed yet.',
    '',
    ...oneLoad(steps, unit, spec.seed !== 'none'),
    '### Searches',
    '',
    mdTable(['Step', 'Cores per node', 'Answer', 'Projection', 'Runs'], searches),
    '',
    held,
    '',
    `Each search's steps, one row per run, are in its \`capacity.md\` and \`capacity.json\` (under \`data/<stamp>/<step>/trial-<k>/*-capacity/\`).${spec.kindSpec.forRate ? ` Shards for ${grouped(spec.kindSpec.forRate)} ${unit}/s are sized at the headroom.` : ''}`,
    '',
  ];
}

/**
 * Every search starts at the same rate: its first run is each step at one load, the seed's
 * side-by-side ("same load, CPU per type"). CPU as % of the node's own CPU (its cap locally).
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @param {string} unit what the rates count
 * @param {boolean} seeded whether a seed's figures stand beside (CloudWatch's unit is then the seed's)
 */
function oneLoad(steps, unit, seeded) {
  const firsts = steps.map(({ step, r }) => ({ step, r, first: r?.complete ? r.capacity.steps?.[0] : null }));
  const rates = new Set(firsts.filter((x) => x.first).map((x) => x.first.rate));
  if (rates.size !== 1) return [];
  const [rate] = rates;
  const pct = (v) => (v === undefined ? '-' : fixed(v, 1));
  const rows = firsts.map(({ step, r, first }) => {
    if (!first) return [step.label, step.instance?.type ?? '-', 'not run yet', '', '', '', ''];
    const m = nodeShares(first.figures?.busiestMaster?.process, r?.capacity);
    const rep = nodeShares(first.figures?.busiestReplica?.process, r?.capacity);
    return [
      step.label,
      step.instance?.type ?? '-',
      pct(m.ofNode),
      pct(m.ofVcpus),
      pct(rep.ofNode),
      pct(rep.ofVcpus),
      first.held ? 'yes' : `no (${first.reasons.join('; ')})`,
    ];
  });
  return [
    `### One load: ${grouped(rate)} ${unit}/s`,
    '',
    mdTable(
      [
        'Step',
        'Instance type',
        "master CPU, % of the node's cap",
        `master CPU, % of the instance's vCPUs${seeded ? " (the seed's unit)" : ''}`,
        "replica CPU, % of the node's cap",
        "replica CPU, % of the instance's vCPUs",
        'Held',
      ],
      rows,
    ),
    '',
    `Each search's first run, at its start rate: every step under the same load. CPU is each busiest node's process: as a share of what the node may use here (its cgroup cap; one core uncapped), and of the vCPUs of the instance it stands for (CloudWatch's CPUUtilization of the whole node on ElastiCache${seeded ? ", the seed's unit" : ''}), from the trial shown.`,
    '',
  ];
}

/**
 * The host line's facts, from the first run of the first complete search.
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @returns {any|null} that run's manifest.json
 */
export function manifest(steps) {
  const s = steps.find((x) => x.r?.complete);
  const first = s?.r.capacity.steps?.[0]?.dir;
  return s && first ? readJson(path.join(s.r.capacityDir, first, 'manifest.json')) : null;
}

export const metrics = {
  max_rate: 'capacity: max sustainable items/s, or operations/s for a kv search',
  saturates_at: 'capacity: projected items/s (operations/s for a kv search) at which the first node saturates',
  at_headroom: 'capacity: projected items/s (operations/s for a kv search) at the headroom',
  top_master_cpu: 'capacity: the busiest master engine CPU at the maximum',
  monthly_per_100k: 'capacity: monthly price of the topology per 100k items/s (needs instance.hourlyPrice)',
  shards_for: 'capacity: shards needed for forRate at the headroom',
  monthly_for: 'capacity: monthly price of the shards needed for forRate',
  start_rate: "capacity: the search's first rate (start-rate: the same load for every step)",
  master_cpu_at_start:
    "capacity: the busiest master's process CPU at the first rate, % of what its node may use (its cap; one core uncapped)",
  replica_cpu_at_start:
    "capacity: the busiest replica's process CPU at the first rate, % of what its node may use (its cap; one core uncapped)",
  master_cpu_at_start_vcpus:
    "capacity: the busiest master's process CPU at the first rate, % of the instance's vCPUs (the seed's unit, CloudWatch's CPUUtilization; needs instance.vcpu)",
  replica_cpu_at_start_vcpus:
    "capacity: the busiest replica's process CPU at the first rate, % of the instance's vCPUs (needs instance.vcpu)",
};

/**
 * A node's process CPU (% of one core) as a share of what the node may use, and of the instance's
 * vCPUs: the first is how close it is to its cap here, the second the seed's unit (CloudWatch's
 * CPUUtilization of a node with that many vCPUs). Half a core's node at 23.6 % of a core is at 47 %
 * of its cap and 11.8 % of a 2-vCPU instance.
 * @param {number|undefined} process
 * @param {any} doc capacity.json (criteria.nodeCpus, instance.vcpu)
 */
export function nodeShares(process, doc) {
  if (typeof process !== 'number' || !Number.isFinite(process)) return { ofNode: undefined, ofVcpus: undefined };
  const cap = doc?.criteria?.nodeCpus ?? 1;
  const vcpu = doc?.instance?.vcpu;
  return { ofNode: process / cap, ofVcpus: typeof vcpu === 'number' && vcpu > 0 ? process / vcpu : undefined };
}

/**
 * A capacity step's figures (its capacity.json and its row of the instance table).
 * @param {any} doc capacity.json
 * @param {import('../../report/capacity/cost-table.js').InstanceRow|null} row
 * @returns {Record<string, number|undefined>}
 */
function metricsOfRow(doc, row) {
  const first = doc?.projection?.[0];
  const def = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
  const start = doc?.steps?.[0];
  const master = nodeShares(start?.figures?.busiestMaster?.process, doc);
  const replica = nodeShares(start?.figures?.busiestReplica?.process, doc);
  return {
    start_rate: def(start?.rate),
    master_cpu_at_start: def(master.ofNode),
    replica_cpu_at_start: def(replica.ofNode),
    master_cpu_at_start_vcpus: def(master.ofVcpus),
    replica_cpu_at_start_vcpus: def(replica.ofVcpus),
    max_rate: def(doc?.search?.max),
    saturates_at: def(first?.saturatesAt),
    at_headroom: def(first?.atHeadroom),
    top_master_cpu: def(row?.masterCpu),
    monthly_per_100k: def(row?.per100k),
    shards_for: def(row?.shardsFor),
    monthly_for: row ? def(monthlyFor(row)) : undefined,
  };
}

/** @param {any} step */
export const nominalSeconds = (step) => guessRuns(step.capacity ?? {}) * (step.duration + OVERHEAD_S);

/**
 * A search's runs, guessed from its flags: the ramp and bisection (each the majority of up to
 * --tries: about 2.5 tries of 3), then --confirm's rounds at both ends and their widening.
 * @param {Record<string, any>} c the step's capacity: flags
 */
export function guessRuns(c) {
  const confirm = typeof c.confirm === 'number' ? c.confirm : 3;
  const tries = typeof c.tries === 'number' ? c.tries : 1;
  const search = FIRST_GUESS_RUNS * (tries > 1 ? (tries + 2) / 2 : 1);
  return Math.round(search + (confirm > 0 ? 2 * confirm + FIRST_GUESS_WIDEN_RUNS : 0));
}
/** @param {any} step */
export const what = (step) => `capacity search, runs of ${step.duration} s`;
/** @param {any} r */
export const figures = (r) => r?.capacity?.answer ?? 'no capacity.json';
/** @param {import('../spec.js').Spec} spec */
export const commandsNote = (spec) =>
  spec.topology.local ? "Each search starts its own local servers (`--local`), capped with the step's `--node-cpus`." : '';
/** How RESULTS.md's setup line speaks of the topology and the steps. */
export const setupWords = { starter: 'a fresh one for each search, started by it', each: ' capacity searches, each run' };
