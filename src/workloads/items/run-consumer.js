/**
 * A consumer run from its plan to files: reach the target, run the readers on one shared
 * schedule (run-workers.js), then summarize in the seed's words. The flags were checked and
 * frozen into the plan at the command's edge (plans/consumer-plan.js).
 */
import { connectionFrom, describeConnection } from '../../transports/redis.js';
import { discoverTopology } from '../../transports/topology.js';
import { connectionFlags, runWorkers } from './run-workers.js';
import { stats } from '../../measure/histogram.js';
import { readFromOf, summarizeConsumer } from '../../runs/consume/consumer-summary.js';
import { renderConsumerMd } from '../../runs/consume/consumer-summary-md.js';
import { cpuByShard } from '../../runs/common/cpu-md.js';
import { fixed, grouped } from '../../record/format.js';
import { shapeOf } from '../../harness/manifest.js';
import { disturbances, episodes } from '../../runs/common/disturbance.js';
import { outcome, runProblems } from '../../record/outcome.js';
import { createReadModel, modelNamed, modelOf } from './stores/registry.js';
import { sampleKeyTtl } from './key-ttl.js';
import { leavingOn } from '../../harness/signals.js';
import { storeConfigOf } from './stores/keys.js';
import { EmptyIndexWatch } from './empty-index.js';
import { CONSUMER_ROWS } from '../../runs/consume/consume-run.js';
import { localNote, withLocal } from '../../local/for-run.js';
import { withLiveMetrics } from '../../harness/live-metrics.js';
import { addInstructions, windowHooksOf } from './counted-run.js';
import { timeScaled } from '../../harness/time-scale.js';

/**
 * @param {Readonly<Record<string, any>>} plan checked and frozen (plans/consumer-plan.js)
 * @returns {Promise<{ dir: string, summary: object, md: string, exitCode: number, linger?: () => Promise<void> }>}
 */
export async function runConsumer(plan) {
  return withLiveMetrics(plan, (live) => withLocal(plan, (a, local, counter) => consume(timeScaled(a), local, live, counter)));
}

/**
 * @param {Readonly<Record<string, any>>} a the plan, pointed at the local server when there is one
 * @param {import('../../local/local-redis.js').LocalRedis|null} local
 * @param {import('../../harness/live-endpoint.js').LiveMetrics|null} live
 * @param {import('../../local/callgrind.js').InstructionCounter|null} [counter] --count-instructions
 */
