/**
 * A capacity search's parsed flags → what its steps run with: the checked plan, the producer
 * flags every step passes on, how a step reaches the target (the password only in the
 * environment), and the consumer alongside. Shared by `rqbench capacity` and an experiment's
 * capacity step, so both accept exactly the same and say the same about a mistake.
 */
import yargs from 'yargs';
import { connectionOptions } from '../../plans/connection.js';
import { producerOptions } from '../../plans/producer-plan.js';
import { outputOptions } from '../../plans/output.js';
import { metricsOptions } from '../../plans/metrics-plan.js';
import { flagDefaults } from '../../plans/queue-plan.js';
import { capacityOptions, capacityPlan, SEARCH_OWNED } from '../../plans/capacity-plan.js';
import { kvOptions, kvPlan } from '../../plans/kv-plan.js';
import { commandProblem } from '../kinds/kind-flags.js';
import { UsageError } from '../../usage-error.js';
import { commandArgv } from '../../command-io.js';
import { MODEL_FLAGS, cliProblem, parseQuietly, toArgs } from '../flags.js';
import { COMMON_PARTS, ownedFlags } from '../command-line.js';

/** The producer's own flags (long names), their defaults, and which the target flags are. */
function producerFlagInfo() {
  const y = producerOptions(yargs([]));
  const o = y.getOptions();
  const aliases = new Set(Object.values(o.alias).flat());
  // --run-id names the search (its metrics' run_id), not each step: a step is a run of its own
  const names = Object.keys(o.key).filter((k) => !aliases.has(k) && !['help', 'version', 'run-id'].includes(k) && !(k in SEARCH_OWNED));
  return { names, defaults: { ...o.default, ...flagDefaults(y) }, alias: o.alias };
}

/** Connection flags a step passes on as they were given (the password never: it travels in the environment). */
const TARGET_FLAGS = ['host', 'port', 'user', 'tls', 'tls-ca', 'tls-insecure'];

/** Consumer flags the search sets for each step, as typed: its target, length and output. */
const CONSUMER_OWNED = new Set([...ownedFlags(COMMON_PARTS).keys()].map((k) => (k.length === 1 ? `-${k}` : `--${k}`)));

/** kv flags the search sets for each step, as typed: the consumer's, and the rate (a ramp would be no held rate). */
const KV_OWNED = new Set([...CONSUMER_OWNED, '--rate', '--ramp']);

/**
 * --kv "<flags>": the kv workload each step runs in place of the producer, checked by kv's own
 * options and plan on what the first step will run.
 * @param {Record<string, any>} a
 * @param {Record<string, any>} producerFlags the producer flags given: none may be, with --kv
 * @param {Record<string, string[]>} alias the producer's flags' other names
 * @param {Readonly<Record<string, any>>} plan
 * @param {string[]} target how the checks reach the target (--local, or the target flags)
 * @returns {string[]}
 */
