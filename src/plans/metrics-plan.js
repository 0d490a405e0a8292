/**
 * The live metrics flags every long-running command shares (produce, consume, their queue
 * sides, load; capacity and experiment runs pass them on to their steps): where the Prometheus
 * endpoint listens, how long it lingers after the run, how fine its histograms' buckets are, and,
 * hidden, what a runner that spawns the CLIs as its steps passes each one (--metrics-label
 * step=…, --metrics-relay; a runner passes its --metrics-buckets on too, children.js relayArgs).
 */
import { randomBytes } from 'node:crypto';
import { settings } from '../settings.js';
import { LAYOUTS, layoutOf } from '../measure/prom-buckets.js';
import { bad, intIn, printable, UsageError } from '../usage-error.js';

/** Labels rqbench sets itself: a --metrics-label may not take them. */
export const OWN_LABELS = Object.freeze([
  'run_id',
  'run_name',
  'host',
  'writer',
  'publisher',
  'kind',
  'op',
  'from',
  'node',
  'role',
  'shard',
  'event',
  'threads',
  'connections',
  'le',
  'job',
  'instance',
]);

/** @param {import('yargs').Argv} y */
export function metricsOptions(y) {
  const g = 'Live metrics (Prometheus):';
  return y
    .option('metrics-port', {
      type: 'number',
      requiresArg: true,
      group: g,
      describe: "serve the run's metrics on http://HOST:PORT/metrics while it goes (1-65535); docs/live-metrics.md",
    })
    .option('metrics-host', {
      type: 'string',
      requiresArg: true,
      group: g,
      describe: 'address the endpoint listens on (0.0.0.0: every interface, as in a pod)',
      defaultDescription: settings.metricsHost,
    })
    .option('metrics-linger', {
      type: 'number',
      requiresArg: true,
      group: g,
      describe: 'seconds the endpoint stays up with the final values after the run, for the last scrape (0: not at all)',
      defaultDescription: `${settings.metricsLingerSeconds} (two 15 s scrapes)`,
    })
    .option('metrics-buckets', {
      type: 'string',
      requiresArg: true,
      group: g,
      describe: `the histograms' bucket layout: ${bucketsHelp()}; docs/live-metrics.md`,
      defaultDescription: settings.metricsBuckets,
    })
    .option('metrics-label', {
      type: 'string',
      array: true,
      requiresArg: true,
      hidden: true,
      describe: 'name=value on every series (repeatable): what a runner says of its step, e.g. step=t4',
    })
    .option('metrics-relay', {
      type: 'boolean',
      hidden: true,
      describe:
        'send the metrics to the parent process over its IPC channel instead of serving them (the parent serves every step on one endpoint)',
    });
}

/**
 * Checks the metrics flags; returns what they leave to work out: the linger, the labels as an
 * object, and the run_id the series carry (--run-id, or one made up for this run).
 * @param {Readonly<Record<string, any>>} a parsed flags
 * @returns {Record<string, any>} fills for the plan (empty when no metrics are asked for)
 */
export function checkMetrics(a) {
  const on = a.metricsPort !== undefined || a.metricsRelay;
  if (a.metricsPort !== undefined) intIn(a.metricsPort, '--metrics-port', 1, 65535);
  if (a.metricsRelay && a.metricsPort !== undefined)
    throw bad('--metrics-relay', 'used without --metrics-port (the parent serves the metrics)');
  if (a.metricsRelay && typeof process.send !== 'function')
    throw bad('--metrics-relay', 'used by a parent process that spawned this one with an IPC channel');
  for (const [key, flag] of [
    ['metricsHost', '--metrics-host'],
    ['metricsLinger', '--metrics-linger'],
    ['metricsBuckets', '--metrics-buckets'],
    ['metricsLabel', '--metrics-label'],
  ]) {
    if (a[key] !== undefined && !on) throw bad(flag, 'used with --metrics-port');
  }
  if (a.metricsHost !== undefined && !(typeof a.metricsHost === 'string' && /^[A-Za-z0-9.:_-]{1,253}$/.test(a.metricsHost))) {
    throw bad('--metrics-host', 'an IP address or a host name', a.metricsHost);
  }
  const linger = a.metricsLinger ?? settings.metricsLingerSeconds;
  if (!(typeof linger === 'number' && Number.isFinite(linger) && linger >= 0 && linger <= 3600))
    throw bad('--metrics-linger', 'a number of seconds from 0 to 3600', a.metricsLinger);
  const buckets = a.metricsBuckets ?? settings.metricsBuckets;
  if (!(typeof buckets === 'string' && Object.hasOwn(LAYOUTS, buckets)))
    throw bad('--metrics-buckets', Object.keys(LAYOUTS).join(' or '), a.metricsBuckets);
  if (!on) return {};
  return {
    metricsHost: a.metricsHost ?? settings.metricsHost,
    metricsLinger: linger,
    metricsBuckets: buckets,
    metricsLabels: labelsOf(a.metricsLabel ?? []),
    metricsRunId: a.runId ?? randomBytes(4).toString('hex'),
  };
}

/** Each layout in a few words, for --help: "coarse (8 steps per power of two: 238 buckets, none wider than 12.5%), fine (…)". */
function bucketsHelp() {
  return Object.keys(LAYOUTS)
    .map((name) => {
      const l = layoutOf(name);
      return `${name} (${l.steps} steps per power of two: ${l.us.length} buckets, none wider than ${100 / l.steps}%)`;
    })
    .join(', ');
}

/**
 * --metrics-label name=value…, checked: a Prometheus label name rqbench does not set itself,
 * and a printable value.
 * @param {unknown[]} given
 * @returns {Record<string, string>}
 */
function labelsOf(given) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const g of given) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(String(g));
    if (!m || m[1].startsWith('__'))
      throw bad('--metrics-label', 'name=value, the name a Prometheus label name (letters, digits, _; not starting with __)', String(g));
    if (OWN_LABELS.includes(m[1]))
      throw bad('--metrics-label', `a label rqbench does not set itself (not ${OWN_LABELS.join(', ')})`, String(g));
    if (m[2].length > 200 || printable(m[2]) !== m[2])
      throw new UsageError(`--metrics-label ${m[1]}= must be printable text of at most 200 characters`);
    if (m[1] in out) throw bad('--metrics-label', `given once per name (${m[1]} twice)`);
    out[m[1]] = m[2];
  }
  return out;
}
