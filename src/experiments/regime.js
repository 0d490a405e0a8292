/**
 * The seed's regime: `regime: { engine: 0.75, step: zset }` places a produce spec's load where the
 * seed saw its effects, its master's engine at 70–100 % of a core, instead of the few per cent a
 * scaled-down step runs it at. Before the trials, the reference step (the first, or `step:`) is
 * probed at its own rate and then at rates scaled toward the target — each probe a short real run
 * — until the busiest master's main thread is within TOLERANCE of it; every step's rate is then
 * scaled by the same factor, so the steps still compare at one load, as the seed's rows did. The
 * probes and the factor are kept in the run's manifest (a --resume uses them again) and RESULTS.md
 * says where the steps ran.
 *
 * On a local topology the nodes are best capped (`topology.local.cpus`): a node at half a core
 * reaches 75 % at a rate this 2-core host can drive; an uncapped one may need more than its
 * writers can send, and the search then stops at the highest rate the writers held.
 */
import { settings } from '../settings.js';
import { round as roundTo } from '../record/numbers.js';

/** @param {number} x */
const round = (x) => roundTo(x, 2);

/** The engine share a probe may land from the target and be taken (absolute, of one core). */
export const TOLERANCE = 0.05;
/** Probes before the search gives up and takes the closest held one. */
export const MAX_PROBES = 6;
/** A probe whose writers held less of their rate than this ran a load the host could not drive. */
const HELD = 0.99;
/** One probe moves the rate by at most this factor either way: a first reading near idle says little. */
const MAX_STEP = 4;

/**
 * @typedef {{ engine: number, step: string }} Regime  engine: the busiest master's main thread, share of its core (of its
 *   cap on a capped node)
 * @typedef {{ factor: number, engine: number|null, held: boolean, dir?: string }} Probe  engine: measured, share of one core
 * @typedef {{ engine: number, step: string, factor: number, reached: boolean, probes: Probe[] }} Placed  kept in the run's manifest
 */

/**
 * `regime:` as a spec gives it.
 * @param {unknown} v
 * @param {string[]} stepNames
 * @param {(msg: string) => Error} problem
 * @returns {Regime|null}
 */
export function readRegime(v, stepNames, problem) {
  if (v === undefined) return null;
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw problem('regime must be a map: { engine: <share of one core, e.g. 0.75>, step: <name> }');
  const r = /** @type {Record<string, unknown>} */ (v);
  for (const k of Object.keys(r)) if (!['engine', 'step'].includes(k)) throw problem(`regime.${k} is not a field here (engine, step)`);
  if (typeof r.engine !== 'number' || !(r.engine > 0 && r.engine <= 1))
    throw problem(
      `regime.engine must be the busiest master's main-thread share of its core (of its cap, on a capped node), above 0 and at most 1 (got ${JSON.stringify(r.engine)})`,
    );
  const step = r.step ?? stepNames[0];
  if (typeof step !== 'string' || !stepNames.includes(step))
    throw problem(`regime.step must name a step (${stepNames.join(', ')}) (got ${JSON.stringify(r.step)})`);
  return { engine: r.engine, step };
}

/**
 * The next factor to probe, or null when the last probe is the answer.
 * @param {Probe[]} probes so far, in order (at least one)
 * @param {number} target
 * @returns {number|null}
 */
export function nextFactor(probes, target) {
  const last = probes[probes.length - 1];
  if (last.held && last.engine !== null && Math.abs(last.engine - target) <= TOLERANCE) return null;
  if (probes.length >= MAX_PROBES) return null;
  // a probe that measured nothing (its run ended before a sample: a crash, a stop) says nothing
  // about the rate: the same rate once more, and only a second such probe bounds the search
  if (last.engine === null && probes.filter((p) => p.factor === last.factor && p.engine === null).length < 2) return last.factor;
  const held = probes.filter((p) => p.held && p.engine !== null && p.engine > 0);
  if (!last.held || last.engine === null) {
    // the writers could not send that much: between the highest held rate and this one
    const below = held.filter((p) => p.factor < last.factor).sort((a, b) => b.factor - a.factor)[0];
    return below ? (below.factor + last.factor) / 2 : last.factor / 2;
  }
  // engine grows about linearly with the rate: a line through the two held probes nearest the
  // target, or through the origin from the only one (idle Redis is well under a per cent)
  const near = [...held].sort(
    (a, b) => Math.abs(/** @type {number} */ (a.engine) - target) - Math.abs(/** @type {number} */ (b.engine) - target),
  );
  let want;
  const [a, b] = near;
  if (b && a.factor !== b.factor && a.engine !== b.engine) {
    const slope = /** @type {number} */ (a.engine - /** @type {number} */ (b.engine)) / (a.factor - b.factor);
    want =
      slope > 0 ? a.factor + (target - /** @type {number} */ (a.engine)) / slope : (a.factor * target) / /** @type {number} */ (a.engine);
  } else want = (last.factor * target) / /** @type {number} */ (last.engine);
  // never past a rate the writers could not hold
  const ceiling = probes.filter((p) => !p.held && p.engine !== null).reduce((m, p) => Math.min(m, p.factor), Infinity);
  return Math.min(Math.max(want, last.factor / MAX_STEP), last.factor * MAX_STEP, ceiling * 0.95);
}

