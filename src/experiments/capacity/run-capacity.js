/**
 * Runs a capacity search: every step is the real producer (`node src/producer.js …`, a run
 * directory of its own under the search's directory), judged by held.js, steered by search.js,
 * its boundary re-tested into a bracket by bracket.js, and the held steps fitted by
 * projection.js. A local topology (--local, capped with --node-cpus) is started once for the
 * whole search, so every step meets the same servers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startRedis } from '../../local/local-redis.js';
import { createRunDir, writeJson, writeText } from '../../record/run-dir.js';
import { grouped, fixed } from '../../record/format.js';
import { stepArgv } from '../command-line.js';
import { clock } from '../progress.js';
import { MODEL_FLAGS } from '../../workloads/items/stores/registry.js';
import { newestRunDir, readJson } from '../layout.js';
import { Stopper, relayArgs, runChild } from '../children.js';
import { MetricsHub } from '../../harness/metrics-hub.js';
import { consumerReasons, judge } from './held.js';
import { majorityOf, searchMax } from './search.js';
import { confirmBoundary } from './bracket.js';
import { checkAgainstSearch, project } from '../../report/capacity/projection.js';
import { writeCapacityHtml } from '../../report/capacity/capacity-html.js';
import { answerLine, capacityMd, confirmWords, noiseWords, perSec, projectionLine } from '../../report/capacity/capacity-md.js';
import { trialNoise } from '../trial-noise.js';
import { writeErr } from '../../command-io.js';
import { SharedStart } from '../shared-start.js';

/**
 * @typedef {object} CapacityRun
 * @property {Readonly<Record<string, any>>} plan          capacityPlan()
 * @property {Record<string, any>} producerFlags          the producer flags every step runs with (a FlagMap)
 * @property {string[]} targetArgs                        how a step reaches the target (none with --local)
 * @property {string[]|null} consumerArgs                 a consumer run alongside each step (its flags), or none
 * @property {string[]} [kvArgs]                          --kv: each step runs rqbench kv with these flags in place of the producer
 * @property {NodeJS.ProcessEnv} env                      the steps' environment (REDIS_PASSWORD travels here)
 * @property {string} command                             the command as typed, secrets masked
 * @property {Record<string, any>|null} instance
 * @property {(line: string) => void} [log]
 */

/**
 * @param {CapacityRun} r
 * @returns {Promise<{ dir: string, exitCode: number, result: any, live: { hub: MetricsHub, runId: string }|null }>}
 */
