/**
 * Did one step of a capacity search hold, and if not, what stopped it? Pure: a producer's
 * summary.json in, a judgement out. "Held" is stated, never guessed: the rate achieved, nothing
 * failed, the p99 from the intended start within the SLO, and every node's engine (its main
 * thread, the single-threaded bottleneck) below the ceiling.
 */
import { engineOrProcess } from '../../runs/common/cpu-summary.js';
import { engineCores } from '../../report/capacity/projection.js';

/** @typedef {import('../../report/capacity/capacity-result.js').Criteria} Criteria */
/** @typedef {import('../../report/capacity/capacity-result.js').StepFigures} StepFigures */
/** @typedef {import('../../report/capacity/capacity-result.js').NodeEngine} NodeEngine */
/** @typedef {import('../../report/capacity/capacity-result.js').Limit} Limit */

/**
 * @typedef {object} Judgement
 * @property {boolean} held
 * @property {string[]} reasons   why it did not hold, in words (empty when it held)
 * @property {Limit|null} limit   the most likely cause when it did not hold
 * @property {StepFigures} figures
 */

/** A writer this busy (CPU % of a core, or event-loop delay p99 ms) is the load generator's limit. */
export const CLIENT_BUSY = { cpuPct: 90, loopP99Ms: 100 };

/**
 * A node's engine CPU: its main thread when the server reports it, its process otherwise.
 * @param {any} n a node of summary.cpu.nodes
 * @returns {NodeEngine}
 */
export function nodeEngine(n) {
  const hasEngine = typeof n.engineAvg === 'number';
  return {
    addr: n.addr,
    role: n.role,
    shard: n.shard,
    engine: engineOrProcess(n) ?? 0,
    process: n.avg ?? null,
    basis: hasEngine ? 'main thread' : 'process',
  };
}

/**
 * @param {any} s a producer's summary.json, or a kv run's (its rate in operations, its latency every operation's)
 * @returns {StepFigures}
 */
export function figuresOf(s) {
  const nodes = (s.cpu?.nodes ?? []).filter((n) => n.samples > 0).map(nodeEngine);
  const busiest = (role) => nodes.filter((n) => n.role === role).sort((a, b) => b.engine - a.engine)[0] ?? null;
  const kv = s.operations !== undefined;
  const chunk = kv ? s.latency?.all?.intended : s.latency?.batch?.intended;
  return {
    target: (kv ? s.rate?.intendedPerSec : s.target?.itemsPerSec) ?? 0,
    achieved: (kv ? s.rate?.achievedPerSec : s.achieved?.itemsPerSec) ?? 0,
    ratio: (kv ? s.rate?.ratio : s.achieved?.ratio) ?? 0,
    failed: (s.totals?.failed ?? 0) + (s.totals?.unacked ?? 0),
    p50: chunk?.p50 ?? null,
    p99: chunk?.p99 ?? null,
    nodes,
    busiestMaster: busiest('master'),
    busiestReplica: busiest('replica'),
    clientCpu: s.client?.cpuPctMaxWriter ?? 0,
    loopP99Ms: s.client?.loopP99MsMax ?? 0,
    exitCode: s.outcome?.exitCode ?? 0,
    ...(kv && { busiestOps: busiestOps(s.nodes ?? []) }),
  };
}

/**
 * A kv run's node that took the most operations, with its share (where a hot shard shows).
 * @param {Array<{ addr: string, role: string|null, shard: number|null, ops: number, opsShare: number|null }>} nodes summary.nodes
 * @returns {import('../../report/capacity/capacity-result.js').OpsShare|null}
 */
function busiestOps(nodes) {
  const top = nodes.filter((n) => n.ops > 0).sort((a, b) => b.ops - a.ops)[0];
  return top && top.opsShare !== null ? { addr: top.addr, role: top.role, shard: top.shard, opsShare: top.opsShare } : null;
}

/**
 * @param {any} summary a producer summary.json
 * @param {Criteria} c
 * @returns {Judgement}
 */
export function judge(summary, c) {
  const f = figuresOf(summary);
  const reasons = [];
  if (f.ratio < c.minAchieved)
    reasons.push(`achieved ${(f.ratio * 100).toFixed(1)}% of the target (needs ${(c.minAchieved * 100).toFixed(1)}%)`);
  if (f.failed > 0 || f.exitCode !== 0)
    reasons.push(`${f.failed} ${c.unit ?? 'items'} failed or unacknowledged${f.exitCode ? ` (exit ${f.exitCode})` : ''}`);
  if (f.p99 === null) reasons.push(`no ${c.unit === 'operations' ? 'operation' : 'chunk'} latency was recorded`);
  else if (f.p99 > c.sloP99Ms) reasons.push(`p99 ${f.p99.toFixed(1)} ms above the SLO of ${c.sloP99Ms} ms`);
  const hot = f.nodes
    .map((node) => ({ node, pctOfNode: node.engine / engineCores(c.nodeCpus) }))
    .sort((a, b) => b.pctOfNode - a.pctOfNode)[0];
  if (hot && hot.pctOfNode >= c.engineCeiling)
    reasons.push(`${hot.node.role} ${hot.node.addr} engine at ${Math.round(hot.pctOfNode)}% of its CPU (ceiling ${c.engineCeiling}%)`);
  return { held: reasons.length === 0, reasons, limit: reasons.length ? limitOf(f, c, hot) : null, figures: f };
}

/**
 * The cause, most telling first: an engine at its ceiling is the server's limit; a busy writer is
 * the load generator's (more writers would go further); then failures, latency, the rate itself.
 * An engine close to its ceiling (within 10 points) is still named when the rate or latency gave
 * out first: a saturating main thread is what makes them give out.
 * @param {StepFigures} f
 * @param {Criteria} c
 * @param {{ node: NodeEngine, pctOfNode: number }|undefined} hot
 * @returns {Limit}
 */
function limitOf(f, c, hot) {
  if (hot && hot.pctOfNode >= c.engineCeiling) return { kind: 'engine', node: hot.node, pctOfNode: hot.pctOfNode };
  if (f.clientCpu >= CLIENT_BUSY.cpuPct || f.loopP99Ms >= CLIENT_BUSY.loopP99Ms) return { kind: 'client' };
  if (f.failed > 0) return { kind: 'failures' };
  if (hot && hot.pctOfNode >= c.engineCeiling - 10) return { kind: 'engine', node: hot.node, pctOfNode: hot.pctOfNode };
  if (f.p99 !== null && f.p99 > c.sloP99Ms) return { kind: 'latency' };
  return { kind: 'rate' };
}

/**
 * A consumer run alongside a step: the step holds only if the consumer did what it was asked too
 * (its cycles ran and read what they should); its problems, in its own words, otherwise.
 * @param {any} consumer its summary.json
 * @returns {string[]}
 */
export function consumerReasons(consumer) {
  if (!consumer) return ['the consumer wrote no summary'];
  const problems = consumer.outcome?.problems ?? [];
  if ((consumer.outcome?.exitCode ?? 0) === 0) return [];
  return problems.length ? problems.map((p) => `consumer: ${p}`) : [`consumer exited with ${consumer.outcome.exitCode}`];
}