/**
 * The probe the search settles on: the last when it reached the target, else the held one closest to it.
 * @param {Probe[]} probes
 * @param {number} target
 * @returns {{ factor: number, reached: boolean }}
 */
export function settle(probes, target) {
  const held = probes.filter((p) => p.held && p.engine !== null);
  if (!held.length) return { factor: probes[0].factor, reached: false };
  const best = held.reduce((x, p) =>
    Math.abs(/** @type {number} */ (p.engine) - target) < Math.abs(/** @type {number} */ (x.engine) - target) ? p : x,
  );
  return { factor: best.factor, reached: Math.abs(/** @type {number} */ (best.engine) - target) <= TOLERANCE };
}

/**
 * Probes until the regime is placed.
 * @param {Regime} regime
 * @param {(factor: number, k: number) => Promise<Probe>} probe one short run of the reference step at its rate x factor
 * @param {(line: string) => void} log
 * @returns {Promise<Placed>}
 */
export async function placeRegime(regime, probe, log) {
  /** @type {Probe[]} */
  const probes = [];
  /** @type {number|null} */
  let factor = 1;
  while (factor !== null) {
    const p = await probe(factor, probes.length + 1);
    probes.push(p);
    log(
      `rqbench experiment: regime probe ${probes.length}: ${regime.step} at x${round(p.factor)} the rate, busiest master engine ${p.engine === null ? 'not measured' : `${round(p.engine * 100)}%`}${p.held ? '' : ', rate not held'} (target ${round(regime.engine * 100)}%)`,
    );
    factor = nextFactor(probes, regime.engine);
  }
  const { factor: chosen, reached } = settle(probes, regime.engine);
  return { ...regime, factor: chosen, reached, probes };
}

/**
 * A step's flags with its rate scaled: -q (items per period) x factor, rounded to a whole number of
 * items per writer (at least one each).
 * @param {Record<string, any>} flags the step's (per-writer already turned into q)
 * @param {number} factor
 */
export function scaleFlags(flags, factor) {
  if (factor === 1) return flags;
  const key = flags.quantity !== undefined ? 'quantity' : 'q';
  const q = flags[key] ?? settings.quantity;
  const t = flags.t ?? flags.writers ?? 1;
  const perWriter = Math.max(1, Math.round((q * factor) / t));
  return { ...flags, [key]: perWriter * t };
}

/**
 * Whether a probe held its rate, and the busiest master's engine share of the core it has: of one
 * core, or of its cap on a capped node (a node at half a core is a slower core, saturated at 50 %).
 * @param {any} producer summary.json
 * @param {number|null} [cap] the nodes' CPU cap, cores (topology.local.cpus); none: one core
 * @returns {{ engine: number|null, held: boolean }}
 */
export function probeFigures(producer, cap = null) {
  const masters = (producer?.cpu?.nodes ?? []).filter((n) => n.role === 'master' && n.samples > 0);
  const figures = masters.map((n) => n.engineAvg ?? n.avg).filter((x) => typeof x === 'number');
  const ratio = producer?.achieved?.ratio;
  const core = cap && cap < 1 ? cap : 1;
  return { engine: figures.length ? Math.max(...figures) / 100 / core : null, held: typeof ratio === 'number' && ratio >= HELD };
}

/**
 * RESULTS.md's line: where the steps ran. The engine share is of the node's cap where it has one
 * (probeFigures), so the line names the cap: "78.8% of its core" beside a table reading 39.4% of one
 * core would contradict it. The seed's own level is the spec's notes' to state: it differs by section.
 * @param {Placed} placed
 * @param {number|null} [cap] each local node's CPU cap, in cores (topology.local.cpus)
 */
export function regimeLine(placed, cap = null) {
  const last = placed.probes.find((p) => p.factor === placed.factor);
  const measured = last?.engine === null || last?.engine === undefined ? 'not measured' : `${round(last.engine * 100)}%`;
  const of = cap && cap < 1 ? `of its ${round(cap)}-core cap` : 'of its core';
  const how = placed.reached
    ? `the busiest master's main thread at ${measured} ${of} on ${placed.step} (target ${round(placed.engine * 100)}%)`
    : `the closest the search came to ${round(placed.engine * 100)}% ${of} on ${placed.step} in ${placed.probes.length} probe${placed.probes.length === 1 ? '' : 's'}: ${measured} (not reached: the writers could not hold a higher rate, or the engine did not rise with it)`;
  return `**Regime:** every step ran at its rate x${round(placed.factor)}, placed by probing: ${how}.`;
}
