/**
 * A producer run from its plan to files: reach the target, run the writers on one shared
 * schedule (run-workers.js), then summarize in the seed's words. The flags were checked and
 * frozen into the plan at the command's edge (plans/producer-plan.js).
 */
import { connectionFrom } from '../../transports/redis.js';
import { discoverTopology } from '../../transports/topology.js';
import { idRange } from '../../harness/schedule.js';
import { verifyAcked } from './verify.js';
import { disturbances, episodes } from '../../runs/common/disturbance.js';
import { outcome, runProblems } from '../../record/outcome.js';
import { modelNamed, modelOf } from './stores/registry.js';
import { storeConfigOf } from './stores/keys.js';
import { connectionFlags, runWorkers } from './run-workers.js';
import { stats } from '../../measure/histogram.js';
import { summarize } from '../../runs/produce/produce-summary.js';
import { renderSummaryMd } from '../../runs/produce/produce-summary-md.js';
import { cpuByShard } from '../../runs/common/cpu-md.js';
import { fixed, grouped, instanceText } from '../../record/format.js';
import { shapeOf } from '../../harness/manifest.js';
import { PRODUCER_ROWS } from '../../runs/produce/produce-run.js';
import { localNote, withLocal } from '../../local/for-run.js';
import { withLiveMetrics } from '../../harness/live-metrics.js';
import { leavingOn } from '../../harness/signals.js';
import { writeErr } from '../../command-io.js';
import { keyMemory } from '../../measure/key-memory.js';
import { addInstructions, windowHooksOf } from './counted-run.js';
import { timeScaled } from '../../harness/time-scale.js';

/**
 * @param {Readonly<Record<string, any>>} plan checked and frozen (plans/producer-plan.js)
 * @returns {Promise<{ dir: string, summary: object, md: string, exitCode: number, linger?: () => Promise<void> }>}
 */
export async function runProducer(plan) {
  return withLiveMetrics(plan, (live) => withLocal(plan, (a, local, counter) => produce(timeScaled(a), local, live, counter)));
}

/**
 * @param {Readonly<Record<string, any>>} a the plan, pointed at the local server when there is one
 * @param {import('../../local/local-redis.js').LocalRedis|null} local
 * @param {import('../../harness/live-endpoint.js').LiveMetrics|null} live
 * @param {import('../../local/callgrind.js').InstructionCounter|null} [counter] --count-instructions
 */
