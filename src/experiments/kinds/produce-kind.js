/**
 * Steps of kind `produce`, the default (seed 002): the Redis producer with the spec's flags, and
 * the consumer alongside when the step has one, both started on one shared --start-at, against a
 * local Redis the runner starts (a fresh one for a step with cluster actions, and for the step
 * after it) or an endpoint. RESULTS.md has the seed's table (produce-results.js); `check:` names
 * the figures of produce-metrics.js.
 *
 *   topology: { local: { cluster: true, masters: 3, replicas: 1 } }
 *   flags: { t: 2, q: 20000 }
 *   steps:
 *     - { name: one_set, flags: { ns: 1 } }
 *     - { name: ten_sets, flags: { ns: 10 }, consumer: { readers: 1 } }
 */
import fs from 'node:fs';
import path from 'node:path';
import { startRedis } from '../../local/local-redis.js';
import { describeCap } from '../../local/cpu-cap.js';
import { short } from '../../record/format.js';
import { hasEngine } from '../../runs/common/cpu-md.js';
import { MODEL_FLAGS, cliProblem } from '../flags.js';
import { newestRun, runsManifest, stepRecord } from '../layout.js';
import { relayArgs, runChild } from '../children.js';
import { stepArgv } from '../command-line.js';
import { KindProblem } from './kind-contract.js';
import { SharedStart } from '../shared-start.js';
import { COUNTS, METRICS, stepMetrics } from './produce-metrics.js';
import { produceResults } from './produce-results.js';
import {
  ANNOUNCE_FILE,
  countProblem,
  countedConsumer,
  countedSeconds,
  countedTarget,
  readCount,
  waitForAnnounce,
} from './produce-count.js';

export const name = 'produce';
export const fields = ['count'];
export const specFields = [];
export const metrics = METRICS;
export const counts = COUNTS;
export const results = produceResults;
/** A step the check does not name is shown by its median trial by the master's CPU, the seed's figure. */
export const shownBy = 'master_cpu';
/**
 * @param {import('../spec.js').Spec} spec its seedNodeVcpus gives the *_cpu_node metrics (the seed's unit)
 * @returns {(s: import('./kind-contract.js').StepRun) => Record<string, number|undefined>}
 */
export const metricsOf = (spec) => (s) => {
  const m = stepMetrics(s.r.producer, s.r.consumer, spec?.seedNodeVcpus ?? null);
  return s.step?.count ? untimed(m) : m;
};

/**
 * Under Valgrind a step's CPU and latencies are the emulator's, 50-100x Redis's own: a counted step
 * has none (its counts, a busiest master's share of instructions among them, it keeps).
 */
const TIMED = /(_cpu|_cpu_node|_cpu_total|_share|_us_per_item|_ms)$/;
/** @param {Record<string, number|undefined>} m */
function untimed(m) {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, TIMED.test(k) && !COUNTS.includes(k) ? undefined : v]));
}

/** Writers that held less than this share of their target did not run the seed's load. */
const HELD_RATE = 0.99;

/**
 * A step whose writers fell short of their rate ran a lighter load than the one its figures are
 * compared at (unless failures are what it measures: then the rate falls with them by design).
 * @param {any} step
 * @param {Record<string, number|undefined>} m medians
 */
export function outOfRegime(step, m) {
  if (step.failuresMeasured || m.achieved_ratio === undefined || m.achieved_ratio >= HELD_RATE) return null;
  return `its writers held ${Math.round(m.achieved_ratio * 1000) / 10}% of the target rate (median), below ${HELD_RATE * 100}%`;
}

/** The consumer and producer start together on a shared --start-at, this far ahead. */
const sharedStart = new SharedStart();
/** Where a step's flags are checked: the kind of address the runner will give. */
const CHECK_URL = 'redis://127.0.0.1:6379';

/** @param {import('../spec.js').Topology} t */
export function topologyProblem(t) {
  return t.local || t.url ? null : 'these steps need Redis: topology local: or url:';
}

