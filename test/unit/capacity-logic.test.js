// The capacity search's pure parts (issue 14, points 2 and 3): the ramp and bisection against a
// table of outcomes, the boundary re-tested into a calibrated bracket (issue 36, point 6), what
// "held" means for a step's summary, and the least-squares projection.
import { describe, expect, it } from 'vitest';
import { majorityOf, roundRate, searchMax } from '../../src/experiments/capacity/search.js';
import { WIDEN_MOVES, confirmBoundary } from '../../src/experiments/capacity/bracket.js';
import { consumerReasons, judge } from '../../src/experiments/capacity/held.js';
import { checkAgainstSearch, engineCores, leastSquares, project } from '../../src/report/capacity/projection.js';
import { answerLine, bracketWords, checkWords, confirmWords, projectionLine } from '../../src/report/capacity/capacity-md.js';
import { instanceRows, instanceTableMd, limitBracket } from '../../src/report/capacity/cost-table.js';
import { guessRuns, nodeShares, nominalSeconds } from '../../src/experiments/kinds/capacity-kind.js';

/** A target that holds every rate up to `limit`: the steps asked, in order. */
async function searchAgainst(limit, o) {
  const asked = [];
  const r = await searchMax(o, async (rate, phase) => {
    asked.push([rate, phase]);
    return rate <= limit;
  });
  return { ...r, asked };
}

const base = { startRate: 10_000, maxRate: 1_000_000, growth: 2, precision: 0.05 };

describe('the search', () => {
  it('ramps until a step fails, then bisects to the precision: the maximum held, the rate above it did not', async () => {
    const r = await searchAgainst(123_456, base);
    expect(r.end).toBe('converged');
    expect(r.max).toBeLessThanOrEqual(123_456);
    expect(r.failedAbove).toBeGreaterThan(123_456);
    expect((r.failedAbove - r.max) / r.max).toBeLessThanOrEqual(0.05);
    expect(r.asked.filter(([, p]) => p === 'ramp').map(([x]) => x)).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
    // bisection halves the gap each step: 80k..160k to 5% takes 4 steps
    expect(r.asked.filter(([, p]) => p === 'bisect').length).toBe(4);
  });

  it('never asks above --max-rate, and says when the ceiling itself held', async () => {
    const r = await searchAgainst(10_000_000, { ...base, maxRate: 50_000 });
    expect(r).toMatchObject({ max: 50_000, failedAbove: null, end: 'ceiling' });
    expect(Math.max(...r.asked.map(([x]) => x))).toBe(50_000);
  });

  it('goes down from a start rate that does not hold', async () => {
    const r = await searchAgainst(3_000, base);
    expect(r.end).toBe('converged');
    expect(r.asked.slice(0, 3).map(([x]) => x)).toEqual([10_000, 5_000, 2_500]);
    expect(r.max).toBeLessThanOrEqual(3_000);
    expect((r.failedAbove - r.max) / r.max).toBeLessThanOrEqual(0.05);
  });

  it('gives up after three halvings when nothing holds', async () => {
    const r = await searchAgainst(0, base);
    expect(r).toMatchObject({ max: null, end: 'none-held' });
    expect(r.asked.length).toBe(4);
  });

  it('ends with what it has when a step is stopped', async () => {
    let n = 0;
    const r = await searchMax(base, async () => (++n === 3 ? null : true));
    expect(r).toMatchObject({ max: 20_000, end: 'stopped' });
  });

  it('with --tries 3 a step is the majority of its tries: two alike decide, the third only breaks a tie', async () => {
    const script = (outcomes) => {
      const asked = [];
      const step = majorityOf(async (rate) => {
        asked.push(rate);
        return outcomes.shift() ?? null;
      }, 3);
      return { step, asked };
    };
    const a = script([true, true]);
    expect(await a.step(100, 'ramp')).toBe(true);
    expect(a.asked).toEqual([100, 100]);
    const b = script([true, false, false]);
    expect(await b.step(100, 'ramp')).toBe(false);
    expect(b.asked).toHaveLength(3);
    const c = script([false, true, true]);
    expect(await c.step(100, 'ramp')).toBe(true);
    // a stop mid-step is a stop; 2 tries: both must hold (a tie is not a majority)
    expect(await script([true]).step(100, 'ramp')).toBeNull();
    const two = majorityOf(async () => false, 2);
    expect(await two(1, 'ramp')).toBe(false);
  });

  it('a ramp of majorities passes the low draws a single try stops at', async () => {
    // a node that holds up to 200k, but whose first try at 150k fails: one try stops there, the majority goes on
    const draws = new Map([[150_000, [false, true, true]]]);
    const step = async (rate) => draws.get(rate)?.shift() ?? rate <= 200_000;
    const o = { startRate: 100_000, maxRate: 1_000_000, growth: 1.5, precision: 0.05 };
    const once = await searchMax(o, step);
    draws.set(150_000, [false, true, true]);
    const most = await searchMax(o, majorityOf(step, 3));
    expect(once.max).toBeLessThan(150_000);
    expect(most.max).toBeGreaterThanOrEqual(190_000);
    expect(most.max).toBeLessThanOrEqual(200_000);
  });

  it("an experiment's ETA guesses a search's runs from its flags: the re-tests and --tries count", () => {
    // ramp + bisection 9, --confirm 3: 6 more and about 6 widened (bench:capacity's searches took 21–23)
    expect(guessRuns({})).toBe(21);
    expect(guessRuns({ confirm: 0 })).toBe(9);
    expect(guessRuns({ confirm: 0, tries: 3 })).toBe(23);
    expect(nominalSeconds({ duration: 5, capacity: { confirm: 0 } })).toBe(9 * 10);
  });

  it('asks rates a person would type', () => {
    expect(roundRate(123_456)).toBe(123_000);
    expect(roundRate(1_234_567)).toBe(1_230_000);
    expect(roundRate(57.4)).toBe(57);
  });
});

