/**
 * A step's command line, built in one place for every kind of step and for the capacity search:
 * the CLI, the spec's own flags, then what the runner sets — where the step runs (its target),
 * cluster actions, how long and from when, and where it writes. The flags the runner sets are
 * named once, here, by part (RUNNER_PARTS): a spec is refused a flag exactly when a part the
 * runner sets for it would set that flag, and the builder refuses to write a runner flag that is
 * not named here, so the two cannot drift apart.
 */

/**
 * What the runner sets, by part: every spelling of each flag (aliases too) → where a spec says
 * it instead (null: the part's own words).
 * @type {Record<string, { flags: Record<string, string|null>, where: string }>}
 */
export const RUNNER_PARTS = {
  redis: {
    flags: {
      url: 'topology',
      host: null,
      h: null,
      port: null,
      user: null,
      password: null,
      tls: null,
      'tls-ca': null,
      'tls-insecure': null,
      local: null,
      masters: null,
      replicas: null,
      cluster: 'topology',
      cm: 'topology',
      'node-cpus': null,
      'count-instructions': 'count:',
      'time-scale': 'count:',
      announce: 'count: (a counted step with a consumer)',
    },
    where: 'the topology',
  },
  endpoint: {
    flags: { endpoint: null, 'pubsub-endpoint': null, 'api-endpoint': null },
    where: 'the topology: the servers the runner starts, or topology.queue.endpoint',
  },
  names: {
    flags: { topic: null, queue: null, subscription: null, create: null },
    where: 'the step: a topic and queue of its own per trial',
  },
  length: {
    flags: { duration: 'duration', d: 'duration', warmup: 'warmup', 'start-at': null, 'until-complete': null },
    where: 'duration: and warmup:',
  },
  actions: { flags: { at: 'at' }, where: 'at:' },
  output: { flags: { out: null, o: null, name: null, n: null, json: null, quiet: null }, where: 'the run directory' },
  run: {
    flags: { 'run-id': null, 'metrics-relay': null, 'metrics-label': null, 'metrics-buckets': null, help: null, version: null },
    where: 'the runner',
  },
  /** a load step's delta file: made by the runner from the spec's deltaFile */
  source: {
    flags: { file: null, generate: null, records: null, 'record-size': null, 'key-pattern': null },
    where: "the spec's deltaFile: { records, recordSize }",
  },
  /** a load step's on the local Redis the runner started (it empties it before each grid); a spec may on an endpoint */
  reset: { flags: { flush: null }, where: 'the runner' },
};

/** The parts a runner sets for every step, whatever its kind (a kind may own more: a queue step its names). */
export const COMMON_PARTS = ['redis', 'length', 'actions', 'output', 'run'];

/**
 * The flags the runner owns when it sets these parts: flag → where a spec says it, or null.
 * @param {string[]} parts
 * @returns {Map<string, string|null>}
 */
export function ownedFlags(parts) {
  return new Map(parts.flatMap((p) => Object.entries(RUNNER_PARTS[p].flags)));
}

/** Every flag any runner part sets: what stepArgv may write beside the spec's own. */
const EVERY_RUNNER_FLAG = ownedFlags(Object.keys(RUNNER_PARTS));

/**
 * `{ q: 20000, sl: true, at: ['5:reshard:100'] }` → `['-q', '20000', '--sl', '--at', '5:reshard:100']`.
 * @param {Record<string, string|number|boolean|Array<string|number>>} flags
 * @returns {string[]}
 */
export function toArgs(flags) {
  const args = [];
  for (const [k, v] of Object.entries(flags)) {
    const flag = k.length === 1 ? `-${k}` : `--${k}`;
    if (v === true) args.push(flag);
    else if (v === false) args.push(`--no-${k}`);
    // a value that is flags itself (capacity's --kv "--preset ycsb-b"): joined, or it would read as a flag
    else if (typeof v === 'string' && v.startsWith('-') && k.length > 1) args.push(`${flag}=${v}`);
    else for (const one of Array.isArray(v) ? v : [v]) args.push(flag, String(one));
  }
  return args;
}

/**
 * @typedef {object} CommandParts
 * @property {string[]} cli  what follows `node`: ['src/producer.js'], or ['src/cli.js', 'load', <file>]
 * @property {Record<string, any>} [flags]  the spec's own flags, a flag map
 * @property {string[]} [args]  the command's own flags already as argv (a --consumer "<flags>", split; the search's --step-seconds)
 * @property {string[]} [target]  where it runs: --url … --cluster, --endpoint … --topic …, --local …
 * @property {string[]} [at]  cluster actions, each an --at value
 * @property {{ duration?: number|null, warmup?: number|null, startAt?: number|null, untilComplete?: boolean }} [length]
 * @property {{ out: string, name: string, json?: boolean }} output  the directory that receives its run directory, the run's name
 */

/**
 * The argv of a step's command after `node`, in one order for every kind: the CLI, the spec's
 * flags, the command's own, the actions, the target, the length, the output.
 * @param {CommandParts} c
 * @returns {string[]}
 * @throws {Error} when a runner part writes a flag RUNNER_PARTS does not name (a programming error)
 */
export function stepArgv({ cli, flags = {}, args = [], target = [], at = [], length = {}, output }) {
  const { duration = null, warmup = null, startAt = null, untilComplete = false } = length;
  const runner = [
    ...at.flatMap((x) => ['--at', x]),
    ...target,
    ...(untilComplete ? ['--until-complete'] : []),
    ...(duration !== null ? ['-d', String(duration)] : []),
    ...(warmup !== null ? ['--warmup', String(warmup)] : []),
    ...(startAt ? ['--start-at', String(startAt)] : []),
    ...(output.json ? ['--json'] : []),
    '--quiet',
    '--out',
    output.out,
    '--name',
    output.name,
  ];
  const stray = runner.find((x) => /^-{1,2}[A-Za-z]/.test(x) && !EVERY_RUNNER_FLAG.has(x.replace(/^-+/, '')));
  if (stray) throw new Error(`command-line.js: ${stray} is set by the runner but not named in RUNNER_PARTS`);
  return [...cli, ...toArgs(flags), ...args, ...runner];
}
