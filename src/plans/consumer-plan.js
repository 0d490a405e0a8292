/** The consumer's flags: the seed's (-p, -s manual|script, --limit, --cluster) and rqbench's. */
import { settings } from '../settings.js';
import { FETCH_MODES } from '../workloads/items/fetch.js';
import { REPLY_TIMEOUT_MS } from '../transports/reply-watch.js';
import { bad, intIn } from '../usage-error.js';
import { checkModel, checkRun, modelOptions, runOptions } from './producer-plan.js';
import { modelOf } from '../workloads/items/stores/registry.js';
import { checkConnection } from './connection.js';
import { checkOutput } from './output.js';
import { checkMetrics } from './metrics-plan.js';
import { planOf } from './freeze.js';

/** @param {import('yargs').Argv} y */
export function consumerOptions(y) {
  const g = 'Reads (seed-compatible):';
  runOptions(
    y
      .option('period', {
        alias: 'p',
        type: 'number',
        requiresArg: true,
        default: settings.consumerPeriodMs,
        group: g,
        describe: 'one cycle per period per reader, ms',
      })
      .option('script-mode', {
        alias: 's',
        type: 'string',
        requiresArg: true,
        default: 'manual',
        group: g,
        describe: 'manual: ZCARD then ZRANGEBYSCORE; script: both in one Lua call (fetch-latest-items.lua)',
      })
      .option('limit', {
        type: 'number',
        requiresArg: true,
        default: 0,
        group: g,
        describe: 'read the newest N live items (ZREVRANGEBYSCORE … LIMIT 0 N); 0: every live item',
      })
      .option('readers', { alias: 'r', type: 'number', requiresArg: true, default: 1, group: g, describe: 'concurrent reader processes' })
      .option('fetch', {
        type: 'string',
        requiresArg: true,
        default: 'mget',
        group: g,
        describe: 'how values are fetched: mget (by slot), pipeline (GETs per node), get (the seed: one ioredis get per id)',
      })
      .option('read-from', {
        type: 'string',
        requiresArg: true,
        group: g,
        describe: 'master or replica',
        defaultDescription: 'replica with --cluster, master without',
      })
      .option('reply-timeout', {
        type: 'number',
        requiresArg: true,
        default: REPLY_TIMEOUT_MS,
        group: g,
        describe:
          "a read node silent this long while it owes a reply is given up on, ms: a replica's reads go to its master in the same cycle, a master's fail the cycle (--fetch get: replicas only); 0: wait for ever",
      }),
    g,
  );
  return modelOptions(y);
}

/**
 * Checks the consumer's flags; throws a UsageError naming the first bad one. Returns the values
 * the checks worked out (warm-up, --at actions), leaving `a` as it was.
 * @param {Readonly<Record<string, any>>} a
 * @returns {Record<string, any>}
 */
export function checkConsumer(a) {
  intIn(a.period, '-p', 1, 3_600_000);
  if (!['manual', 'script'].includes(a.scriptMode)) throw bad('-s', 'manual or script', a.scriptMode);
  intIn(a.limit, '--limit', 0, 100_000_000);
  intIn(a.readers, '--readers', 1, 256);
  if (!FETCH_MODES.includes(a.fetch)) throw bad('--fetch', `one of ${FETCH_MODES.join(', ')}`, a.fetch);
  if (a.readFrom !== undefined && !['master', 'replica'].includes(a.readFrom)) throw bad('--read-from', 'master or replica', a.readFrom);
  // unset (a plan built without the CLI's defaults): the reader's default
  if (a.replyTimeout !== undefined) intIn(a.replyTimeout, '--reply-timeout', 0, 3_600_000);
  const fills = checkRun(a);
  checkModel(a);
  if (a.scriptMode === 'script' && !modelOf(a).can.script)
    throw bad('-s script', 'used with a sorted-set model (the script reads a sorted set)');
  return fills;
}

/**
 * Every check of a consumer run, once, at the command's edge: the frozen plan it runs from.
 * @param {Readonly<Record<string, any>>} flags parsed (left as they are)
 */
export function consumerPlan(flags) {
  checkConnection(flags);
  const fills = { ...checkConsumer(flags), ...checkMetrics(flags) };
  checkOutput(flags);
  return planOf(flags, fills);
}