export async function runCapacity(r) {
  const log = r.log ?? ((l) => writeErr(`${l}\n`));
  /** the shared --start-at of a step with a consumer, moved further ahead when a child misses it */
  const sharedStart = new SharedStart();
  const p = r.plan;
  const name = p.name ?? `capacity-${r.kvArgs ? 'kv' : modelName(r.producerFlags)}`;
  // the run each step is: the producer's, or with --kv a kv workload's (its rates are operations)
  const role = r.kvArgs ? 'kv' : 'producer';
  // the endpoint listens before anything is written: a port in use is bad input, nothing made
  const live = p.metricsPort
    ? {
        hub: await MetricsHub.open({
          port: p.metricsPort,
          host: p.metricsHost,
          lingerS: p.metricsLinger,
          labels: { run_id: p.metricsRunId, run_name: name, ...p.metricsLabels },
          buckets: p.metricsBuckets,
          quiet: p.quiet,
        }),
        runId: p.metricsRunId,
      }
    : null;
  const dir = createRunDir(p.out, name);
  const stopper = new Stopper(log, 'rqbench capacity');
  const criteria = {
    minAchieved: p.minAchieved,
    sloP99Ms: p.sloP99,
    engineCeiling: p.engineCeiling,
    nodeCpus: p.nodeCpus ?? 1,
    headroom: p.headroom,
    maxRate: p.maxRate,
    unit: /** @type {'items'|'operations'} */ (r.kvArgs ? 'operations' : 'items'),
  };
  /** @type {import('../../report/capacity/capacity-md.js').CapacityStep[]} */
  const steps = [];
  let local = null;
  let failure = null;
  /** @type {import('./search.js').SearchResult} */
  let search = { max: null, failedAbove: null, end: 'stopped' };
  /** @type {import('./bracket.js').Confirmation|null} */
  let confirmation = null;
  const started = Date.now();
  try {
    let targetArgs = r.targetArgs;
    if (p.local) {
      local = await startRedis({
        cluster: !!p.cluster,
        masters: p.masters,
        replicas: p.replicas,
        cpus: p.nodeCpus,
        signal: stopper.signal,
      });
      const cap = p.nodeCpus ? `, each node capped at ${p.nodeCpus} of a core` : '';
      log(
        `rqbench capacity: started a local ${p.cluster ? `cluster of ${local.nodes.length} nodes` : `Redis with ${local.nodes.length - 1} replica(s)`} at ${local.url}${cap}`,
      );
      targetArgs = ['--url', local.url, ...(p.cluster ? ['--cluster'] : [])];
    }
    const period = r.producerFlags.p ?? r.producerFlags.period ?? 1000;
    /** @param {number} rate @param {'ramp'|'bisect'|'confirm'|'widen'} phase @returns {Promise<boolean|null>} */
    const runStep = async (rate, phase) => {
      if (stopper.stopped) return null;
      const n = steps.length + 1;
      // the steps' CLIs run in the checkout (their argv names src/producer.js): an absolute --out
      // lands them here whatever directory the search was started from
      const stepDir = path.join(dir, `step-${String(n).padStart(2, '0')}-${rate}`);
      fs.mkdirSync(stepDir);
      const q = Math.max(1, Math.round((rate * period) / 1000));
      // with a consumer, both start together on a shared --start-at, as an experiment step does
      let startAt = r.consumerArgs ? sharedStart.at() : null;
      const common = (name) => ({
        target: targetArgs,
        length: { duration: p.stepSeconds, warmup: p.stepWarmup, startAt },
        output: { out: path.resolve(stepDir), name, json: true },
      });
      const argvs = () => [
        r.kvArgs
          ? stepArgv({ cli: ['src/cli.js', 'kv'], args: [...r.kvArgs, '--rate', String(rate)], ...common('kv') })
          : stepArgv({ cli: ['src/producer.js'], flags: r.producerFlags, args: ['-q', String(q)], ...common('producer') }),
        ...(r.consumerArgs ? [stepArgv({ cli: ['src/consumer.js'], args: r.consumerArgs, ...common('consumer') })] : []),
      ];
      log(
        `rqbench capacity: [${n}] ${phase} ${grouped(rate)} ${perSec(criteria)} (${p.stepSeconds} s) … ${clock((Date.now() - started) / 1000)} so far`,
      );
      const spawn = () =>
        Promise.all(
          argvs().map((argv) => runChild([...argv, ...relayArgs(live, `${n}-${rate}`)], stopper, { env: r.env, hub: live?.hub })),
        );
      let children = await spawn();
      // a host too busy to start the workers before the shared start: the pair once more, further ahead
      if (startAt && !stopper.stopped && sharedStart.missed(children)) {
        log(
          `rqbench capacity: [${n}] a child was ready a second or more after the shared start; running the pair again, started ${sharedStart.leadMs / 1000} s ahead`,
        );
        startAt = sharedStart.at();
        children = await spawn();
      }
      const [summary, consumer] = [role, 'consumer'].map((who) => {
        const runDir = newestRunDir(stepDir, who);
        return runDir && readJson(path.join(runDir, 'summary.json'));
      });
      if (stopper.stopped || summary?.interrupted || consumer?.interrupted) return null;
      // exit 1 with a summary is a step that ran and did not hold; anything else is no step at all
      const broken = children.findIndex((c, i) => !(i ? consumer : summary) || (c.code !== 0 && c.code !== 1));
      if (broken >= 0) {
        const c = children[broken];
        throw new Error(
          `step ${n} at ${grouped(rate)} ${perSec(criteria)}: the ${broken ? 'consumer' : role === 'kv' ? 'kv run' : 'producer'} exited with ${c.code ?? c.signal}: ${c.lastLine || 'no summary'}`,
        );
      }
      const j = judge(summary, criteria);
      if (r.consumerArgs) {
        const more = consumerReasons(consumer);
        j.reasons.push(...more);
        if (more.length && j.held) Object.assign(j, { held: false, limit: { kind: 'failures' } });
      }
      steps.push({
        rate,
        phase,
        dir: path.relative(dir, newestRunDir(stepDir, role)),
        held: j.held,
        reasons: j.reasons,
        limit: j.limit,
        figures: j.figures,
      });
      const f = j.figures;
      log(
        `rqbench capacity: [${n}] ${grouped(rate)} ${j.held ? 'held' : 'not held'}: achieved ${grouped(f.achieved)} ${perSec(criteria)}, p99 ${fixed(f.p99, 1)} ms, busiest master engine ${fixed(f.busiestMaster?.engine, 0)}%${j.held ? '' : ` — ${j.reasons.join('; ')}`}`,
      );
      return j.held;
    };
    // --tries: each ramp and bisection step is the majority of several tries (the re-tests below stay single)
    const searchStep = p.tries > 1 ? majorityOf(runStep, p.tries) : runStep;
    search = await searchMax({ startRate: p.startRate, maxRate: p.maxRate, growth: p.growth, precision: p.precision }, searchStep);
    // one step near a cliff must not decide the answer alone: both ends of the boundary again,
    // each moved out until it repeats itself
    confirmation = await confirmBoundary(search, { times: p.confirm, maxRate: p.maxRate }, runStep);
    if (confirmation) log(`rqbench capacity: ${confirmWords(confirmation, perSec(criteria))}`);
  } catch (e) {
    failure = e.message;
  } finally {
    await local?.stop();
    stopper.dispose();
  }
  const partial = { search, confirmation, steps, projection: project(steps, criteria), criteria };
  const result = { ...partial, projectionCheck: checkAgainstSearch(partial) };
  const answer = failure ? `failed: ${failure}` : answerLine(result);
  const projection = projectionLine(result);
  const noise = trialNoise(dir);
  const doc = {
    command: r.command,
    instance: r.instance,
    ...(p.nodeCpus ? { nodeCpus: p.nodeCpus } : {}),
    answer,
    projectionLine: projection,
    noiseLine: noiseWords(noise),
    noise,
    ...result,
    producerFlags: r.producerFlags,
    ...(r.kvArgs && { kvArgs: r.kvArgs }),
    tookSeconds: Math.round((Date.now() - started) / 1000),
  };
  writeJson(path.join(dir, 'capacity.json'), doc);
  const md = capacityMd(result, { command: r.command, instance: r.instance, answer, noiseLine: doc.noiseLine });
  writeText(path.join(dir, 'capacity.md'), md);
  await writeCapacityHtml(dir, `rqbench capacity: ${path.basename(dir)}`, md, steps);
  const exitCode = stopper.stopped ? 130 : failure || search.end === 'none-held' ? 1 : 0;
  return { dir, exitCode, result: doc, live };
}

/** The data model's name for the directory: the first model flag given, or zset. */
function modelName(flags) {
  return [...MODEL_FLAGS, 'actual-value'].find((k) => flags[k] === true) ?? 'zset';
}
