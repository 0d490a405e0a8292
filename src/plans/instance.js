/**
 * What the Redis under test runs on, as the user states it: instance type, vCPUs, memory and the
 * hourly price. rqbench fetches and assumes no price; these facts travel with the run (its
 * manifest) so `compare` and experiment reports can put the seed's cost table beside the figures.
 */
import { bad, UsageError } from '../usage-error.js';

/** @param {import('yargs').Argv} y */
export function instanceOptions(y) {
  const g = 'Instance facts (for cost tables; nothing is fetched):';
  return y
    .option('instance-type', { type: 'string', requiresArg: true, group: g, describe: 'the node type, e.g. cache.r6g.large' })
    .option('vcpu', { type: 'number', requiresArg: true, group: g, describe: 'vCPUs per node' })
    .option('memory-gb', { type: 'number', requiresArg: true, group: g, describe: 'memory per node, GB' })
    .option('hourly-price', {
      type: 'number',
      requiresArg: true,
      group: g,
      describe: 'price per node per hour (your currency); Monthly = Hourly x 720',
    });
}

/**
 * @param {Record<string, any>} a parsed flags
 */
export function checkInstance(a) {
  const type = a.instanceType;
  if (type !== undefined && (typeof type !== 'string' || !/^[\w.:+/() -]{1,64}$/.test(type))) {
    throw bad('--instance-type', 'a name of letters, digits, spaces and . _ - : + / ( ) (at most 64)', type);
  }
  const facts = [
    ['vcpu', '--vcpu'],
    ['memoryGb', '--memory-gb'],
    ['hourlyPrice', '--hourly-price'],
  ];
  for (const [key, flag] of facts) {
    const v = a[key];
    if (v === undefined) continue;
    if (type === undefined) throw new UsageError(`${flag} needs --instance-type (the facts describe a named instance)`);
    const ok = typeof v === 'number' && Number.isFinite(v) && (key === 'hourlyPrice' ? v >= 0 : v > 0);
    if (!ok) throw bad(flag, key === 'hourlyPrice' ? 'a price >= 0' : 'a number > 0', v);
  }
}

/**
 * The instance facts of parsed flags (or of a manifest's flags), or null when none were given.
 * @param {Record<string, any>} a
 * @returns {{ type: string, vcpu?: number, memoryGb?: number, hourlyPrice?: number }|null}
 */
export function instanceOf(a) {
  if (!a?.instanceType) return null;
  const out = { type: a.instanceType };
  for (const k of ['vcpu', 'memoryGb', 'hourlyPrice']) if (a[k] !== undefined) out[k] = a[k];
  return out;
}
