/** `rqbench ops`'s flags checked into its plan: which services, where, for how long. */
import { bad } from '../usage-error.js';
import { opsServices } from '../workloads/single-ops/run-ops.js';
import { opsFlags } from '../transports/queue-drivers.js';
import { kebab } from './queue-plan.js';
import { checkConnection } from './connection.js';
import { checkOutput } from './output.js';
import { planOf } from './freeze.js';

/**
 * Every check of an ops run, once, at the command's edge: the frozen plan it runs from.
 * @param {Readonly<Record<string, any>>} a parsed flags (left as they are)
 */
export function opsPlan(a) {
  checkConnection(a);
  const only = String(a.only).split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const services = opsServices();
  const unknown = only.filter((s) => !services.includes(s));
  if (!only.length || unknown.length) throw bad('--only', `a comma-separated list of ${services.join(', ')}`, a.only);
  for (const [key, flag] of opsFlags()) {
    if (a[key] !== undefined && flag.form && !flag.form.re.test(String(a[key]))) throw bad(`--${kebab(key)}`, flag.form.expected, a[key]);
  }
  if (!(Number.isFinite(a.warmup) && a.warmup >= 0 && a.warmup <= 3600)) throw bad('--warmup', 'seconds from 0 to 3600', a.warmup);
  if (!(Number.isFinite(a.duration) && a.duration > 0 && a.duration <= 3600)) throw bad('--duration', 'seconds, more than 0 and at most 3600', a.duration);
  checkOutput(a);
  return planOf(a, { only });
}
