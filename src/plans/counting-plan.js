/**
 * --count-instructions and --time-scale (produce and consume): Redis's own work counted under
 * Valgrind on local servers, and the workload run slower by K with every time constant K times
 * longer, so that a slow counted Redis sees the commands and structure sizes of the real run.
 */
import { bad, UsageError } from '../usage-error.js';

/** A time scale past this turns a 10 s run into more than a day. */
const MAX_TIME_SCALE = 10_000;

/**
 * @param {import('yargs').Argv} y
 */
export function countingOptions(y) {
  const g = "Counting Redis's own work (local servers):";
  return y
    .option('count-instructions', {
      type: 'boolean',
      default: false,
      group: g,
      describe:
        "with --local: run every Redis node under Valgrind's callgrind and report, per node and role, instructions per item over the window (idle cost taken out), where they go (read+parse, each command, feeding replicas, expiry, cron, writes) and read/write system calls and bytes per item; needs valgrind",
    })
    .option('time-scale', {
      type: 'number',
      requiresArg: true,
      default: 1,
      group: g,
      describe:
        'run the workload K times slower: the rate divided by K and every time constant (period, chunk spacing, TTL, purge window, per-minute keys, warm-up, duration, the consumer period) multiplied by K, so commands, batches and structure sizes stay those of the undilated run (Valgrind runs Redis ~50x slower: use 50 or more with --count-instructions)',
    });
}

/**
 * @param {Readonly<Record<string, any>>} a
 */
export function checkCounting(a) {
  const k = a.timeScale ?? 1;
  if (!(Number.isFinite(k) && k >= 1 && k <= MAX_TIME_SCALE))
    throw bad('--time-scale', `a number from 1 to ${MAX_TIME_SCALE}`, a.timeScale);
  if (a.countInstructions && !a.local)
    throw new UsageError('--count-instructions must be used with --local (it runs the Redis nodes rqbench starts under Valgrind)');
  if (a.countInstructions && a.nodeCpus !== undefined)
    throw new UsageError('--count-instructions must be used without --node-cpus (a count does not depend on the CPU a node is given)');
}
