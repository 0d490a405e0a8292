/**
 * A capacity search in words: the answer line, the step table and the projection. Pure.
 */
import { fixed, grouped, mdTable } from '../../record/format.js';
import { checkAgainstSearch } from './projection.js';

/**
 * What a search's rates count, per second: a producer's items (the default) or a kv workload's operations.
 * @param {{ unit?: string }} c the search's criteria
 */
export const perSec = (c) => `${c.unit ?? 'items'}/s`;

/**
 * @typedef {object} CapacityStep
 * @property {number} rate
 * @property {'ramp'|'bisect'|'confirm'|'widen'} phase  widen: a re-test of an end moved out (bracket.js)
 * @property {string} dir
 * @property {boolean} held
 * @property {string[]} reasons
 * @property {import('./capacity-result.js').Limit|null} limit
 * @property {import('./capacity-result.js').StepFigures} figures
 */

/**
 * @typedef {object} CapacityResult
 * @property {import('./capacity-result.js').SearchResult} search
 * @property {import('./capacity-result.js').Confirmation|null} [confirmation] the boundary re-tested (--confirm)
 * @property {CapacityStep[]} steps
 * @property {import('./projection.js').NodeProjection[]} projection
 * @property {import('./projection.js').ProjectionCheck|{ unchecked: string }} [projectionCheck] the projection against this search (projection.js checkAgainstSearch)
 * @property {import('./capacity-result.js').Criteria & { headroom: number, maxRate: number }} criteria
 */

/**
 * The one line that answers the question, e.g. "max sustainable 212,000 items/s (p99 41 ms);
 * limited by master 10.0.0.5:6379 (shard 2) main thread at 97%".
 * @param {CapacityResult} r
 */
export function answerLine(r) {
  const { max, failedAbove, end } = r.search;
  const u = perSec(r.criteria);
  const at = (rate) => r.steps.find((s) => s.rate === rate);
  const best = max !== null ? at(max) : undefined;
  const p99 = best?.figures.p99 !== null && best ? ` (p99 ${fixed(best.figures.p99, 0)} ms)` : '';
  if (end === 'none-held') {
    const low = at(failedAbove);
    return `no rate held, down to ${grouped(failedAbove)} ${u}: ${low?.reasons.join('; ') ?? 'no summary'}`;
  }
  if (end === 'ceiling') return `held up to the ceiling of ${grouped(max)} ${u}${p99}: the limit is higher (raise --max-rate)`;
  const above = failedAbove !== null ? at(failedAbove) : undefined;
  const limit = above?.limit ? `; ${limitWords(above, r.criteria)}` : '';
  const prefix =
    end === 'stopped'
      ? 'interrupted: highest rate held so far'
      : r.confirmation?.interval[0] === null
        ? 'max sustainable, not confirmed:'
        : 'max sustainable';
  const record = r.confirmation ? ` — ${confirmWords(r.confirmation, u)}` : '';
  return max === null ? `${prefix}: none${limit}` : `${prefix} ${grouped(max)} ${u}${p99}${record}${limit}`;
}

/**
 * The boundary's re-tests in words: the first round's record where it did not repeat itself, and
 * the bracket. "the limit lies in [438,000, 450,000] items/s (2.7% wide): every one of 4 tries
 * held at 438,000 and every one failed at 450,000", or "held 3/4 at 438,000, failed 4/4 at
 * 450,000, so widened: the limit lies in [400,000, 450,000] …".
 * @param {import('./capacity-result.js').Confirmation} c
 * @param {string} [u] the rates' unit (perSec)
 */
export function confirmWords(c, u = 'items/s') {
  // a Ctrl-C leaves an end open, and the bracket's words say where it cut the re-tests short
  if (c.confirmed) return bracketWords(c, u);
  const widened = c.lower.rates.length > 1 || c.upper.rates.length > 1 ? ', so widened' : '';
  return `held ${c.at.held}/${c.at.of} at ${grouped(c.at.rate)}, failed ${c.above.failed}/${c.above.of} at ${grouped(c.above.rate)}${widened}: ${bracketWords(c, u)}`;
}

/**
 * The calibrated bracket in one sentence: where the limit lies, how wide that is, and the record
 * that puts each end there (or why an end is open).
 * @param {import('./capacity-result.js').Confirmation} c
 * @param {string} [u] the rates' unit (perSec)
 */
export function bracketWords(c, u = 'items/s') {
  const [lo, hi] = c.bracket;
  const end = (/** @type {number|null} */ x) => (x === null ? '?' : grouped(x));
  const wide = c.width === null ? 'open' : `${fixed(c.width * 100, 1)}% wide`;
  const low = c.lower.rates.at(-1);
  const high = c.upper.rates.at(-1);
  const below = lo !== null && low ? `every one of ${low.of} tries held at ${grouped(lo)}` : openWords(c.lower, 'lower');
  let above = openWords(c.upper, 'upper');
  if (hi !== null && high) {
    // the count once where both ends share it: "… held at 238,000 and every one failed at 281,000"
    const count = lo === null ? ` of ${high.of} tries` : low?.of === high.of ? '' : ` of ${high.of}`;
    above = `every one${count} failed at ${grouped(hi)}`;
  }
  return `the limit lies in [${end(lo)}, ${end(hi)}] ${u} (${wide}): ${below} and ${above}`;
}

