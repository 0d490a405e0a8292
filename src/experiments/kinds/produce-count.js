/**
 * A counted `produce` step: `count: { timeScale: 20 }`. Its producer starts its own local Redis
 * (the spec's topology, uncapped) under Valgrind's callgrind with `--local --count-instructions
 * --time-scale K`, and the step's figures are Redis's instructions per item (summary.json's
 * `instructions`), which do not move with the host: the CPU time of a shared VM moves 6–15 %
 * between identical runs, the count 0.1 % at light load (bench/RESULTS.md, `npm run bench:cost`)
 * and a few per cent at the seed's rates, where several writers' pipelines reach the server
 * interleaved differently each trial. So a counted step needs few trials (`repeat:` on the step),
 * and its verdicts are decided by the counter's rule (verdict.js) rather than by a test built for
 * noisy figures.
 *
 * The runner's shared server is not used: a count is of nodes started under Valgrind, and a node
 * capped at half a core would only make the dilated run slower, not its count different. A consumer
 * on the step reads those same nodes: the producer names them and its start in a file (--announce),
 * and the consumer starts on them once it is there, so its reads are in the count.
 */
import fs from 'node:fs';
import { KindProblem } from './kind-contract.js';
import { stepArgv } from '../command-line.js';

/** The file in a counted step's directory where its producer names its nodes and start, for the consumer (--announce). */
export const ANNOUNCE_FILE = 'local.json';
/** How long a counted producer may take to start its nodes under Valgrind and count their idle. */
const ANNOUNCE_TIMEOUT_MS = 180_000;

/** Seconds a counted run spends before its workload: Valgrind's start, the replicas' sync, 5 s of idle counted. */
const SETUP_SECONDS = 20;
/** Above this the counted run of a 10 s step lasts more than a day. */
const MAX_TIME_SCALE = 10_000;

/**
 * @typedef {{ timeScale: number }} Count
 */

/**
 * A step's `count:`, or null.
 * @param {unknown} v
 * @param {string} p the step's path
 * @returns {Count|null}
 */
export function readCount(v, p) {
  if (v === undefined || v === null || v === false) return null;
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new KindProblem(
      `${p}.count must be a map: { timeScale: <K, e.g. 20> } (Redis's instructions counted under Valgrind, the run K times slower)`,
    );
  const c = /** @type {Record<string, unknown>} */ (v);
  for (const k of Object.keys(c)) if (k !== 'timeScale') throw new KindProblem(`${p}.count.${k} is not a field here (timeScale)`);
  const k = c.timeScale;
  if (typeof k !== 'number' || !Number.isFinite(k) || k < 1 || k > MAX_TIME_SCALE)
    throw new KindProblem(`${p}.count.timeScale must be a number from 1 to ${MAX_TIME_SCALE} (got ${JSON.stringify(k)})`);
  return { timeScale: k };
}

/**
 * Why a counted step cannot run as written, or null.
 * @param {{ path: string, consumer: any, at: string[] }} step
 * @param {import('../spec.js').Topology} topology
 */
export function countProblem(step, topology) {
  if (!topology.local) return `${step.path}.count needs topology local: (the count runs the Redis nodes rqbench starts under Valgrind)`;
  if (step.at.length) return `${step.path}.count: a counted step has no cluster actions (at:): Valgrind's nodes are too slow to reshard`;
  return null;
}

/**
 * Where a counted step's producer runs: Redis nodes of the spec's shape, started by the CLI itself.
 * @param {Count} count
 * @param {import('../spec.js').Topology} topology
 * @returns {string[]}
 */
export function countedTarget(count, topology) {
  const l = /** @type {NonNullable<import('../spec.js').Topology['local']>} */ (topology.local);
  return [
    '--local',
    ...(l.cluster ? ['--cluster', '--masters', String(l.masters)] : []),
    '--replicas',
    String(l.replicas),
    '--count-instructions',
    '--time-scale',
    String(count.timeScale),
  ];
}

/**
 * How long a counted step takes: its warm-up dilated, and about one period's batch under
 * Valgrind (the window ends when its last send is acknowledged), after the setup.
 * @param {{ duration: number, warmup: number, count: Count }} step
 */
export function countedSeconds(step) {
  return SETUP_SECONDS + step.warmup * step.count.timeScale + (step.duration - step.warmup) * Math.min(step.count.timeScale, 15);
}

/**
 * @typedef {{ url: string, cluster: boolean, startAt: number, timeScale: number }} Announced
 */

/**
 * Waits until the producer has named its nodes in `file` (--announce), or ended, or the run was stopped.
 * @param {string} file
 * @param {Promise<unknown>} producer settles when the producer's process ends
 * @param {{ stopped: boolean }} stopper
 * @param {number} [timeoutMs]
 * @returns {Promise<Announced|null>} null: it ended, or was stopped, or took too long, before naming them
 */
export async function waitForAnnounce(file, producer, stopper, timeoutMs = ANNOUNCE_TIMEOUT_MS) {
  let ended = false;
  producer.then(
    () => (ended = true),
    () => (ended = true),
  );
  const deadline = Date.now() + timeoutMs;
  while (!ended && !stopper.stopped && Date.now() < deadline) {
    if (fs.existsSync(file)) return /** @type {Announced} */ (JSON.parse(fs.readFileSync(file, 'utf8')));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return null;
}

/**
 * A counted step's consumer: on the nodes its producer started and named, from the start it named,
 * as slow as it (the consumer's period dilated by the same K).
 * @param {any} step
 * @param {string} out
 * @param {Announced} told
 * @returns {{ role: 'consumer', argv: string[] }}
 */
export function countedConsumer(step, out, told) {
  const where = ['--url', told.url, ...(told.cluster ? ['--cluster'] : []), '--time-scale', String(told.timeScale)];
  return {
    role: 'consumer',
    argv: stepArgv({
      cli: ['src/consumer.js'],
      flags: step.consumer,
      target: where,
      length: { duration: step.duration, warmup: step.warmup, startAt: told.startAt },
      output: { out, name: 'consumer', json: true },
    }),
  };
}