async function produce(a, local, live, counter = null) {
  const mode = modelOf(a).name;
  const storeCfg = storeConfigOf(a);
  const conn = connectionFrom(a);
  const topo = await discoverTopology(conn);
  const writerNumbers = a.writer ? [a.writer] : Array.from({ length: a.writers }, (_, i) => i + 1);
  const basePlan = {
    q: a.quantity,
    t: a.writers,
    periodMs: a.period,
    chunks: a.chunks,
    durationMs: a.duration * 1000,
    t0: 0,
    verify: !!a.verify,
    client: a.client,
    timeScale: a.timeScale,
  };
  /** @type {import('./process-pool.js').WorkerSpec[]} */
  const specs = writerNumbers.map((n) => ({
    kind: 'writer',
    label: `writer ${n}`,
    flags: connectionFlags(a),
    init: { mode, storeCfg, plan: { ...basePlan, a: n } },
  }));
  const targetRate = (writerNumbers.reduce((s, n) => s + idRange(a.quantity, a.writers, n).count, 0) * 1000) / a.period;
  const name = a.name || defaultName(a, mode);
  live?.label({ runName: name, extra: { writer: writersLabel(writerNumbers) } });
  let errors = 0;
  /** @type {{ keys: import('../../measure/key-memory.js').KeyShape[], keysErrors?: string[] }|null} where the bytes are, once read */
  let keys = null;
  /** @type {import('../../local/callgrind.js').NodeCount[]|null} the counter's dumps, once the window has ended */
  let counted = null;
  /**
   * The summary of what `run` measured, its outcome settled.
   * @param {import('./run-workers.js').WorkersRun} run
   * @param {{ verify?: object, interrupted?: false|string, unsaved?: string }} [more] --verify's result (or why it did
   *   not run); unsaved: the save of this summary failed, one more problem of its outcome
   */
  const summaryOf = (run, { verify, interrupted = run.interrupted, unsaved } = {}) => {
    const { recorder, dir } = run;
    const summary = summarize({
      rows: recorder.rows,
      totals: recorder.totals,
      ackedDue: recorder.ackedDue,
      warmupS: a.warmup,
      durationS: run.durationS,
      targetRate,
      writers: writerNumbers.length,
      totalCounts: recorder.counts,
      errorKinds: recorder.errorKinds,
      unreachable: run.unreachable,
      drops: run.drops,
      cost: {
        starts: run.starts,
        // in the run's seconds: --time-scale makes the TTLs Redis counts down K times longer
        ttlS: a.ttl * (a.timeScale ?? 1),
        // without --verify every period writes the same ids again: no more than these are ever live
        distinctIds: a.verify ? null : (targetRate * a.period) / 1000,
        partOf: writerNumbers.length < a.writers ? `writer ${writersLabel(writerNumbers)} of ${a.writers}` : null,
      },
    });
    if (keys) Object.assign(summary.cost, keys);
    // sentBy, not client: summary.client is the load generator's own cost (CPU, event loop, memory)
    Object.assign(summary, {
      name,
      mode,
      sentBy: a.client ?? 'rqbench',
      interrupted: !!interrupted,
      writerErrors: run.errors,
      itemsPerWriterPerSecTarget: targetRate / writerNumbers.length,
    });
    const seconds = { rows: recorder.rows, t0: run.t0, ...PRODUCER_ROWS.disturbedBy, ackedDue: recorder.ackedDue };
    summary.disturbances = episodes({ ...seconds, actions: run.actionResults });
    if (run.actionResults.length) {
      summary.actions = run.actionResults;
      summary.disturbance = disturbances({
        ...seconds,
        countColumns: ['moved', 'ask', 'retries', 'failed', 'errors'],
        actions: run.actionResults,
      });
    }
    if (verify) summary.verify = verify;
    const t = summary.totals;
    const problems = runProblems(run, dir);
    if (t.failed) problems.push(`${t.failed} items failed`);
    if (t.unacked) problems.push(`${t.unacked} items were not acknowledged when the run ended`);
    if (summary.verify?.skipped) problems.push(`--verify did not read the items back: ${summary.verify.skipped}`);
    if (summary.verify?.error) problems.push(`--verify could not read the items back: ${summary.verify.error}`);
    if (summary.verify?.lost) problems.push(`--verify: ${summary.verify.lost} acknowledged items lost`);
    if (unsaved) problems.push(unsaved);
    summary.outcome = outcome({ interrupted, problems });
    const md = renderSummaryMd({ name, description: run.manifest.description, interrupted: !!interrupted }, summary);
    const window = { rows: recorder.rows, warmupS: a.warmup, endS: run.durationS, timeScale: a.timeScale };
    return { summary, md: addInstructions({ summary, md, counted, ...window, counter: 'acked', perWhat: 'item acknowledged' }) };
  };
  // said in every summary written before the read-back has its result: a run that ends first (a
  // second Ctrl-C, a signal during the read-back, a kill) does not drop --verify without a word
  const notYet = (why) => (a.verify ? { verify: { skipped: why } } : {});

  const run = await runWorkers({
    a,
    conn,
    topo,
    specs,
    name,
    local,
    live,
    command: 'produce',
    description: describe(a, mode, writerNumbers, topo, local),
    mode,
    storeCfg,
    workers: writerNumbers,
    columns: PRODUCER_ROWS.columns,
    rowOf: PRODUCER_ROWS.rowOf,
    progressOf: (iv) => (iv.counters.acked || 0) > 0,
    statusOf: (iv, cpu) => {
      const c = iv.counters;
      errors += (c.failed || 0) + (c.errors || 0);
      const b = iv.hist.get('batch.intended');
      return `${grouped(c.acked || 0)}/${grouped(targetRate)} items/s  p99 ${fixed(b ? stats(b).p99 : NaN, 1)} ms  errors ${errors}  master CPU ${cpuByShard(cpu, 'master')}  client ${fixed(iv.client.cpuPct, 0)}%`;
    },
    lastWords: (sofar) => summaryOf(sofar, notYet('the run was left at once (a second Ctrl-C) before the read-back')),
    ...windowHooksOf(counter, a.period / a.chunks),
  });
  counted = counter && (await counter.result(run.dir));

  // where the bytes are: the keys as the run left them (not after a Ctrl-C: the user asked to stop)
  if (!run.interrupted && !run.writeError) keys = await keysNow(conn);
  /** @param {{ verify?: object, interrupted?: false|string }} [more] */
  const finish = (more) => {
    const { summary, md } = summaryOf(run, more);
    return run.harness.save(summary, md, {
      exitCode: summary.outcome.exitCode,
      writeError: run.writeError,
      restate: (unsaved) => summaryOf(run, { ...more, unsaved }),
    });
  };
  if (!a.verify || run.writeError) return finish();
  // written first without the result: reading back can take a while, and the process may end during it
  finish(notYet('the process ended before the read-back finished'));
  // with --verify, period p writes ids p*q+1 … (p+1)*q: an id tells when it was written
  const secondOf = (id) => Math.floor(((Math.ceil(id / a.quantity) - 1) * a.period) / 1000);
  // a Ctrl-C during the read-back leaves at once (the run is over), its summary saying the read-back did not finish
  const verify = await leavingOn(
    (sig) => {
      finish({ interrupted: sig, ...notYet(`a ${sig} ended the read-back before it finished`) });
    },
    () => verifyRun(conn, modelNamed(mode).readBack(storeCfg), secondOf, run, a.quiet),
  );
  return finish({ verify });
}