/**
 * A produce step's own field: `count:`, Redis's instructions counted instead of its CPU timed (produce-count.js).
 * @param {Record<string, any>} s
 * @param {string} p
 */
export function read(s, p) {
  return { count: readCount(s.count, p) };
}

/**
 * The step with the spec-wide fields merged in; the producer's flags (and the consumer's, reading
 * the producer's data model) through the CLIs' own options and checks, a problem naming the field.
 * @param {Record<string, any>} d the step as read
 * @param {import('./kind-contract.js').CommonFields} common
 */
export function complete(d, { flags, consumer, duration, warmup, at: specAt, topology, origins }) {
  const at = d.at ?? specAt;
  const own = {
    duration: d.duration !== undefined ? `${d.path}.duration` : 'duration',
    warmup: d.warmup !== undefined ? `${d.path}.warmup` : 'warmup',
    at: d.at !== undefined ? `${d.path}.at` : 'at',
  };
  own.d = own.duration;
  /** 'quantity|q' → the field it came from, or the step's flags when it is a default the step's values clash with */
  const pathOf = (from, fallback) => (names) => {
    const list = names.split('|');
    const hit = list.find((n) => from[n] ?? own[n]);
    return hit ? (from[hit] ?? own[hit]) : `${fallback} (${list.map((n) => (n.length === 1 ? `-${n}` : `--${n}`)).join('/')})`;
  };
  const length = { duration, warmup };
  const count = d.count ?? null;
  // a counted step's producer is checked with the flags it will run with (its own local nodes, dilated)
  const target =
    count && topology.local ? countedTarget(count, topology) : ['--url', CHECK_URL, ...(topology.cluster ? ['--cluster'] : [])];
  const check = (cli, f) =>
    checkArgv(
      stepArgv({ cli: [cli], flags: f, at: cli === 'src/producer.js' ? at : [], target, length, output: { out: '.', name: 'check' } }),
    );
  const wanted = d.consumer === undefined ? consumer : d.consumer && { ...consumer, ...d.consumer };
  if (count) {
    const why = countProblem({ path: d.path, consumer: wanted, at }, topology);
    if (why) throw new KindProblem(why);
  }
  const bad = cliProblem('producer', check('src/producer.js', flags), pathOf(origins, `${d.path}.flags`));
  if (bad) throw new KindProblem(bad);
  const base = { kind: name, name: d.name, label: d.label, duration, warmup, flags, at, varied: [], count };
  if (!wanted) return { ...base, consumer: null };
  // the consumer reads what this step's producer writes: the same data-model flags
  const model = Object.fromEntries(Object.entries(flags).filter(([k]) => MODEL_FLAGS.includes(k)));
  const both = { ...model, ...wanted };
  const cOrigins = {
    ...Object.fromEntries(Object.keys(model).map((k) => [k, origins[k]])),
    ...pathsOf(consumer ?? {}, 'consumer'),
    ...d.consumerPaths,
  };
  const badC = cliProblem('consumer', check('src/consumer.js', both), pathOf(cOrigins, `${d.path}.consumer`));
  if (badC) throw new KindProblem(badC);
  return { ...base, consumer: both };
}

/** A built argv as the CLIs' checks take it: without the CLI and without the output the checks need not see. */
function checkArgv(argv) {
  const i = argv.indexOf('--quiet');
  return argv.slice(1, i);
}

/**
 * The local Redis the steps share (fresh for a step with actions), or the endpoint; started on a
 * step's first use.
 * @param {import('../spec.js').Spec} spec
 * @param {{ log: (line: string) => void }} ctx
 * @returns {Promise<import('./kind-contract.js').Shared & { keeper: TopologyKeeper }>}
 */
export async function start(spec, { log }) {
  const keeper = new TopologyKeeper(spec.topology, log);
  return { keeper, stop: () => keeper.release() };
}

/**
 * Runs the step's producer (and consumer) to their end; writes step.json before and after.
 * @param {any} step
 * @param {import('./kind-contract.js').RunContext} ctx
 * @returns {Promise<{ ok: boolean, error?: string }>}
 */