function kvArgsOf(a, producerFlags, alias, plan, target) {
  if (typeof a.kv !== 'string' || !a.kv.trim())
    throw new UsageError('--kv must be rqbench kv\'s flags in one argument, e.g. --kv="--preset ycsb-b --key-dist zipf:0.99"');
  const given = Object.keys(producerFlags)[0];
  if (given !== undefined) {
    // as typed: -t, not its long name
    const typed = commandArgv().find((w) =>
      [given, ...(alias[given] ?? [])].some((n) => w.split('=')[0] === (n.length === 1 ? `-${n}` : `--${n}`)),
    );
    throw new UsageError(
      `${typed?.split('=')[0] ?? `--${given}`} is a producer flag: with --kv every step runs rqbench kv, whose flags go in --kv`,
    );
  }
  if (a.consumer !== undefined) throw new UsageError('--consumer reads what the producer writes: it does not run beside --kv');
  const own = a.kv.trim().split(/\s+/);
  const owned = own.find((t) => KV_OWNED.has(t.split('=')[0]));
  if (owned) throw new UsageError(`--kv: ${owned} is set by the capacity search (each step's --rate, length, target and output)`);
  const first = [...own, ...target, '--rate', String(plan.startRate), '-d', String(plan.stepSeconds), '--warmup', String(plan.stepWarmup)];
  const problem = commandProblem(
    first,
    (y) => kvOptions(metricsOptions(outputOptions(connectionOptions(y)))),
    kvPlan,
    (flag) => `--kv's ${flag.length === 1 ? '-' : '--'}${flag}`,
    'kv',
  );
  if (problem) throw new UsageError(problem);
  return own;
}

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
  if (typeof a.consumer !== 'string')
    throw new UsageError('--consumer must be the consumer\'s flags in one argument, e.g. --consumer="-r 2 --fetch pipeline"');
  const own = a.consumer.trim().split(/\s+/).filter(Boolean);
  const owned = own.find((t) => CONSUMER_OWNED.has(t.split('=')[0]));
  if (owned)
    throw new UsageError(`--consumer: ${owned} is set by the capacity search (the consumer runs each step, on the producer's target)`);
  const args = [...toArgs(Object.fromEntries(Object.entries(producerFlags).filter(([k]) => MODEL_FLAGS.includes(k)))), ...own];
  const problem = cliProblem(
    'consumer',
    [...args, ...target, '-d', String(plan.stepSeconds), '--warmup', String(plan.stepWarmup)],
    (names) => `--consumer's --${names.split('|').sort((x, y) => y.length - x.length)[0]}`,
  );
  if (problem) throw new UsageError(problem);
  return args;
}

/**
 * @param {Record<string, any>} a parsed flags
 * @returns {{ plan: Readonly<Record<string, any>>, producerFlags: Record<string, any>, consumerArgs: string[]|null, kvArgs?: string[], targetArgs: string[], env: NodeJS.ProcessEnv }}
 * @throws {UsageError}
 */
export function prepareCapacity(a) {
  const env = { ...process.env };
  const targetArgs = [];
  const info = producerFlagInfo();
  const plan = capacityPlan(a, info.defaults);
  const producerFlags = Object.fromEntries(info.names.filter((k) => a[k] !== undefined && a[k] !== info.defaults[k]).map((k) => [k, a[k]]));
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
  const target = plan.local ? ['--local', ...(a.cluster ? ['--cluster'] : [])] : targetArgs;
  if (a.kv !== undefined)
    return { plan, producerFlags: {}, consumerArgs: null, kvArgs: kvArgsOf(a, producerFlags, info.alias, plan, target), targetArgs, env };
  // the producer's own checks, on what the first step will run
  const first = [
    ...toArgs(producerFlags),
    ...target,
    '-q',
    String(Math.round((plan.startRate * (a.period ?? 1000)) / 1000)),
    '-d',
    String(plan.stepSeconds),
    '--warmup',
    String(plan.stepWarmup),
  ];
  const consumerArgs = a.consumer === undefined ? null : consumerArgsOf(a, producerFlags, plan, target);
  const problem = cliProblem('producer', first, (names) =>
    names.split('|').includes('q') ? '--start-rate (as -q per period)' : `--${names.split('|').sort((x, y) => y.length - x.length)[0]}`,
  );
  if (problem) throw new UsageError(problem);
  return { plan, producerFlags, consumerArgs, targetArgs, env };
}

/**
 * An experiment's capacity step, as argv: parsed with the command's own options and checked by
 * its own checks. A problem comes back as one line whose first flag is replaced by the spec
 * field it came from.
 * @param {string[]} argv
 * @param {(flag: string) => string} pathOf a flag as typed ('--slo-p99', '-t') → its field path
 * @returns {string|null}
 */
export function capacityArgvProblem(argv, pathOf) {
  const { a, failure, unknown, notNumber } = parseQuietly(argv, (y) =>
    capacityOptions(metricsOptions(outputOptions(producerOptions(connectionOptions(y))))),
  );
  const named = (/** @type {string} */ line) => line.replace(/^-{1,2}[A-Za-z][\w-]*/, (flag) => pathOf(flag));
  if (failure)
    return unknown
      ? `${pathOf(unknown.length === 1 ? `-${unknown}` : `--${unknown}`)} is not a capacity flag (see rqbench capacity --help)`
      : named(failure);
  if (notNumber) return named(notNumber);
  try {
    prepareCapacity(a);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return named(e.message);
  }
  return null;
}