/**
 * Why an end of the bracket is open.
 * @param {{ rates: Array<{ rate: number }>, outcome: import('./capacity-result.js').EndOutcome }} side
 * @param {'lower'|'upper'} which
 */
function openWords(side, which) {
  const [verb, did, way] = which === 'lower' ? ['hold', 'held', 'down to'] : ['fail', 'failed', 'up to'];
  const from = side.rates[0]?.rate;
  const last = side.rates.at(-1)?.rate;
  if (side.outcome === 'stopped' || from === undefined || last === undefined)
    return `the re-tests ${which === 'lower' ? 'below' : 'above'} were cut short${last === undefined ? '' : ` at ${grouped(last)}`}`;
  const ceiling = side.outcome === 'ceiling' ? ' (raise --max-rate)' : '';
  if (from === last) return `${grouped(last)}${ceiling ? ', the ceiling,' : ''} did not ${verb} every try${ceiling}`;
  // 'moves' (the widening's bound), 'floor' (no lower rate) or 'ceiling'
  return `no rate from ${grouped(from)} ${way} ${ceiling ? 'the ceiling of ' : ''}${grouped(last)} ${did} every try${ceiling}`;
}

/**
 * @param {CapacityStep} s the step that did not hold
 * @param {import('./capacity-result.js').Criteria} c
 */
export function limitWords(s, c) {
  const f = s.figures;
  const l = s.limit;
  if (!l) return '';
  const rate = `at ${grouped(s.rate)} ${perSec(c)}`;
  switch (l.kind) {
    case 'engine': {
      const what = l.node.basis === 'main thread' ? 'main thread' : 'process (it reports no main-thread CPU)';
      const of = engineShare(c.nodeCpus);
      // an engine close to its ceiling while something else gave out first: say what did
      const gaveOut = l.pctOfNode < c.engineCeiling ? ` (${s.reasons.join('; ')})` : '';
      // a kv search's hot shard: the limiting node's share of the operations beside its CPU
      const ops = f.busiestOps;
      const share = ops && ops.addr === l.node.addr ? `, taking ${fixed(ops.opsShare * 100, 1)}% of the operations` : '';
      return `limited by ${l.node.role} ${l.node.addr} (shard ${l.node.shard}) ${what} at ${Math.round(l.pctOfNode)}%${of}${share} ${rate}${gaveOut}`;
    }
    case 'client':
      return `limited by the load generator — add ${c.unit === 'operations' ? 'clients' : 'writers'} (${c.unit === 'operations' ? 'client' : 'writer'} CPU up to ${fixed(f.clientCpu, 0)}%, event-loop delay p99 ${fixed(f.loopP99Ms, 0)} ms ${rate})`;
    case 'failures':
      return `limited by failures: ${grouped(f.failed)} ${c.unit ?? 'items'} failed ${rate}`;
    case 'latency':
      return `limited by latency: p99 ${fixed(f.p99, 0)} ms above the SLO of ${c.sloP99Ms} ms ${rate}`;
    default: {
      const hot = [f.busiestMaster, f.busiestReplica].filter(Boolean).sort((a, b) => b.engine - a.engine)[0];
      return `rate not held ${rate} (${fixed(f.ratio * 100, 1)}% achieved); no engine near its ceiling${hot ? ` (busiest ${hot.role} ${fixed(hot.engine, 0)}%)` : ''}`;
    }
  }
}

/**
 * What an engine percentage is of, where it is not simply one core: a capped node's share of a
 * core, or the one core a larger node's main thread can use.
 * @param {number} nodeCpus
 */
export function engineShare(nodeCpus) {
  if (nodeCpus === 1) return '';
  return nodeCpus < 1 ? ` of its ${nodeCpus} core` : ` of one core (the main thread's; the node has ${nodeCpus})`;
}

/**
 * The projection in words: the node that saturates first, or why no line is trusted.
 * @param {CapacityResult} r
 * @returns {string}
 */
export function projectionLine(r) {
  const first = r.projection[0];
  if (!first) return 'projection: no node was sampled';
  const trusted = r.projection.filter((p) => p.trusted);
  const p = trusted[0] ?? first;
  const who = `${p.role} ${p.addr} (shard ${p.shard})`;
  const u = perSec(r.criteria);
  if (!p.trusted)
    return `projection: not trusted (${p.why}) — ${who}${p.saturatesAt ? ` would saturate at ≈ ${grouped(p.saturatesAt)} ${u}` : ''}`;
  return `projection: ${who} saturates at ≈ ${grouped(p.saturatesAt)} ${u} (R² ${p.fit.r2.toFixed(2)}); at ${r.criteria.headroom}% engine CPU: ${grouped(p.atHeadroom)} ${u}; ${checkWords(checkAgainstSearch(r), u)}`;
}

