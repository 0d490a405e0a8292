/** `rqbench ops`'s flags checked into its plan: which services, where, for how long. */
import { bad } from '../usage-error.js';
import { opsServices } from '../workloads/single-ops/run-ops.js';
import { opsEmulators, opsFlags } from '../transports/ops-drivers.js';
import { kebab } from './queue-plan.js';
import { checkConnection } from './connection.js';
import { checkOutput } from './output.js';
import { planOf } from './freeze.js';

/**
 * `rqbench ops`'s own options (services, where each queue service is, --local, the phases'
 * lengths), beside the connection and output options: the command's builder and an experiment's
 * ops step parse with the same ones.
 * @param {import('yargs').Argv} y
 */
export function opsOptions(y) {
  const g = 'Operations:';
  const emulators = opsEmulators().map((e) => `the ${e.label} emulator${e.tool ? ` (${e.tool})` : ''}`);
  let built = y.option('only', {
    type: 'string',
    requiresArg: true,
    default: 'redis',
    group: g,
    describe: `services, comma-separated: ${opsServices().join(', ')}`,
  });
  // where each queue service is: the queue drivers' flags
  for (const [key, flag] of opsFlags()) built = built.option(kebab(key), { ...flag.spec, group: g });
  return built
    .option('local', {
      type: 'boolean',
      default: false,
      group: 'Connection:',
      describe: `start what the chosen services need and no flag names: a throwaway Redis (or cluster with --cluster), ${emulators.join(', ')}`,
    })
    .option('warmup', {
      type: 'number',
      requiresArg: true,
      default: 5,
      group: g,
      describe: 'seconds of unrecorded calls per operation first',
    })
    .option('duration', {
      alias: 'd',
      type: 'number',
      requiresArg: true,
      default: 15,
      group: g,
      describe: 'seconds of measured calls per operation',
    });
}

/**
 * Every check of an ops run, once, at the command's edge: the frozen plan it runs from.
 * @param {Readonly<Record<string, any>>} a parsed flags (left as they are)
 */
export function opsPlan(a) {
  checkConnection(a);
  const only = String(a.only)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const services = opsServices();
  const unknown = only.filter((s) => !services.includes(s));
  if (!only.length || unknown.length) throw bad('--only', `a comma-separated list of ${services.join(', ')}`, a.only);
  for (const [key, flag] of opsFlags()) {
    if (a[key] !== undefined && flag.form && !flag.form.re.test(String(a[key]))) throw bad(`--${kebab(key)}`, flag.form.expected, a[key]);
  }
  if (!(Number.isFinite(a.warmup) && a.warmup >= 0 && a.warmup <= 3600)) throw bad('--warmup', 'seconds from 0 to 3600', a.warmup);
  if (!(Number.isFinite(a.duration) && a.duration > 0 && a.duration <= 3600))
    throw bad('--duration', 'seconds, more than 0 and at most 3600', a.duration);
  checkOutput(a);
  return planOf(a, { only });
}
