/**
 * A kv run from its plan to files: reach the target, run the clients on one shared schedule
 * (items/run-workers.js: child processes, server CPU each second, the run directory, --at
 * actions), then summarize: the rate, latency per operation, each node's share of the operations
 * beside its CPU, the hot shard named.
 */
import { connectionFrom } from '../../transports/redis.js';
import { discoverTopology } from '../../transports/topology.js';
import { disturbances, episodes } from '../../runs/common/disturbance.js';
import { outcome, runProblems } from '../../record/outcome.js';
import { connectionFlags, runWorkers } from '../items/run-workers.js';
import { stats } from '../../measure/histogram.js';
import { summarizeKv } from '../../runs/kv/kv-summary.js';
import { renderKvMd } from '../../runs/kv/kv-summary-md.js';
import { KV_ROWS } from '../../runs/kv/kv-run.js';
import { cpuByShard } from '../../runs/common/cpu-md.js';
import { fixed, grouped } from '../../record/format.js';
import { shapeOf } from '../../harness/manifest.js';
import { localNote, withLocal } from '../../local/for-run.js';
import { withLiveMetrics } from '../../harness/live-metrics.js';
import { meanSize } from './sizes.js';
import { fillKeys } from './kv-fill.js';
import { writeErr } from '../../command-io.js';

/**
 * @param {Readonly<Record<string, any>>} plan checked and frozen (plans/kv-plan.js)
 * @returns {Promise<{ dir: string, summary: object, md: string, exitCode: number, failure?: string, linger?: () => Promise<void> }>}
 */
export function runKv(plan) {
  return withLiveMetrics(plan, (live) => withLocal(plan, (a, local) => kv(a, local, live)));
}

/**
 * @param {Readonly<Record<string, any>>} a the plan, pointed at the local server when there is one
 * @param {import('../../local/local-redis.js').LocalRedis|null} local
 * @param {import('../../harness/live-endpoint.js').LiveMetrics|null} live --metrics-port
 */
async function kv(a, local, live) {
  const conn = connectionFrom(a);
  const topo = await discoverTopology(conn);
  // YCSB's load phase, before the run's clock: its time is not the run's
  const filled = a.fill ? await fill(conn, a) : null;
  const clients = Array.from({ length: a.clients }, (_, i) => i + 1);
  const base = {
    t: a.clients,
    seed: a.seed,
    ramp: a.ramp,
    arrivals: a.arrivals,
    mix: a.mix,
    keys: a.keys,
    keyDist: a.keyDist,
    keyPattern: a.keyPattern,
    sizes: a.sizes,
    ttl: a.ttl,
    readFrom: a.readFrom,
    durationMs: a.duration * 1000,
    maxInflight: a.maxInflight,
    pipeline: a.pipeline,
    t0: 0,
  };
  /** @type {import('../items/process-pool.js').WorkerSpec[]} */
  const specs = clients.map((n) => ({ kind: 'kv', label: `client ${n}`, flags: connectionFlags(a), init: { plan: { ...base, a: n } } }));
  const name = a.name || `kv-${a.preset ?? a.ops.join('_')}-${a.keyDist.kind}-t${a.clients}${a.cluster ? '-cluster' : ''}`;
  live?.label({ runName: name });
  let errors = 0;
  /**
   * @param {import('../items/run-workers.js').WorkersRun} run
   * @param {{ interrupted?: false|string, unsaved?: string }} [more]
   */
  const summaryOf = (run, { interrupted = run.interrupted, unsaved } = {}) => {
    const { recorder, dir } = run;
    /** @type {Record<string, any>} */
    const summary = summarizeKv({
      rows: recorder.rows,
      totals: recorder.totals,
      warmupS: a.warmup,
      durationS: run.durationS,
      clients: clients.length,
      ops: a.ops,
      totalCounts: recorder.counts,
      errorKinds: recorder.errorKinds,
      unreachable: run.unreachable,
      drops: run.drops,
      starts: run.starts,
    });
    Object.assign(summary, { name, seed: a.seed, preset: a.preset ?? null, interrupted: !!interrupted, clientErrors: run.errors });
    if (filled) summary.fill = filled;
    const seconds = { rows: recorder.rows, t0: run.t0, ...KV_ROWS.disturbedBy };
    summary.disturbances = episodes({ ...seconds, actions: run.actionResults });
    if (run.actionResults.length) {
      summary.actions = run.actionResults;
      summary.disturbance = disturbances({ ...seconds, actions: run.actionResults });
    }
    if (run.warnings?.length) summary.warnings = run.warnings;
    const t = summary.totals;
    const problems = runProblems(run, dir);
    if (t.failed) problems.push(`${t.failed} operations failed`);
    if (t.unacked) problems.push(`${t.unacked} operations were not answered when the run ended`);
    if (unsaved) problems.push(unsaved);
    summary.outcome = outcome({ interrupted, problems });
    return { summary, md: renderKvMd({ name, description: run.manifest.description, interrupted: !!interrupted }, summary) };
  };
  const run = await runWorkers({
    a,
    conn,
    topo,
    specs,
    name,
    local,
    live,
    command: 'kv',
    description: describe(a, topo, local),
    mode: 'kv',
    storeCfg: { keyPattern: a.keyPattern, keys: a.keys },
    workers: clients,
    columns: KV_ROWS.columns,
    rowOf: KV_ROWS.rowOf,
    progressOf: (iv) => (iv.counters.acked || 0) > 0,
    statusOf: (iv, cpu) => {
      const c = iv.counters;
      errors += (c.failed || 0) + (c.errors || 0);
      const h = iv.hist.get('all.intended');
      return `${grouped(c.acked || 0)}/${grouped(iv.intended)} ops/s  p99 ${fixed(h ? stats(h).p99 : NaN, 2)} ms  errors ${errors}  master CPU ${cpuByShard(cpu, 'master')}  client ${fixed(iv.client.cpuPct, 0)}%`;
    },
    lastWords: (sofar) => summaryOf(sofar),
  });
  const { summary, md } = summaryOf(run);
  return run.harness.save(summary, md, {
    exitCode: summary.outcome.exitCode,
    writeError: run.writeError,
    restate: (unsaved) => summaryOf(run, { unsaved }),
  });
}

