/**
 * `rqbench capacity`: the search's own flags, and the producer flags each step runs with. Every
 * producer flag applies (the data model, writers, chunks, --cluster …) except those the search
 * sets itself (the rate, the run length, the output). Checked here once, before anything starts:
 * the search's flags by their own rules, the producer's by the producer's checks on the argv the
 * first step would run.
 */
import { bad, UsageError } from '../usage-error.js';
import { checkConnection } from './connection.js';
import { checkOutput } from './output.js';
import { checkInstance } from './instance.js';
import { planOf } from './freeze.js';
import { checkMetrics } from './metrics-plan.js';

/** Producer flags the search owns: a step's rate, length and output are its own. */
export const SEARCH_OWNED = {
  quantity: '--start-rate and --max-rate',
  duration: '--step-seconds',
  warmup: '--step-warmup',
  'start-at': 'the search',
  at: 'nothing (a search needs a steady cluster)',
  writer: 'nothing (a search runs all -t writers here)',
  announce: 'nothing (the search names its own servers to its steps)',
};

/** How the owned flags are usually typed. */
const SHOWN = { quantity: '-q', duration: '-d', writer: '-a' };

/** @param {import('yargs').Argv} y */
export function capacityOptions(y) {
  const g = 'Capacity search:';
  return y
    .option('start-rate', {
      type: 'number',
      requiresArg: true,
      default: 10000,
      group: g,
      describe: 'items/s (with --kv: operations/s) of the first step',
    })
    .option('max-rate', { type: 'number', requiresArg: true, default: 1000000, group: g, describe: 'never ask more than this, items/s' })
    .option('growth', {
      type: 'number',
      requiresArg: true,
      default: 2,
      group: g,
      describe: 'the ramp multiplies the rate by this each step until a step does not hold',
    })
    .option('precision', {
      type: 'number',
      requiresArg: true,
      default: 0.05,
      group: g,
      describe: 'bisect until the highest held and lowest failed rates are within this fraction (0.05: 5%)',
    })
    .option('slo-p99', {
      type: 'number',
      requiresArg: true,
      default: 100,
      group: g,
      describe: 'held: p99 of a chunk (with --kv: of any operation) from its intended start at most this, ms',
    })
    .option('min-achieved', {
      type: 'number',
      requiresArg: true,
      default: 0.99,
      group: g,
      describe: 'held: achieved / target at least this',
    })
    .option('engine-ceiling', {
      type: 'number',
      requiresArg: true,
      default: 90,
      group: g,
      describe: "held: every node's engine (main thread) CPU below this % of the node's CPU",
    })
    .option('headroom', {
      type: 'number',
      requiresArg: true,
      default: 60,
      group: g,
      describe: 'the projection also gives the rate at this % engine CPU',
    })
    .option('confirm', {
      type: 'number',
      requiresArg: true,
      default: 3,
      group: g,
      // the widening's 5% and 6 moves are bracket.js's WIDEN_STEP and WIDEN_MOVES (a plan may not import the search)
      describe:
        'once converged, re-test the highest rate that held and the lowest that failed this many more times each, interleaved; an end that does not repeat itself moves out 5% at a time (at most 6 times), tried this many times at each rate, until every try there holds (below) or fails (above); the answer says the bracket the limit lies in and its width (0: no re-tests)',
    })
    .option('tries', {
      type: 'number',
      requiresArg: true,
      default: 1,
      group: g,
      describe:
        'try each ramp and bisection step up to this many times: it holds when more than half of its tries hold (3: two alike decide), for a host where one try in several fails near the limit',
    })
    .option('step-seconds', { type: 'number', requiresArg: true, default: 10, group: g, describe: 'length of each step, s' })
    .option('step-warmup', {
      type: 'number',
      requiresArg: true,
      default: 2,
      group: g,
      describe: 'seconds of each step left out of its figures',
    })
    .option('kv', {
      type: 'string',
      requiresArg: true,
      group: g,
      describe:
        "search a kv workload instead of the producer: rqbench kv's flags in one argument (--kv=\"--preset ycsb-b --key-dist zipf:0.99 -t 2\"); the rates are then operations/s, each step's --rate, and its latency any operation's",
    })
    .option('consumer', {
      type: 'string',
      requiresArg: true,
      group: g,
      describe:
        'run a consumer alongside every step with these flags (one argument: --consumer="-r 2 --fetch pipeline"); it reads the producer\'s data model',
    });
}

/**
 * @param {Record<string, any>} a parsed flags
 * @param {Record<string, unknown>} producerDefaults what each producer flag is when not given
 * @returns {Readonly<Record<string, any>>}
 */
export function capacityPlan(a, producerDefaults) {
  for (const [flag, use] of Object.entries(SEARCH_OWNED)) {
    if (a[flag] !== undefined && a[flag] !== producerDefaults[flag] && a[flag] !== false) {
      throw new UsageError(`${SHOWN[flag] ?? `--${flag}`} is set by the capacity search (use ${use})`);
    }
  }
  const num = (v, flag, ok, accepted) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v)) throw bad(flag, accepted, v);
  };
  num(a.startRate, '--start-rate', (v) => v >= 1, 'a rate in items/s >= 1');
  num(a.maxRate, '--max-rate', (v) => v >= a.startRate, `a rate in items/s at least --start-rate (${a.startRate})`);
  num(a.growth, '--growth', (v) => v >= 1.01 && v <= 10, 'a factor from 1.01 to 10');
  num(a.precision, '--precision', (v) => v >= 0.005 && v <= 0.5, 'a fraction from 0.005 to 0.5 (0.05 is 5%)');
  num(a.sloP99, '--slo-p99', (v) => v > 0, 'a latency in ms > 0');
  num(a.minAchieved, '--min-achieved', (v) => v > 0 && v <= 1, 'a fraction > 0 and <= 1 (0.99 is 99%)');
  num(a.engineCeiling, '--engine-ceiling', (v) => v > 0 && v <= 100, 'a percentage > 0 and <= 100');
  num(a.headroom, '--headroom', (v) => v > 0 && v <= 100, 'a percentage > 0 and <= 100');
  num(a.confirm, '--confirm', (v) => Number.isInteger(v) && v >= 0 && v <= 10, 'an integer from 0 to 10');
  num(a.tries, '--tries', (v) => Number.isInteger(v) && v >= 1 && v <= 9, 'an integer from 1 to 9');
  num(a.stepSeconds, '--step-seconds', (v) => v >= 2 && v <= 3600, 'seconds from 2 to 3600');
  num(a.stepWarmup, '--step-warmup', (v) => v >= 0 && v < a.stepSeconds, `seconds >= 0 and shorter than --step-seconds (${a.stepSeconds})`);
  checkConnection(a);
  checkInstance(a);
  const fills = checkMetrics(a);
  if (a.metricsRelay)
    throw bad('--metrics-relay', 'used by a run that is a step of a runner, not by a capacity search (it serves its own steps)');
  checkOutput(a);
  return planOf(a, fills);
}