export async function run(step, { stepDir, out, topology, stopper, shared, live, stepLabel }) {
  const keeper = /** @type {TopologyKeeper} */ (shared?.keeper);
  // an action changes the cluster's shape: that step gets a cluster of its own, and so does the next one
  const fresh = step.at.length > 0;
  try {
    // a counted step's producer starts its own nodes under Valgrind: the shared server is not its target
    let target = step.count ? null : await keeper.get(fresh, stopper);
    if (stopper.stopped) return { ok: false, error: 'interrupted' };
    let at = target ? await expandAt(step, target, topology) : [];
    fs.mkdirSync(stepDir, { recursive: true });
    // a counted step's consumer reads the nodes its producer starts, from the start the producer names
    const announced = !target && step.consumer ? path.join(stepDir, ANNOUNCE_FILE) : null;
    let startAt = step.consumer && !announced ? sharedStart.at() : null;
    const whereOf = (t) =>
      t
        ? ['--url', t.url, ...(topology.cluster ? ['--cluster'] : [])]
        : [...countedTarget(step.count, topology), ...(announced ? ['--announce', announced] : [])];
    let where = whereOf(target);
    let cmds = argvOf(step, out, { where, at }, startAt, !announced);
    const meta = {
      name: step.name,
      label: step.label,
      startedAt: new Date().toISOString(),
      commands: cmds.map((c) => ['node', ...c.argv].join(' ')),
      ok: false,
    };
    const save = stepRecord(stepDir, meta);
    const spawnOf = (c) => runChild([...c.argv, ...relayArgs(live, stepLabel)], stopper, { hub: live?.hub });
    /** @type {Array<{ argv: string[], code: number|null, signal: string|null, lastLine: string }>} */
    let results;
    if (announced) {
      fs.rmSync(announced, { force: true });
      const producer = spawnOf(cmds[0]);
      const told = await waitForAnnounce(announced, producer, stopper);
      if (told) {
        cmds.push(countedConsumer(step, out, told));
        meta.commands = cmds.map((c) => ['node', ...c.argv].join(' '));
        save();
        results = await Promise.all([producer, spawnOf(cmds[1])]);
      } else results = [await producer];
      if (!told && results[0].code === 0)
        results[0] = { ...results[0], code: null, lastLine: `the producer did not name its servers in ${announced}` };
    } else {
      results = await Promise.all(cmds.map(spawnOf));
      // a host too busy to start the workers before the shared start: the pair once more, further ahead
      if (startAt && !stopper.stopped && sharedStart.missed(results)) {
        keeper.log(
          `rqbench experiment: ${step.name}: a child was ready a second or more after the shared start; running the pair again, started ${sharedStart.leadMs / 1000} s ahead`,
        );
        // from an empty target again (and a fresh one for a step with actions): the first try's writes are in it
        target = await keeper.get(fresh, stopper);
        at = await expandAt(step, target, topology);
        where = whereOf(target);
        startAt = sharedStart.at();
        cmds = argvOf(step, out, { where, at }, startAt, !announced);
        meta.commands = cmds.map((c) => ['node', ...c.argv].join(' '));
        save();
        results = await Promise.all(cmds.map(spawnOf));
      }
    }
    // exit 1 is a run that finished and measured, but not all it was asked did happen (items failed,
    // cycles failed): its summary says why, and the step's check judges it; anything else failed
    const finished = (r, i) => r.code === 0 || (r.code === 1 && Boolean(newestRun(stepDir, cmds[i].role).doc?.outcome));
    const badIndex = results.findIndex((r, i) => !finished(r, i));
    const bad = badIndex >= 0 ? results[badIndex] : undefined;
    // writes that failed leave nothing the finding can compare, unless failures are what the check measures
    const lostWrites = bad || step.failuresMeasured ? null : failedWrites(newestRun(stepDir, 'producer').doc, step.name);
    const error = bad ? `${bad.argv[0]} exited with ${bad.code ?? bad.signal}: ${bad.lastLine}` : lostWrites;
    Object.assign(meta, {
      endedAt: new Date().toISOString(),
      exitCodes: results.map((r) => r.code ?? r.signal),
      ok: !error && !stopper.stopped,
    });
    if (error) meta.error = bad ? bad.lastLine : error;
    const problems = results.filter((r) => r.code === 1 && !bad).map((r) => r.lastLine);
    if (problems.length) meta.problems = problems;
    save();
    return error ? { ok: false, error } : { ok: true };
  } finally {
    if (fresh) await keeper.release();
  }
}

