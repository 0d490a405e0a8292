// Placing a spec's load in the seed's regime (src/experiments/regime.js): the search over rates,
// on probes given as numbers (the real probes are short runs: test/e2e/experiment-regime.test.js).
import { describe, it, expect } from 'vitest';
import {
  MAX_PROBES,
  TOLERANCE,
  nextFactor,
  placeRegime,
  probeFigures,
  readRegime,
  regimeLine,
  scaleFlags,
  settle,
} from '../../src/experiments/regime.js';

const problem = (msg) => new Error(msg);

/** A node whose engine share grows linearly with the rate factor, from an idle floor, up to a rate its writers can hold. */
const node =
  ({ perFactor, idle = 0.005, ceiling = Infinity }) =>
  async (factor) => ({ factor, engine: Math.min(1, idle + perFactor * factor), held: factor <= ceiling });

describe('the search', () => {
  it('reaches the target from a step that runs the engine at 3 %, in a few probes', async () => {
    const placed = await placeRegime({ engine: 0.75, step: 'zset' }, node({ perFactor: 0.03 }), () => {});
    expect(placed.reached).toBe(true);
    const last = placed.probes.find((p) => p.factor === placed.factor);
    expect(Math.abs(/** @type {number} */ (last?.engine) - 0.75)).toBeLessThanOrEqual(TOLERANCE);
    expect(placed.probes.length).toBeLessThanOrEqual(4);
  });
  it('moves the rate at most 4x a probe: a reading near idle says little', () => {
    expect(nextFactor([{ factor: 1, engine: 0.01, held: true }], 0.75)).toBe(4);
    expect(nextFactor([{ factor: 8, engine: 1, held: true }], 0.1)).toBe(2);
  });
  it('comes back down between the highest rate held and one the writers could not hold', () => {
    expect(
      nextFactor(
        [
          { factor: 1, engine: 0.2, held: true },
          { factor: 4, engine: 0.5, held: false },
        ],
        0.75,
      ),
    ).toBe(2.5);
  });
  it('never probes past a rate the writers could not hold', () => {
    const f = nextFactor(
      [
        { factor: 1, engine: 0.1, held: true },
        { factor: 3, engine: 0.5, held: false },
        { factor: 2, engine: 0.2, held: true },
      ],
      0.75,
    );
    expect(f).toBeLessThan(3);
  });
  it('tries a probe that measured nothing (a crash, no sample) once more at its rate, and does not take it as a ceiling', () => {
    const crashed = { factor: 1, engine: null, held: false };
    expect(nextFactor([crashed], 0.75)).toBe(1);
    // the second try measured: the search goes up as from any first reading, past the crashed one
    expect(nextFactor([crashed, { factor: 1, engine: 0.125, held: true }], 0.75)).toBe(4);
    // twice nothing at one rate: as before, half of it
    expect(nextFactor([crashed, crashed], 0.75)).toBe(0.5);
  });
  it('settles on the held probe closest to the target, saying it was not reached, when the host cannot drive the node that far', async () => {
    const placed = await placeRegime({ engine: 0.75, step: 'zset' }, node({ perFactor: 0.03, ceiling: 10 }), () => {});
    expect(placed.reached).toBe(false);
    expect(placed.probes).toHaveLength(MAX_PROBES);
    expect(placed.factor).toBeLessThanOrEqual(10);
    expect(settle(placed.probes, 0.75).factor).toBe(placed.factor);
  });
  it('says each probe as it goes', async () => {
    const lines = [];
    await placeRegime({ engine: 0.5, step: 'zset' }, node({ perFactor: 0.25 }), (l) => lines.push(l));
    expect(lines[0]).toBe('rqbench experiment: regime probe 1: zset at x1 the rate, busiest master engine 25.5% (target 50%)');
  });
});

describe('scaled flags', () => {
  it('scale -q by the factor, a whole number of items per writer', () => {
    expect(scaleFlags({ q: 30000, t: 2 }, 3.3333)).toEqual({ q: 100000, t: 2 });
    expect(scaleFlags({ quantity: 10, writers: 4 }, 0.01)).toEqual({ quantity: 4, writers: 4 });
    expect(scaleFlags({ t: 1 }, 2)).toEqual({ t: 1, q: 200 });
  });
  it('are the step’s own at x1', () => {
    const f = { q: 5 };
    expect(scaleFlags(f, 1)).toBe(f);
  });
});

describe("a probe's figures", () => {
  it('are the busiest master’s main thread, and whether the writers held the rate', () => {
    const s = {
      achieved: { ratio: 0.995 },
      cpu: {
        nodes: [
          { role: 'master', samples: 3, engineAvg: 40, avg: 45 },
          { role: 'master', samples: 3, engineAvg: 70, avg: 72 },
          { role: 'replica', samples: 3, engineAvg: 90, avg: 90 },
        ],
      },
    };
    expect(probeFigures(s)).toEqual({ engine: 0.7, held: true });
    expect(probeFigures({ ...s, achieved: { ratio: 0.9 } }).held).toBe(false);
    expect(probeFigures({})).toEqual({ engine: null, held: false });
    // a node capped at half a core is a slower core: 35 % of one core is 70 % of it
    expect(probeFigures(s, 0.5).engine).toBeCloseTo(1.4, 10);
  });
});

describe("RESULTS.md's regime line", () => {
  const placed = { engine: 0.75, step: 'c1', factor: 2.5, reached: true, probes: [{ factor: 2.5, engine: 0.728, held: true }] };
  it('names the cap the share is of on a capped node, not "its core" (a table beside it reads half that share of one core)', () => {
    expect(regimeLine(placed, 0.5)).toBe(
      "**Regime:** every step ran at its rate x2.5, placed by probing: the busiest master's main thread at 72.8% of its 0.5-core cap on c1 (target 75%).",
    );
    expect(regimeLine(placed, null)).toContain('at 72.8% of its core on c1 (target 75%)');
    expect(regimeLine({ ...placed, reached: false }, 0.25)).toContain(
      'the closest the search came to 75% of its 0.25-core cap on c1 in 1 probe: 72.8%',
    );
  });
});

describe('regime: in a spec', () => {
  it('names the reference step (the first by default) and the engine share', () => {
    expect(readRegime({ engine: 0.75 }, ['zset', 'list'], problem)).toEqual({ engine: 0.75, step: 'zset' });
    expect(readRegime({ engine: 0.7, step: 'list' }, ['zset', 'list'], problem)).toEqual({ engine: 0.7, step: 'list' });
    expect(readRegime(undefined, ['zset'], problem)).toBeNull();
  });
  it.each([
    [
      { engine: 75 },
      "regime.engine must be the busiest master's main-thread share of its core (of its cap, on a capped node), above 0 and at most 1 (got 75)",
    ],
    [{ engine: 0.75, step: 'hash' }, 'regime.step must name a step (zset, list) (got "hash")'],
    [{ engine: 0.75, rate: 2 }, 'regime.rate is not a field here (engine, step)'],
    [0.75, 'regime must be a map: { engine: <share of one core, e.g. 0.75>, step: <name> }'],
  ])('refuses %j in one line', (v, msg) => {
    expect(() => readRegime(v, ['zset', 'list'], problem)).toThrow(msg);
  });
});