describe('the boundary, confirmed', () => {
  const found = { max: 438_000, failedAbove: 450_000, end: /** @type {const} */ ('converged') };
  /**
   * Outcomes by rate, one per try in order (null: Ctrl-C): the steps asked, and the confirmation.
   * @param {Record<number, Array<boolean|null>>} outcomes
   */
  async function confirmWith(outcomes, { times = 3, maxRate = 1_000_000 } = {}) {
    const asked = [];
    const left = Object.fromEntries(Object.entries(outcomes).map(([k, v]) => [k, [...v]]));
    const c = await confirmBoundary(found, { times, maxRate }, async (rate, phase) => {
      asked.push([rate, phase]);
      if (!left[rate]?.length) throw new Error(`no outcome scripted for a try at ${rate}`);
      return left[rate].shift() ?? null;
    });
    return { c, asked };
  }
  const rounds = (n) =>
    Array.from({ length: n }, () => [
      [438_000, 'confirm'],
      [450_000, 'confirm'],
    ]).flat();

  it("re-tests both ends, interleaved, and counts the search's own try: held 4/4, failed 4/4 needs no widening", async () => {
    const { c, asked } = await confirmWith({ 438000: [true, true, true], 450000: [false, false, false] });
    expect(asked).toEqual(rounds(3));
    expect(c).toEqual({
      at: { rate: 438_000, held: 4, of: 4 },
      above: { rate: 450_000, failed: 4, of: 4 },
      confirmed: true,
      interval: [438_000, 450_000],
      stopped: false,
      bracket: [438_000, 450_000],
      width: 12_000 / 438_000,
      lower: { rates: [{ rate: 438_000, held: 4, of: 4 }], outcome: 'repeated' },
      upper: { rates: [{ rate: 450_000, failed: 4, of: 4 }], outcome: 'repeated' },
    });
    expect(confirmWords(/** @type {any} */ (c))).toBe(
      'the limit lies in [438,000, 450,000] items/s (2.7% wide): every one of 4 tries held at 438,000 and every one failed at 450,000',
    );
  });

  it('moves a lower end that did not repeat itself down 5% at a time, N tries each, until every try held: here twice', async () => {
    const { c, asked } = await confirmWith({
      438000: [true, false, true],
      450000: [false, false, false],
      // 5% below 438,000; left at its first failure, nothing from before counted
      416000: [true, false],
      395000: [true, true, true],
    });
    expect(asked).toEqual([
      ...rounds(3),
      [416_000, 'widen'],
      [416_000, 'widen'],
      [395_000, 'widen'],
      [395_000, 'widen'],
      [395_000, 'widen'],
    ]);
    expect(c).toMatchObject({
      at: { rate: 438_000, held: 3, of: 4 },
      above: { rate: 450_000, failed: 4, of: 4 },
      confirmed: false,
      interval: [null, 450_000],
      stopped: false,
      bracket: [395_000, 450_000],
      lower: {
        rates: [
          { rate: 438_000, held: 3, of: 4 },
          { rate: 416_000, held: 1, of: 2 },
          { rate: 395_000, held: 3, of: 3 },
        ],
        outcome: 'repeated',
      },
      upper: { rates: [{ rate: 450_000, failed: 4, of: 4 }], outcome: 'repeated' },
    });
    expect(c?.width).toBeCloseTo(55_000 / 395_000, 12);
    expect(confirmWords(/** @type {any} */ (c))).toBe(
      'held 3/4 at 438,000, failed 4/4 at 450,000, so widened: the limit lies in [395,000, 450,000] items/s (13.9% wide): every one of 3 tries held at 395,000 and every one of 4 failed at 450,000',
    );
    const r = {
      search: found,
      confirmation: c,
      steps: [
        { rate: 438_000, figures: { p99: 41 } },
        { rate: 450_000, figures: {}, limit: null },
      ],
      criteria,
    };
    expect(answerLine(/** @type {any} */ (r))).toBe(
      `max sustainable, not confirmed: 438,000 items/s (p99 41 ms) — ${confirmWords(/** @type {any} */ (c))}`,
    );
  });

  it('leaves an upper end that never repeats itself open after the bound, the two ends still interleaved while both move', async () => {
    const { c, asked } = await confirmWith({
      438000: [false, true, true],
      450000: [true, false, false],
      416000: [true, true, true],
      // each 5% above the last; every one held at its first or second try
      473000: [true],
      497000: [false, true],
      522000: [true],
      548000: [true],
      575000: [true],
      604000: [true],
    });
    expect(asked.slice(6)).toEqual([
      [416_000, 'widen'],
      [473_000, 'widen'],
      [416_000, 'widen'],
      [497_000, 'widen'],
      [416_000, 'widen'],
      [497_000, 'widen'],
      [522_000, 'widen'],
      [548_000, 'widen'],
      [575_000, 'widen'],
      [604_000, 'widen'],
    ]);
    expect(c?.upper.rates.length).toBe(1 + WIDEN_MOVES);
    expect(c).toMatchObject({ bracket: [416_000, null], width: null, stopped: false, upper: { outcome: 'moves' } });
    expect(c?.upper.rates.slice(0, 3)).toEqual([
      { rate: 450_000, failed: 3, of: 4 },
      { rate: 473_000, failed: 0, of: 1 },
      { rate: 497_000, failed: 1, of: 2 },
    ]);
    expect(confirmWords(/** @type {any} */ (c))).toBe(
      'held 3/4 at 438,000, failed 3/4 at 450,000, so widened: the limit lies in [416,000, ?] items/s (open): every one of 3 tries held at 416,000 and no rate from 450,000 up to 604,000 failed every try',
    );
  });

  it("never moves the upper end past the search's ceiling, and says so", async () => {
    const { c, asked } = await confirmWith(
      { 438000: [true, true, true], 450000: [false, true, false], 473000: [true], 497000: [true], 500000: [true] },
      { maxRate: 500_000 },
    );
    expect(asked.slice(6).map(([rate]) => rate)).toEqual([473_000, 497_000, 500_000]);
    expect(c).toMatchObject({ bracket: [438_000, null], upper: { outcome: 'ceiling' } });
    expect(bracketWords(/** @type {any} */ (c))).toBe(
      'the limit lies in [438,000, ?] items/s (open): every one of 4 tries held at 438,000 and no rate from 450,000 up to the ceiling of 500,000 failed every try (raise --max-rate)',
    );
  });

  it('a Ctrl-C mid-widening ends it with what it has: the end being moved is open, and says where it was cut', async () => {
    const { c, asked } = await confirmWith({
      438000: [true, false, true],
      450000: [false, false, false],
      416000: [true, null],
    });
    expect(asked.length).toBe(8);
    expect(c).toMatchObject({
      stopped: true,
      interval: [null, 450_000],
      bracket: [null, 450_000],
      width: null,
      lower: {
        rates: [
          { rate: 438_000, held: 3, of: 4 },
          { rate: 416_000, held: 1, of: 1 },
        ],
        outcome: 'stopped',
      },
      upper: { outcome: 'repeated' },
    });
    expect(confirmWords(/** @type {any} */ (c))).toBe(
      'held 3/4 at 438,000, failed 4/4 at 450,000, so widened: the limit lies in [?, 450,000] items/s (open): the re-tests below were cut short at 416,000 and every one of 4 tries failed at 450,000',
    );
  });

  it('has nothing to re-test without a boundary (the ceiling held, nothing held) or with --confirm 0; a Ctrl-C in the first round ends it with what it has', async () => {
    const never = async () => {
      throw new Error('no step expected');
    };
    expect(await confirmBoundary({ max: 1_000_000, failedAbove: null, end: 'ceiling' }, { times: 3 }, never)).toBeNull();
    expect(await confirmBoundary({ max: null, failedAbove: 1250, end: 'none-held' }, { times: 3 }, never)).toBeNull();
    expect(await confirmBoundary(found, { times: 0 }, never)).toBeNull();
    const { c } = await confirmWith({ 438000: [true], 450000: [null] });
    expect(c).toMatchObject({ at: { held: 2, of: 2 }, above: { failed: 1, of: 1 }, stopped: true, bracket: [null, null] });
    expect(confirmWords(/** @type {any} */ (c))).toBe(
      'the limit lies in [?, ?] items/s (open): the re-tests below were cut short at 438,000 and the re-tests above were cut short at 450,000',
    );
  });

  it('says the bracket in one line: where the limit lies, how wide, and the record at each end', () => {
    const c = {
      bracket: [238_000, 281_000],
      width: 43_000 / 238_000,
      lower: {
        rates: [
          { rate: 250_000, held: 2, of: 4 },
          { rate: 238_000, held: 3, of: 3 },
        ],
        outcome: 'repeated',
      },
      upper: {
        rates: [
          { rate: 268_000, failed: 2, of: 4 },
          { rate: 281_000, failed: 3, of: 3 },
        ],
        outcome: 'repeated',
      },
    };
    expect(bracketWords(/** @type {any} */ (c))).toBe(
      'the limit lies in [238,000, 281,000] items/s (18.1% wide): every one of 3 tries held at 238,000 and every one failed at 281,000',
    );
  });
});