/**
 * The projection's error against its own search, in words.
 * @param {import('./projection.js').ProjectionCheck|{ unchecked: string }} k
 * @param {string} [u] the rates' unit (perSec)
 */
export function checkWords(k, u = 'items/s') {
  if ('unchecked' in k) return `not checked against this search (${k.unchecked})`;
  const sign = k.errorPct >= 0 ? '+' : '−';
  return `checked against this search: its line reaches the ${k.ceilingPct}% ceiling at ≈ ${grouped(k.projected)} ${u}, ${sign}${Math.abs(k.errorPct).toFixed(1)}% from the searched maximum ${grouped(k.searchedMax)} (failed at ${grouped(k.failedAbove)})`;
}

/**
 * What the steps' noise sentinels saw, in words: a search whose steps shared the host with other
 * work may have stopped low, and says so beside its answer.
 * @param {import('./capacity-result.js').TrialNoise|null} n
 */
export function noiseWords(n) {
  if (!n) return 'noise: no step recorded it';
  const of = `outside CPU up to ${n.outsidePct}% of a core, noisy at ${n.thresholdPct}%`;
  return n.noisyRuns
    ? `noise: ${n.noisyRuns} of ${n.runs} step runs were noisy (${of}): other work on the host may have stopped the search low`
    : `noise: quiet host (${of})`;
}

/**
 * capacity.md
 * @param {CapacityResult} r
 * @param {{ command: string, instance?: Record<string, any>|null, answer?: string, noiseLine?: string }} meta answer: the line
 *   to lead with when it is not the search's (a search that failed)
 */
export function capacityMd(r, meta) {
  const c = r.criteria;
  const u = perSec(c);
  const kv = c.unit === 'operations';
  const one = c.unit === 'operations' ? 'operation/s' : 'item/s';
  const cores = engineShare(c.nodeCpus);
  const rows = r.steps.map((s, i) => {
    const f = s.figures;
    const node = (n) => (n ? fixed(n.engine, 1) : '-');
    return [
      i + 1,
      s.phase,
      grouped(s.rate),
      grouped(f.achieved),
      fixed(f.p50, 1),
      fixed(f.p99, 1),
      node(f.busiestMaster),
      node(f.busiestReplica),
      ...(kv ? [f.busiestOps ? `${f.busiestOps.addr}: ${fixed(f.busiestOps.opsShare * 100, 1)}` : '-'] : []),
      fixed(f.clientCpu, 0),
      s.held ? 'yes' : `no: ${s.reasons.join('; ')}`,
    ];
  });
  const proj = r.projection.map((p) => [
    `${p.role} ${p.addr} (s${p.shard})`,
    p.fit ? p.fit.slope.toExponential(2) : '-',
    p.fit ? fixed(p.fit.intercept, 1) : '-',
    p.fit ? p.fit.r2.toFixed(3) : '-',
    grouped(p.saturatesAt ?? NaN),
    grouped(p.atHeadroom ?? NaN),
    p.trusted ? 'yes' : `no: ${p.why}`,
  ]);
  return [
    '# Capacity',
    '',
    `**${meta.answer ?? answerLine(r)}**`,
    '',
    projectionLine(r),
    '',
    ...(meta.noiseLine ? [meta.noiseLine, ''] : []),
    `Held means: achieved ≥ ${fixed(c.minAchieved * 100, 1)}% of the target, nothing failed, p99 of ${c.unit === 'operations' ? 'an operation' : 'a chunk'} from its intended start ≤ ${c.sloP99Ms} ms, and every node's engine below ${c.engineCeiling}%${cores}. Engine CPU is the main thread's (% of one core), the process's where the server does not report it.`,
    '',
    ...(meta.instance
      ? [
          `Instance: ${Object.entries(meta.instance)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}`,
          '',
        ]
      : []),
    mdTable(
      [
        '#',
        'Phase',
        `Target ${u}`,
        `Achieved ${u}`,
        'p50 ms',
        'p99 ms',
        'Busiest master engine %',
        'Busiest replica engine %',
        ...(kv ? ['Node with most operations: % of them'] : []),
        'Client CPU %',
        'Held?',
      ],
      rows,
    ),
    '',
    `Projection per node (least squares of engine CPU on the achieved rate over the held steps; headroom ${c.headroom}%):`,
    '',
    mdTable(['Node', `Slope (% per ${one})`, 'Intercept %', 'R²', `Saturates at ${u}`, `At ${c.headroom}% ${u}`, 'Trusted?'], proj),
    '',
    `Command: \`${meta.command}\``,
    '',
  ].join('\n');
}