/**
 * What a producer's failed writes say, or null when every item was written.
 * @param {any} summary its summary.json
 * @param {string} name the step's
 * @returns {string|null}
 */
export function failedWrites(summary, name) {
  const n = (summary?.totals?.failed ?? 0) + (summary?.totals?.unacked ?? 0);
  if (!n) return null;
  const why = summary?.outcome?.problems?.join('; ');
  return `the producer's writes failed (${why || `${n} items failed or unacknowledged`}): the step measured nothing its check can compare (a check on ${name}.failed or ${name}.lost makes failures the measurement)`;
}

/**
 * The commands of one step, as run (relative paths, so they can be pasted from the repo root).
 * @param {any} step
 * @param {string} out the step's directory
 * @param {{ where: string[], at: string[] }} target where: the target's flags (--url … --cluster, or a counted step's --local …)
 * @param {number|null} startAt
 * @returns {Array<{ role: 'producer'|'consumer', argv: string[] }>}
 */
function argvOf(step, out, target, startAt, withConsumer = true) {
  const common = (role) => ({
    target: target.where,
    length: { duration: step.duration, warmup: step.warmup, startAt },
    output: { out, name: role, json: true },
  });
  /** @type {Array<{ role: 'producer'|'consumer', argv: string[] }>} */
  const cmds = [
    { role: 'producer', argv: stepArgv({ cli: ['src/producer.js'], flags: step.flags, at: target.at, ...common('producer') }) },
  ];
  if (step.consumer && withConsumer)
    cmds.push({ role: 'consumer', argv: stepArgv({ cli: ['src/consumer.js'], flags: step.consumer, ...common('consumer') }) });
  return cmds;
}

/**
 * The step's run directories and summaries: complete when the producer (and the consumer, when
 * the step has one) ran to an end that was not an interruption.
 * @param {string} stepDir
 * @param {any} meta step.json
 * @param {any} step
 */
export function readBack(stepDir, meta, step) {
  const { dir: producerDir, doc: producer } = newestRun(stepDir, 'producer');
  const { dir: consumerDir, doc: consumer } = newestRun(stepDir, 'consumer');
  const done = (s) => Boolean(s) && !s.interrupted;
  return {
    producerDir,
    consumerDir,
    producer: producer ?? null,
    consumer: consumer ?? null,
    complete: done(producer) && (!step?.consumer || done(consumer)) && meta?.ok === true,
  };
}

/** @param {import('./kind-contract.js').StepRun[]} steps */
export function manifest(steps) {
  return runsManifest(steps.filter((x) => x.r?.complete).map((x) => x.r.producerDir));
}

/**
 * The charts: the producers' runs, laid end to end; not a counted step's, whose seconds are K times
 * longer and whose CPU is Valgrind's. @param {import('./kind-contract.js').StepRun[]} done
 */
export const chartDirs = (done) => done.filter((s) => !s.step.count).map((s) => s.r.producerDir);