/** A producer summary.json with the fields a judgement reads. */
function summary({
  target = 100_000,
  ratio = 1,
  failed = 0,
  p99 = 20,
  masters = [40],
  replicas = [],
  clientCpu = 30,
  loop = 5,
  engine = true,
} = {}) {
  const node = (role, v, i) => ({ addr: `10.0.0.${i + 1}:6379`, role, shard: i + 1, samples: 8, avg: v + 5, engineAvg: engine ? v : null });
  return {
    target: { itemsPerSec: target },
    achieved: { itemsPerSec: target * ratio, ratio },
    totals: { failed, unacked: 0 },
    latency: { batch: { intended: { p50: p99 / 2, p99 } } },
    cpu: { nodes: [...masters.map((v, i) => node('master', v, i)), ...replicas.map((v, i) => node('replica', v, i + 10))] },
    client: { cpuPctMaxWriter: clientCpu, loopP99MsMax: loop },
    outcome: { exitCode: failed ? 1 : 0 },
  };
}
const criteria = { minAchieved: 0.99, sloP99Ms: 100, engineCeiling: 90, nodeCpus: 1 };

describe('held', () => {
  it('holds when the rate, failures, latency and every engine are within bounds', () => {
    expect(judge(summary(), criteria)).toMatchObject({ held: true, reasons: [], limit: null });
  });

  it('names the node whose main thread reached the ceiling, by role, address and shard', () => {
    const j = judge(summary({ masters: [40, 96], ratio: 0.93 }), criteria);
    expect(j.held).toBe(false);
    expect(j.limit).toMatchObject({ kind: 'engine', node: { addr: '10.0.0.2:6379', shard: 2, basis: 'main thread' } });
    expect(j.reasons.join()).toMatch(/achieved 93\.0%.*engine at 96%/);
  });

  it('reads the ceiling against a capped node: 48% of a core is 96% of half a core', () => {
    const j = judge(summary({ masters: [48] }), { ...criteria, nodeCpus: 0.5 });
    expect(j.limit).toMatchObject({ kind: 'engine', pctOfNode: 96 });
  });

  it('reads it against one core on a node of more: its main thread is one thread, 96% of a core is 96% whatever the cores', () => {
    expect([0.25, 0.5, 1, 2, 4].map(engineCores)).toEqual([0.25, 0.5, 1, 1, 1]);
    const j = judge(summary({ masters: [96] }), { ...criteria, nodeCpus: 2 });
    expect(j.held).toBe(false);
    expect(j.limit).toMatchObject({ kind: 'engine', pctOfNode: 96 });
  });

  it('blames the load generator when a writer is busy and no engine is', () => {
    expect(judge(summary({ ratio: 0.9, clientCpu: 97 }), criteria).limit).toEqual({ kind: 'client' });
  });

  it('says latency and failures apart', () => {
    expect(judge(summary({ p99: 250 }), criteria)).toMatchObject({ held: false, limit: { kind: 'latency' } });
    expect(judge(summary({ failed: 12 }), criteria)).toMatchObject({ held: false, limit: { kind: 'failures' } });
  });

  it('falls back to process CPU on a server without a main-thread figure, and says so', () => {
    const j = judge(summary({ masters: [93], engine: false }), criteria);
    expect(j.limit).toMatchObject({ kind: 'engine', node: { basis: 'process', engine: 98 } });
  });
});