/**
 * --fill, said on stderr as it starts and ends (a million keys take seconds).
 * @param {import('../../transports/redis.js').RedisConn} conn
 * @param {Readonly<Record<string, any>>} a
 */
async function fill(conn, a) {
  if (!a.quiet) writeErr(`rqbench kv: filling ${grouped(a.keys)} keys (--fill) …\n`);
  const r = await fillKeys(conn, /** @type {any} */ (a));
  if (!a.quiet) writeErr(`rqbench kv: filled ${grouped(r.keys)} keys in ${fixed(r.ms / 1000, 1)} s\n`);
  return r;
}

/** One sentence: what ran against what. */
function describe(a, topo, local) {
  const rate =
    a.ramp.length === 1
      ? `${grouped(a.ramp[0].rate)} operations/s`
      : `a ramp of ${a.ramp.map((p) => `${grouped(p.rate)}/s at ${p.t} s`).join(', ')}`;
  const mix = a.mix.map((m) => `${m.op} ${m.weight}`).join(', ');
  const dist = a.keyDist.kind === 'zipf' ? `zipf ${a.keyDist.s}${a.keyDist.scrambled ? ' scrambled' : ''}` : a.keyDist.kind;
  const sizes = a.sizes.kind === 'fixed' ? `${a.sizes.size} B values` : `values of ${grouped(Math.round(meanSize(a.sizes)))} B on average`;
  return `Key-value workload${a.preset ? ` ${a.preset}` : ''} (${mix}), ${rate} (${a.arrivals} arrivals) from ${a.clients} client process(es), over ${grouped(a.keys)} keys (${a.keyPattern}, ${dist}), ${sizes}${a.ttl ? `, TTL ${a.ttl} s` : ''}${a.fill ? ', every key filled first' : ''}${a.pipeline ? `, at most ${grouped(a.pipeline)} operation${a.pipeline === 1 ? '' : 's'} outstanding a node per client` : ''}${a.readFrom === 'replica' ? ', reads from the replicas' : a.readFrom === 'any' ? ', reads from the master and a replica in turn' : ''}, seed ${a.seed}, against ${shapeOf(topo)}${localNote(local)}; ${a.duration ? `${a.duration} s` : 'until Ctrl-C'}.`;
}
