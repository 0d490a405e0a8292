/**
 * `rqbench capacity`: the highest rate the target holds for a data model, topology and writers,
 * found by ramping and bisecting real producer runs, with the node that limits it and a
 * projection of where each node saturates.
 */
import yargs from 'yargs';
import { connectionOptions } from '../plans/connection.js';
import { producerOptions } from '../plans/producer-plan.js';
import { outputOptions } from '../plans/output.js';
import { flagDefaults } from '../plans/queue-plan.js';
import { capacityOptions, capacityPlan, SEARCH_OWNED } from '../plans/capacity-plan.js';
import { instanceOf } from '../plans/instance.js';
import { UsageError } from '../usage-error.js';
import { MODEL_FLAGS, cliProblem, toArgs } from '../experiments/flags.js';
import { runCapacity } from '../experiments/capacity/run-capacity.js';
import { redactString } from '../results/redact.js';

const PROG = 'rqbench capacity';

export const command = 'capacity';
export const describe = 'find the highest rate that holds (ramp, then bisection), what limits it, and where each node saturates';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return capacityOptions(outputOptions(producerOptions(connectionOptions(y))))
    .example('$0 capacity --local -t 2 --slo-p99 50', 'a throwaway local Redis: the highest zset rate with p99 ≤ 50 ms')
    .example('$0 capacity --local --node-cpus 0.5 -t 2', 'the same on a node capped at half a core')
    .example('$0 capacity --url redis://10.0.0.5:6379 --cluster -t 8 --ns 10 --instance-type r6g.large --hourly-price 0.1008', 'an ElastiCache cluster, with its price for the cost table');
}

/** The producer's own flags (long names), their defaults, and which the target flags are. */
function producerFlagInfo() {
  const y = producerOptions(yargs([]));
  const o = y.getOptions();
  const aliases = new Set(Object.values(o.alias).flat());
  const names = Object.keys(o.key).filter((k) => !aliases.has(k) && k !== 'help' && k !== 'version' && !(k in SEARCH_OWNED));
  return { names, defaults: { ...o.default, ...flagDefaults(y) } };
}

/** Connection flags a step passes on as they were given (the password never: it travels in the environment). */
const TARGET_FLAGS = ['host', 'port', 'user', 'tls', 'tls-ca', 'tls-insecure'];

/** Consumer flags the search sets for each step. */
const CONSUMER_OWNED = new Set(['-d', '--duration', '--warmup', '--start-at', '--out', '-o', '--name', '-n', '--json', '--quiet', '--url', '--host', '-h', '--port',
  '--local', '--cluster', '--cm', '--user', '--password', '--tls', '--tls-ca', '--tls-insecure', '--masters', '--replicas', '--node-cpus']);

/**
 * --consumer "<flags>": the consumer run alongside every step, reading the producer's data model,
 * checked by the consumer's own checks.
 * @param {Record<string, any>} a
 * @param {Record<string, any>} producerFlags
 * @param {Readonly<Record<string, any>>} plan
 * @param {string[]} target how the checks reach the target (--local, or the target flags)
 * @returns {string[]}
 */
function consumerArgsOf(a, producerFlags, plan, target) {
  if (typeof a.consumer !== 'string') throw new UsageError('--consumer must be the consumer\'s flags in one argument, e.g. --consumer "-r 2 --fetch pipeline"');
  const own = a.consumer.trim().split(/\s+/).filter(Boolean);
  const owned = own.find((t) => CONSUMER_OWNED.has(t.split('=')[0]));
  if (owned) throw new UsageError(`--consumer: ${owned} is set by the capacity search (the consumer runs each step, on the producer's target)`);
  const args = [...toArgs(Object.fromEntries(Object.entries(producerFlags).filter(([k]) => MODEL_FLAGS.includes(k)))), ...own];
  const problem = cliProblem('consumer', [...args, ...target, '-d', String(plan.stepSeconds), '--warmup', String(plan.stepWarmup)], (names) => `--consumer's --${names.split('|').sort((x, y) => y.length - x.length)[0]}`);
  if (problem) throw new UsageError(problem);
  return args;
}

/**
 * @param {Record<string, any>} a parsed flags
 */
export async function handler(a) {
  let plan;
  let producerFlags;
  /** @type {string[]|null} */
  let consumerArgs = null;
  const env = { ...process.env };
  const targetArgs = [];
  try {
    const info = producerFlagInfo();
    plan = capacityPlan(a, info.defaults);
    producerFlags = Object.fromEntries(info.names.filter((k) => a[k] !== undefined && a[k] !== info.defaults[k]).map((k) => [k, a[k]]));
    if (!plan.local) {
      if (a.url) {
        const u = new URL(a.url);
        if (u.password) env.REDIS_PASSWORD = decodeURIComponent(u.password);
        u.password = '';
        targetArgs.push('--url', u.toString());
      }
      for (const k of TARGET_FLAGS) if (a[k] !== undefined && a[k] !== false) targetArgs.push(...toArgs({ [k]: a[k] }));
      if (a.password) env.REDIS_PASSWORD = a.password;
      if (a.cluster) targetArgs.push('--cluster');
    }
    // the producer's own checks, on what the first step will run
    const target = plan.local ? ['--local', ...(a.cluster ? ['--cluster'] : [])] : targetArgs;
    const first = [...toArgs(producerFlags), ...target,
      '-q', String(Math.round(plan.startRate * (a.period ?? 1000) / 1000)), '-d', String(plan.stepSeconds), '--warmup', String(plan.stepWarmup)];
    consumerArgs = a.consumer === undefined ? null : consumerArgsOf(a, producerFlags, plan, target);
    const problem = cliProblem('producer', first, (names) => (names.split('|').includes('q') ? '--start-rate (as -q per period)' : `--${names.split('|').sort((x, y) => y.length - x.length)[0]}`));
    if (problem) throw new UsageError(problem);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`${PROG}: ${e.message}\n`);
    process.exit(2);
  }
  const typed = process.argv.slice(2).map((x, i, all) => (all[i - 1] === '--password' ? '***' : redactString(x)));
  const out = await runCapacity({ plan, producerFlags, targetArgs, consumerArgs, env, command: `rqbench ${typed.join(' ')}`, instance: instanceOf(plan) });
  if (plan.json) process.stdout.write(`${JSON.stringify(out.result, null, 2)}\n`);
  else if (!plan.quiet) process.stdout.write(`${out.result.answer}\n${out.result.projectionLine}\n`);
  process.stderr.write(`${PROG}: wrote ${out.dir}\n`);
  process.exitCode = out.exitCode;
}