/** @param {any} step */
export const nominalSeconds = (step) => (step.count ? countedSeconds(step) : step.duration);
/** @param {any} step */
export const what = (step) => (step.count ? `${step.duration} s x${step.count.timeScale}, counted` : `${step.duration} s`);
/** The progress line's words beside the trial: a consumer alongside, the actions. @param {any} step */
export const details = (step) => [step.consumer ? '+ consumer' : '', step.at.length ? `at ${step.at.join(' ')}` : ''].filter(Boolean);
/** @param {any} r */
export const figures = (r) => {
  const p = r?.producer;
  if (!p) return 'no summary';
  const ir = p.instructions?.roles;
  if (ir)
    return `${short(p.instructions.items)} items counted, master ${ir.master?.irPerItem ?? '-'} instructions/item, replica ${ir.replica?.irPerItem ?? '-'}`;
  // the main thread's CPU (what saturates), and the whole process's when that is a different figure
  const processCpu = p.cpu && hasEngine(p.cpu) ? ` (process ${p.cpu.process.master ?? '-'}%, ${p.cpu.process.replica ?? '-'}%)` : '';
  return `${short(p.achieved?.itemsPerSec)}/${short(p.target?.itemsPerSec)} items/s, master CPU ${p.cpu?.master ?? '-'}%, replica ${p.cpu?.replica ?? '-'}%${processCpu}`;
};
/** @param {import('../spec.js').Spec} spec */
export const commandsNote = (spec) =>
  [
    spec.topology.local && spec.steps.some((s) => !s.count)
      ? 'The `--url` is the local server the runner started for the run (a new port each time), emptied (FLUSHALL) before every step.'
      : '',
    spec.steps.some((s) => s.count)
      ? "A counted step's producer starts its own Redis (`--local`, the spec's shape, uncapped) under Valgrind's callgrind and runs `--time-scale` times slower."
      : '',
  ]
    .filter(Boolean)
    .join(' ');
export const setupWords = { starter: 'started by the runner', each: ', each' };

/** Starts the spec's local Redis when needed (fresh when asked), or points at the endpoint (a kv step's too). */
export class TopologyKeeper {
  /**
   * @param {import('../spec.js').Topology} topology
   * @param {(line: string) => void} log
   */
  constructor(topology, log) {
    this.topology = topology;
    this.log = log;
    /** @type {Awaited<ReturnType<typeof startRedis>>|null} */
    this.local = null;
  }

  /**
   * @param {boolean} fresh
   * @param {import('../children.js').Stopper} stopper
   * @returns {Promise<{ url: string, local: any }>}
   */
  async get(fresh, stopper) {
    const l = this.topology.local;
    if (!l) return { url: String(this.topology.url), local: null };
    if (fresh) await this.release();
    // a step starts from an empty target: the last one's keys would change its figures, or fail
    // its writes outright (a hash step on a sorted set's keys gets WRONGTYPE on every one)
    else if (this.local) await this.local.flush();
    if (!this.local) {
      const started = Date.now();
      this.local = await startRedis({
        cluster: l.cluster,
        masters: l.masters,
        replicas: l.replicas,
        ...(l.cpus && { cpus: l.cpus }),
        signal: stopper.signal,
      });
      const cap = l.cpus ? `, ${describeCap(l.cpus)}` : '';
      this.log(
        `rqbench experiment: started a ${this.topology.label} at ${this.local.url}${cap} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
    }
    return { url: this.local.url, local: this.local };
  }

  async release() {
    const l = this.local;
    this.local = null;
    await l?.stop();
  }
}

/**
 * A bare `add-shard` on a local cluster: the runner starts the new nodes (it owns the local
 * servers; the CLI it spawns does not) and names them, as on a real cluster.
 * @param {any} step
 * @param {{ url: string, local: any }} target
 * @param {import('../spec.js').Topology} topology
 * @returns {Promise<string[]>} the --at values
 */
export async function expandAt(step, target, topology) {
  const at = [];
  for (const a of step.at) {
    const m = /^([\d.]+):add-shard$/.exec(a);
    if (m && target.local?.addNodes) {
      const nodes = await target.local.addNodes(1 + (topology.local?.replicas ?? 0));
      at.push(`${m[1]}:add-shard:${nodes.map((n) => `${n.host}:${n.port}`).join(',')}`);
    } else at.push(a);
  }
  return at;
}

/** @param {Record<string, any>} map @param {string} prefix */
function pathsOf(map, prefix) {
  return Object.fromEntries(Object.keys(map).map((k) => [k, `${prefix}.${k}`]));
}