async function consume(a, local, live, counter = null) {
  const mode = modelOf(a).name;
  const storeCfg = storeConfigOf(a);
  const conn = connectionFrom(a);
  const topo = await discoverTopology(conn);
  const readFrom = readFromOf(a);
  const readers = Array.from({ length: a.readers }, (_, i) => i + 1);
  const plan = {
    periodMs: a.period,
    durationMs: a.duration * 1000,
    t0: 0,
    limit: a.limit,
    fetch: a.fetch,
    readFrom,
    ttl: a.ttl,
    timeScale: a.timeScale,
    script: a.scriptMode === 'script',
    replyTimeoutMs: a.replyTimeout,
  };
  /** @type {import('./process-pool.js').WorkerSpec[]} */
  const specs = readers.map((n) => ({
    kind: 'reader',
    label: `reader ${n}`,
    flags: connectionFlags(a),
    init: { mode, storeCfg, plan: { ...plan, spread: n - 1 } },
  }));
  const name = a.name || defaultName(a, mode);
  const p = (h, q) => (h ? stats(h)[q] : null);
  live?.label({ runName: name });
  const empty = new EmptyIndexWatch({
    names: createReadModel(mode, storeCfg).names,
    mode,
    target: describeConnection(conn),
    quiet: a.quiet,
    warmupS: a.warmup,
  });

  /**
   * The summary of what `run` measured, its outcome settled.
   * @param {import('./run-workers.js').WorkersRun} run
   * @param {import('./key-ttl.js').KeyTtl|null} keyTtl
   * @param {false|string} [interrupted]
   * @param {string} [unsaved] the save of this summary failed: one more problem of its outcome
   */
  /** @type {import('../../local/callgrind.js').NodeCount[]|null} the counter's dumps, once the window has ended */
  let counted = null;
  const summaryOf = (run, keyTtl, interrupted = run.interrupted, unsaved = undefined) => {
    const { recorder, dir } = run;
    const summary = summarizeConsumer({
      rows: recorder.rows,
      totals: recorder.totals,
      warmupS: a.warmup,
      durationS: run.durationS,
      readers: readers.length,
      periodMs: a.period,
      totalCounts: recorder.counts,
      errorKinds: recorder.errorKinds,
      measuresUniques: modelNamed(mode).can.uniques,
      // in the run's seconds: --time-scale makes the TTLs Redis counts down K times longer
      ttlS: a.ttl * (a.timeScale ?? 1),
      keyTtl,
      limit: a.limit,
      readFrom,
      unreachable: run.unreachable,
      drops: run.drops,
    });
    Object.assign(summary, { name, mode, fetch: a.fetch, readFrom, limit: a.limit, interrupted: !!interrupted, readerErrors: run.errors });
    summary.disturbances = episodes({ rows: recorder.rows, t0: run.t0, ...CONSUMER_ROWS.disturbedBy, actions: run.actionResults });
    if (run.actionResults.length) {
      summary.actions = run.actionResults;
      summary.disturbance = disturbances({
        rows: recorder.rows,
        actions: run.actionResults,
        t0: run.t0,
        p99Column: 'cycle_p99_ms',
        countColumns: ['errors', 'overruns'],
        levels: CONSUMER_ROWS.disturbedBy.levels,
      });
    }
    const warning = empty.warning(summary);
    const warnings = [...(run.warnings ?? []), ...(warning ? [warning] : [])];
    if (warnings.length) summary.warnings = warnings;
    const t = summary.totals;
    const problems = runProblems(run, dir);
    if (t.failedCycles) problems.push(`${t.failedCycles} of ${t.cycles} cycles failed`);
    if (unsaved) problems.push(unsaved);
    summary.outcome = outcome({ interrupted, problems });
    const md = renderConsumerMd({ name, description: run.manifest.description, interrupted: !!interrupted }, summary);
    const window = { rows: recorder.rows, warmupS: a.warmup, endS: run.durationS, timeScale: a.timeScale };
    return { summary, md: addInstructions({ summary, md, counted, ...window, counter: 'items', perWhat: 'item read' }) };
  };

  const run = await runWorkers({
    a,
    conn,
    topo,
    specs,
    name,
    local,
    live,
    command: 'consume',
    description: describe(a, mode, readFrom, topo, local),
    mode,
    storeCfg,
    workers: readers,
    columns: CONSUMER_ROWS.columns,
    rowOf: CONSUMER_ROWS.rowOf,
    progressOf: (iv) => (iv.counters.cycles || 0) > (iv.counters.failedCycles || 0),
    onSecond: (iv) => empty.second(iv),
    statusOf: (iv, cpu) => {
      const c = iv.counters;
      const card = c.cycles ? grouped(c.cardinality / c.cycles) : '-';
      return `${c.cycles} cycles  cardinality ${card}  items ${grouped(c.items)}  missing ${c.missing}  cycle p99 ${fixed(p(iv.hist.get('cycle.sent'), 'p99'), 1)} ms  ${readFrom} CPU ${cpuByShard(cpu, readFrom)}`;
    },
    lastWords: (sofar) => summaryOf(sofar, null),
    ...windowHooksOf(counter, a.period),
  });
  counted = counter && (await counter.result(run.dir));

  /** @param {import('./key-ttl.js').KeyTtl|null} keyTtl @param {false|string} [interrupted] */
  const save = (keyTtl, interrupted) => {
    const { summary, md } = summaryOf(run, keyTtl, interrupted);
    return run.harness.save(summary, md, {
      exitCode: summary.outcome.exitCode,
      writeError: run.writeError,
      restate: (unsaved) => summaryOf(run, keyTtl, interrupted, unsaved),
    });
  };
  // values went missing: the keys' own TTL says whether expiry can explain it (--ttl is only the read
  // window); a Ctrl-C while it is asked for leaves at once, with the summary saved without it
  const keyTtl =
    run.recorder.counts.missing > 0
      ? await leavingOn(
          (sig) => {
            save(null, sig);
          },
          () => sampleKeyTtl(conn, createReadModel(mode, storeCfg)),
        )
      : null;
  return save(keyTtl);
}

function describe(a, mode, readFrom, topo, local) {
  const what = a.limit ? `the newest ${a.limit} live items` : 'every live item';
  return `Consumer, data model ${mode}, ${a.readers} reader process(es) each reading ${what} every ${a.period} ms from the ${readFrom}s (${a.scriptMode}, values by ${a.fetch}), against ${shapeOf(topo)}${localNote(local)}; ${a.duration ? `${a.duration} s` : 'until Ctrl-C'}, TTL ${a.ttl} s.`;
}

function defaultName(a, mode) {
  const parts = [`consume-${mode}`, `r${a.readers}`, a.fetch];
  if (a.limit) parts.push(`limit${a.limit}`);
  if (a.scriptMode === 'script') parts.push('script');
  if (a.ns > 1) parts.push(`ns${a.ns}`);
  if (a.cluster) parts.push('cluster');
  return parts.join('-');
}