describe('a consumer beside a step', () => {
  it('holds the step back with its own words when it did not do what it was asked, and not otherwise', () => {
    expect(consumerReasons({ outcome: { exitCode: 0, problems: [] } })).toEqual([]);
    expect(consumerReasons({ outcome: { exitCode: 1, problems: ['3 cycles failed'] } })).toEqual(['consumer: 3 cycles failed']);
    expect(consumerReasons(null)).toEqual(['the consumer wrote no summary']);
  });
});

describe('the projection', () => {
  it('fits a line exactly', () => {
    const f = leastSquares([1, 2, 3, 4], [3, 5, 7, 9]);
    expect(f.slope).toBeCloseTo(2);
    expect(f.intercept).toBeCloseTo(1);
    expect(f.r2).toBeCloseTo(1);
  });

  const step = (achieved, engine, held = true) => ({
    held,
    figures: { achieved, nodes: [{ addr: 'a:1', role: 'master', shard: 1, engine }] },
  });

  it('reads saturation at 100% and the rate at the headroom from the held steps only', () => {
    const [p] = project([step(100_000, 22), step(200_000, 42), step(300_000, 62), step(400_000, 99, false)], { headroom: 60, nodeCpus: 1 });
    expect(p.trusted).toBe(true);
    expect(p.fit.points).toBe(3);
    expect(p.saturatesAt).toBe(490_000);
    expect(p.atHeadroom).toBe(290_000);
  });

  it('saturates a capped node at its cap', () => {
    const [p] = project([step(100_000, 12), step(200_000, 22), step(300_000, 32)], { headroom: 60, nodeCpus: 0.5 });
    expect(p.saturatesAt).toBe(480_000);
  });

  it('saturates a node of two cores where its main thread fills one, not two', () => {
    const [p] = project([step(100_000, 12), step(200_000, 22), step(300_000, 32)], { headroom: 60, nodeCpus: 2 });
    expect(p.saturatesAt).toBe(980_000);
    expect(p.atHeadroom).toBe(580_000);
  });

  describe('held to account by its own search', () => {
    const node = { addr: 'a:1', role: 'master', shard: 1, engine: 0, basis: 'main thread' };
    const run = (nodeCpus, stopped = /** @type {any} */ ({ kind: 'engine', node, pctOfNode: 97 })) => {
      const steps = [
        [100_000, 22],
        [200_000, 42],
        [300_000, 62],
        [400_000, 82],
      ].map(([rate, engine]) => ({ rate, held: true, limit: null, ...step(rate, engine) }));
      steps.push({ rate: 420_000, held: false, limit: stopped, ...step(420_000, 97, false) });
      const criteria = { engineCeiling: 90, nodeCpus, headroom: 60, minAchieved: 0.99, sloP99Ms: 200, maxRate: 1e6 };
      const r = { search: { max: 400_000, failedAbove: 420_000, end: 'converged' }, steps, projection: project(steps, criteria), criteria };
      return { r, check: checkAgainstSearch(r) };
    };

    it('where the line of the node that stopped the search reaches the ceiling, against the maximum held', () => {
      const { r, check } = run(1);
      // engine = 2 + 0.0002 × rate: 90% at 440,000, 10% above the maximum of 400,000
      expect(check).toEqual({ addr: 'a:1', ceilingPct: 90, projected: 440_000, searchedMax: 400_000, failedAbove: 420_000, errorPct: 10 });
      expect(projectionLine(r)).toMatch(
        /saturates at ≈ 490,000 items\/s .*; checked against this search: its line reaches the 90% ceiling at ≈ 440,000 items\/s, \+10\.0% from the searched maximum 400,000 \(failed at 420,000\)$/,
      );
      // a node capped at half a core reaches its ceiling at 45% of a core
      expect(run(0.5).check).toMatchObject({ projected: 215_000, errorPct: -46.25 });
      expect(checkWords(run(0.5).check)).toMatch(/at ≈ 215,000 items\/s, −46\.3% from the searched maximum/);
    });

    it('is not checked by a search that stopped on something else, found no boundary or has no line to trust', () => {
      expect(run(1, { kind: 'latency' }).check).toEqual({ unchecked: 'the search stopped on latency, not the engine' });
      const { r } = run(1);
      expect(checkAgainstSearch({ ...r, search: { max: 400_000, failedAbove: null, end: 'ceiling' } })).toEqual({
        unchecked: 'the search found no boundary',
      });
      expect(
        checkAgainstSearch({ ...r, projection: r.projection.map((p) => ({ ...p, trusted: false, why: 'R² 0.50 below 0.9' })) }),
      ).toEqual({ unchecked: 'the line of a:1 is not trusted (R² 0.50 below 0.9)' });
      expect(projectionLine({ ...r, steps: r.steps.map((s) => (s.held ? s : { ...s, limit: { kind: 'client' } })) })).toMatch(
        /; not checked against this search \(the search stopped on client, not the engine\)$/,
      );
    });
  });

  it('does not trust two points or a scattered cloud', () => {
    expect(project([step(1, 10), step(2, 20)], { headroom: 60, nodeCpus: 1 })[0]).toMatchObject({ trusted: false, why: /2 held steps/ });
    const cloud = project([step(100, 50), step(200, 10), step(300, 60), step(400, 20)], { headroom: 60, nodeCpus: 1 })[0];
    expect(cloud.trusted).toBe(false);
    expect(cloud.why).toMatch(/R²|does not rise/);
  });
});