/**
 * MEMORY USAGE by key shape on every master as the topology lists them now; a failure is said in
 * the summary, never the run's.
 * @param {import('../../transports/redis.js').RedisConn} conn
 */
async function keysNow(conn) {
  try {
    const { nodes } = await discoverTopology(conn);
    const { shapes, errors } = await keyMemory(conn, nodes);
    return errors.length ? { keys: shapes, keysErrors: errors } : { keys: shapes };
  } catch (e) {
    return { keys: [], keysErrors: [e.message] };
  }
}

/** --verify after the run: reads back every acknowledged item; a failure to read is reported, not thrown. */
async function verifyRun(conn, readBack, secondOf, run, quiet) {
  if (!quiet) writeErr(`verifying ${grouped(run.ackedIds.reduce((n, [lo, hi]) => n + hi - lo + 1, 0))} acknowledged items…\n`);
  try {
    return await verifyAcked({ conn, keyOf: readBack.keyOf, valueArgs: readBack.valueArgs, secondOf, runs: run.ackedIds });
  } catch (e) {
    return { error: e.message };
  }
}

function describe(a, mode, writers, topo, local) {
  const flags = `-q ${a.quantity} -p ${a.period} -c ${a.chunks} -t ${a.writers}${a.writer ? ` -a ${a.writer}` : ''}`;
  const instance = instanceText(a) ? ` (instance ${instanceText(a)})` : '';
  const client = a.client === 'ioredis' ? ", sent by ioredis (the seed's client: redirects are its own)" : '';
  return `Producer, data model ${mode}${client}, ${flags}, ${writers.length} writer process(es) here, against ${shapeOf(topo)}${localNote(local)}${instance}; ${a.duration ? `${a.duration} s` : 'until Ctrl-C'}, TTL ${a.ttl} s, ${a.valueSize} B values.`;
}

/**
 * The writers run here as one label value: "3" (-a 3), "1-8" (all 8 here).
 * @param {number[]} numbers ascending
 */
export function writersLabel(numbers) {
  const contiguous = numbers.every((n, i) => i === 0 || n === numbers[i - 1] + 1);
  return numbers.length > 1 && contiguous ? `${numbers[0]}-${numbers.at(-1)}` : numbers.join(',');
}

function defaultName(a, mode) {
  const parts = [`produce-${mode}`, `q${a.quantity}`, `t${a.writers}`];
  if (a.writer) parts.push(`a${a.writer}`);
  if (a.chunks > 1) parts.push(`c${a.chunks}`);
  if (a.ns > 1) parts.push(`ns${a.ns}`);
  if (a.sameSlot) parts.push('same-slot');
  if (a.actualValue) parts.push('values');
  if (a.cluster) parts.push('cluster');
  return parts.join('-');
}
