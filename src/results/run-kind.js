/**
 * What kind of run a directory holds, told from manifest.json alone, and what each kind's
 * summary.json says about its window and the values it counted per histogram, in one shape for
 * every kind, so that the reports (report, compare, chart) read Redis and queue runs with the
 * same code. Kinds without a per-second timeline (load, ops) are refused here in one line: their
 * summary.md is already their report, and nothing in them can be merged second by second.
 */
import { UsageError, shown } from '../usage-error.js';
import { queueDrivers } from '../transports/queue-drivers.js';

/** @typedef {'produce'|'consume'|'queue-publish'|'queue-consume'} ReadKind a kind the reports read */

/**
 * Each kind the reports read: its words in messages, the whole unit of work whose latency a
 * spectrum, a comparison or a chart shows by default, and the manifest list of who ran.
 * @type {Record<ReadKind, { words: string, mainOp: string, workers: string|null }>}
 */
export const KINDS = {
  produce: { words: 'Redis producer', mainOp: 'batch', workers: 'writers' },
  consume: { words: 'Redis consumer', mainOp: 'cycle', workers: 'readers' },
  'queue-publish': { words: 'queue publisher', mainOp: 'publish', workers: null },
  'queue-consume': { words: 'queue consumer', mainOp: 'e2e', workers: null },
};

/** Kinds written by rqbench that the reports do not read, and why. */
const REFUSED = {
  load: 'a load run (one whole-file load per grid cell: no per-second timeline to merge or chart)',
  ops: 'an ops run (single calls timed one at a time: no per-second timeline to merge or chart)',
};

/** A manifest's `kind` field, as the one run harness writes it. */
const ALL = [...Object.keys(KINDS), ...Object.keys(REFUSED)];
/** Every queue system a run can name: the queue drivers' names. */
const queueTargets = () => queueDrivers().map((d) => d.name);
const ACCEPTED = 'reports read produce, consume, queue publish and queue consume runs';

/**
 * The kind of a run directory: manifest.json's `kind` when it has one, otherwise its `command`
 * and `flags.target` (a queue run is `produce` or `consume` with --target sns|sqs|pubsub).
 * @param {string} dir for messages
 * @param {Record<string, any>} manifest parsed, an object with a string `command` (or a `kind`)
 * @returns {ReadKind}
 * @throws {UsageError} for load and ops runs, and anything else the reports cannot read
 */
export function kindOf(dir, manifest) {
  const kind = manifest.kind !== undefined ? manifest.kind : inferred(dir, manifest);
  if (typeof kind !== 'string' || !ALL.includes(kind)) {
    throw new UsageError(`${dir}: manifest.json kind must be one of ${ALL.join(', ')} (got ${shown(String(kind))})`);
  }
  if (Object.hasOwn(REFUSED, kind)) {
    throw new UsageError(`${dir}: ${REFUSED[kind]}; ${ACCEPTED} (its own table is in summary.md)`);
  }
  return /** @type {ReadKind} */ (kind);
}

/**
 * @param {string} dir
 * @param {Record<string, any>} manifest
 */
function inferred(dir, manifest) {
  const { command } = manifest;
  if (command === 'load' || command === 'ops') return command;
  if (command !== 'produce' && command !== 'consume') throw new UsageError(`${dir}: manifest.json names command ${shown(String(command))}; ${ACCEPTED}`);
  const flags = manifest.flags !== null && typeof manifest.flags === 'object' ? manifest.flags : {};
  const target = flags.target ?? 'redis';
  if (target === 'redis') return command;
  if (!queueTargets().includes(target)) throw new UsageError(`${dir}: manifest.json names target ${shown(String(target))}; reports read redis, ${queueTargets().join(', ')} runs`);
  return command === 'produce' ? 'queue-publish' : 'queue-consume';
}

export const isQueue = (/** @type {ReadKind} */ kind) => kind === 'queue-publish' || kind === 'queue-consume';

/**
 * The seconds [fromSecond, toSecond) a summary's figures cover. A Redis summary says so in
 * whole seconds. A queue summary's window may end inside a second (a consumer done before its
 * --duration): that last second is in its totals, so toSecond is the next whole one.
 * @param {ReadKind} kind
 * @param {Record<string, any>} summary checked by run-shape.js
 * @returns {{ fromSecond: number, toSecond: number }}
 */
export function windowOf(kind, summary) {
  const w = summary.window;
  if (w.fromSecond !== undefined) return { fromSecond: w.fromSecond, toSecond: w.toSecond };
  return { fromSecond: w.fromS, toSecond: Math.max(w.fromS, Math.ceil(w.toS)) };
}

/**
 * A queue summary's latency fields and the .hlog file and tag each was computed from.
 * @type {Record<'queue-publish'|'queue-consume', Array<[string, string, string]>>} [field path, op, tag]
 */
export const QUEUE_HISTOGRAMS = {
  'queue-publish': [['publish.intended', 'publish', 'intended'], ['publish.sent', 'publish', 'sent'], ['lag', 'lag', 'lag']],
  'queue-consume': [
    ['latency.read', 'read', 'read'], ['latency.processing', 'processing', 'processing'], ['latency.e2e', 'e2e', 'intended'],
    ['latency.e2eSent', 'e2e', 'sent'], ['latency.e2eCloud', 'e2e_cloud', 'e2e_cloud'],
  ],
};

/**
 * A queue consumer's E2E from the intended send kept apart per publisher: `<this>.hlog`, one tag
 * per publisher id (queue-metrics.js), in the run directory only: no summary field counts it.
 */
export const E2E_BY_PUBLISHER = 'e2e_publisher';

/**
 * How many values the summary counted from each .hlog file and tag, after its warm-up: what the
 * files must hold at least, and which operations a spectrum or a comparison can be about.
 * @param {ReadKind} kind
 * @param {Record<string, any>} summary checked by run-shape.js
 * @returns {Record<string, Record<string, number>>} op → tag → count
 */
export function recordedOf(kind, summary) {
  /** @type {Record<string, Record<string, number>>} */
  const out = {};
  if (!isQueue(kind)) {
    for (const [op, byTag] of Object.entries(summary.latency)) for (const [tag, st] of Object.entries(byTag)) (out[op] ??= {})[tag] = st.count;
    return out;
  }
  for (const [field, op, tag] of QUEUE_HISTOGRAMS[kind]) {
    const st = field.split('.').reduce((o, k) => o?.[k], summary);
    if (st) (out[op] ??= {})[tag] = st.count;
  }
  return out;
}