describe('the answer', () => {
  it('names the maximum, its p99 and the limit found just above it', () => {
    const held = {
      rate: 200_000,
      phase: 'bisect',
      dir: '',
      held: true,
      reasons: [],
      limit: null,
      figures: judge(summary({ target: 200_000, p99: 41 }), criteria).figures,
    };
    const j = judge(summary({ target: 210_000, masters: [30, 97], ratio: 0.95 }), criteria);
    const failed = { rate: 210_000, phase: 'bisect', dir: '', held: false, reasons: j.reasons, limit: j.limit, figures: j.figures };
    const line = answerLine({
      search: { max: 200_000, failedAbove: 210_000, end: 'converged' },
      steps: [held, failed],
      projection: [],
      criteria: { ...criteria, headroom: 60, maxRate: 1e6 },
    });
    expect(line).toBe(
      'max sustainable 200,000 items/s (p99 41 ms); limited by master 10.0.0.2:6379 (shard 2) main thread at 97% at 210,000 items/s',
    );
  });
});

describe('the cost table carries the re-tests', () => {
  /** A capacity.json: the search's steps [rate, held] in order, its boundary and its re-tests. */
  const doc = (steps, confirmation, type = 'x') => ({
    instance: { type, hourlyPrice: 0.1 },
    search: { max: 400_000, failedAbove: 420_000, end: 'converged' },
    confirmation,
    steps: steps.map(([rate, held]) => ({
      rate,
      held,
      figures: { nodes: [{ addr: 'a:1', role: 'master', shard: 1, engine: 50 }], busiestMaster: { engine: 50 } },
    })),
    // 100,000 items/s per shard at the headroom, read at the maximum of 400,000
    projection: [{ addr: 'a:1', trusted: true, atHeadroom: 100_000 }],
  });
  const search = [
    [100_000, true],
    [200_000, true],
    [400_000, true],
    [800_000, false],
    [600_000, false],
    [500_000, false],
    [450_000, false],
    [420_000, false],
  ];
  const record = (atHeld, aboveFailed) => ({
    at: { rate: 400_000, held: atHeld, of: 3 },
    above: { rate: 420_000, failed: aboveFailed, of: 3 },
  });

  it('confirmed: the limit between the two ends, shards at each end of it (a range where it spans a count)', () => {
    const d = doc([...search, [400_000, true], [420_000, false], [400_000, true], [420_000, false]], record(3, 3));
    expect(limitBracket(d)).toEqual({ lo: 400_000, hi: 420_000, record: 'held 3/3 at 400,000, failed 3/3 at 420,000' });
    // 1,000,000 items/s: 10 shards at 100,000 each; at the bracket's top 105,000 each: 10 still; 1,030,000: 11 or 10
    expect(instanceRows([{ label: 'x', doc: d }], { forRate: 1_000_000 })[0]).toMatchObject({ shardsFor: 10, shardsRange: [10, 10] });
    const [row] = instanceRows([{ label: 'x', doc: d }], { forRate: 1_030_000 });
    expect(row).toMatchObject({ shardsFor: 11, shardsRange: [10, 11] });
    const md = instanceTableMd([row], { forRate: 1_030_000, headroom: 60 });
    expect(md).toContain('| 400,000 | 400,000–420,000 (held 3/3 at 400,000, failed 3/3 at 420,000) | 18.00 | 100,000 | - | 10–11 |');
    expect(md).toContain(
      "**Cheapest for 1,030,000 items/s at 60% engine CPU: x, 11 shard(s), 792.00 per month (10–11 shards over the limit's interval: the re-tests do not settle the count).**",
    );
  });

  it('the cheapest choice names the priced rows it could not weigh (no trusted projection): cheapest of the rows sized', () => {
    const d = doc([...search, [400_000, true], [420_000, false]], record(3, 3));
    const blind = { ...doc([...search], record(3, 3), 'r6g.large'), projection: [{ addr: 'a:1', trusted: false, atHeadroom: 100_000 }] };
    const rows = instanceRows(
      [
        { label: 'x', doc: d },
        { label: 'y', doc: blind },
      ],
      { forRate: 1_000_000 },
    );
    const md = instanceTableMd(rows, { forRate: 1_000_000, headroom: 60 });
    expect(md).toMatch(
      /\*\*Cheapest for 1,000,000 items\/s at 60% engine CPU: x, 10 shard\(s\), [\d.]+ per month\.\*\* Not weighed \(no trusted projection\): r6g\.large\.$/m,
    );
    expect(md).toContain('| Instance | master engine at max, % of a core | replica engine at max, % of a core |');
    expect(instanceTableMd([rows[0]], { forRate: 1_000_000, headroom: 60 })).not.toContain('Not weighed');
  });

  it('names a row by its step where several rows share one instance type (a data model per row)', () => {
    const d = doc([...search, [400_000, true], [420_000, false], [400_000, true], [420_000, false]], record(3, 3));
    const rows = instanceRows(
      [
        { label: 'Sorted set', doc: { ...d, instance: { type: 'r6g.large' } } },
        { label: 'List', doc: { ...d, instance: { type: 'r6g.large' } } },
        { label: 'Other', doc: { ...d, instance: { type: 'm6g.large' } } },
      ],
      {},
    );
    const md = instanceTableMd(rows, { headroom: 60 });
    expect(md).toContain('| Sorted set: r6g.large |');
    expect(md).toContain('| List: r6g.large |');
    expect(md).toContain('| m6g.large |');
  });

  it('an end that did not repeat itself moves the bracket to the next rate that did, or leaves it open', () => {
    // the maximum failed one re-test: the limit is at or below 200,000, the highest rate that always held
    const shaky = doc([...search, [400_000, false], [420_000, false], [400_000, true], [420_000, false]], record(2, 3));
    expect(limitBracket(shaky)).toMatchObject({ lo: 200_000, hi: 420_000 });
    expect(instanceRows([{ label: 'x', doc: shaky }], { forRate: 1_000_000 })[0].shardsRange).toEqual([10, 20]);
    // the rate above held once: nothing above it failed every try but 450,000
    const above = doc([...search, [400_000, true], [420_000, true], [400_000, true], [420_000, false]], record(3, 2));
    expect(limitBracket(above)).toMatchObject({ lo: 400_000, hi: 450_000 });
    // and with nothing above failing every try, the top is open
    const open = doc(
      [
        [100_000, true],
        [400_000, true],
        [420_000, false],
        [400_000, true],
        [420_000, true],
      ],
      { at: { rate: 400_000, held: 2, of: 2 }, above: { rate: 420_000, failed: 1, of: 2 } },
    );
    expect(limitBracket(open)).toMatchObject({ lo: 400_000, hi: null });
    const [row] = instanceRows([{ label: 'x', doc: open }], { forRate: 1_030_000 });
    expect(row.shardsRange).toEqual([null, 11]);
    expect(instanceTableMd([row], { forRate: 1_030_000, headroom: 60 })).toContain(
      '| 400,000–? (held 2/2 at 400,000, failed 1/2 at 420,000) | 18.00 | 100,000 | - | ?–11 |',
    );
  });

  it('takes the calibrated bracket where the re-tests widened to one, not a rate the search ran once', () => {
    // the steps alone would put the bottom at 200,000; the widened re-tests held every try at 380,000
    const widened = doc([...search, [400_000, false], [420_000, false], [380_000, true], [380_000, true]], {
      ...record(2, 3),
      bracket: [380_000, 420_000],
      width: 40_000 / 380_000,
    });
    expect(limitBracket(widened)).toEqual({ lo: 380_000, hi: 420_000, record: 'held 2/3 at 400,000, failed 3/3 at 420,000' });
    expect(limitBracket(doc(search, { ...record(3, 1), bracket: [400_000, null], width: null }))).toMatchObject({ lo: 400_000, hi: null });
  });

  it("beside the per-shard figure, the projection's error against its own search, where the engine stopped it", () => {
    const nodes = (engine) => [{ addr: 'a:1', role: 'master', shard: 1, engine }];
    const steps = [
      [100_000, 22],
      [200_000, 42],
      [300_000, 62],
      [400_000, 82],
    ].map(([rate, engine]) => ({
      rate,
      held: true,
      limit: null,
      figures: { achieved: rate, nodes: nodes(engine), busiestMaster: { engine } },
    }));
    steps.push({
      rate: 420_000,
      held: false,
      limit: /** @type {any} */ ({ kind: 'engine', node: nodes(97)[0], pctOfNode: 97 }),
      figures: { achieved: 410_000, nodes: nodes(97), busiestMaster: { engine: 97 } },
    });
    const criteria = { engineCeiling: 90, nodeCpus: 1, headroom: 60 };
    const d = {
      instance: { type: 'x', hourlyPrice: 0.1 },
      search: { max: 400_000, failedAbove: 420_000, end: 'converged' },
      confirmation: null,
      steps,
      criteria,
      projection: project(steps, criteria),
    };
    const [row] = instanceRows([{ label: 'x', doc: d }], {});
    // engine = 2 + 0.0002 × rate: the 90% ceiling at 440,000, 10% above the maximum held
    expect(row.projectionErrorPct).toBeCloseTo(10, 9);
    expect(instanceTableMd([row], { headroom: 60 })).toContain('| 400,000 | - | 18.00 | 290,000 | +10.0% |');
  });

  it('without re-tests (--confirm 0) the table says so and counts one number of shards', () => {
    const [row] = instanceRows([{ label: 'x', doc: doc(search, null) }], { forRate: 1_030_000 });
    expect(row).toMatchObject({ bracket: null, shardsRange: null, shardsFor: 11 });
    expect(instanceTableMd([row], { forRate: 1_030_000, headroom: 60 })).toContain('| 400,000 | - | 18.00 | 100,000 | - | 11 |');
  });
});

describe("a capacity step's CPU at its first rate, in the unit its header names", () => {
  it("half a core's node at 23.6 % of a core: 47.2 % of its cap, 11.8 % of the 2-vCPU instance it stands for", () => {
    const doc = { criteria: { nodeCpus: 0.5 }, instance: { vcpu: 2 } };
    const { ofNode, ofVcpus } = nodeShares(23.6, doc);
    expect(ofNode).toBeCloseTo(47.2, 10);
    expect(ofVcpus).toBeCloseTo(11.8, 10);
  });

  it('uncapped: % of one core; no instance: no vCPU figure', () => {
    expect(nodeShares(30, {})).toEqual({ ofNode: 30, ofVcpus: undefined });
    expect(nodeShares(undefined, {})).toEqual({ ofNode: undefined, ofVcpus: undefined });
  });
});
