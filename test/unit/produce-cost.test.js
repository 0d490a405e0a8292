// The Results section's cost per item: this run's figures per step from its summary, and the seed's
// own per-item figure from its row (its master node's CPU x its vCPUs ÷ its items/s).
import { describe, it, expect } from 'vitest';
import { costTable, seedUsPerItem } from '../../src/experiments/kinds/produce-cost.js';

const spec = /** @type {any} */ ({ seedNodeVcpus: 2 });
const step = (seed) => /** @type {any} */ ({ label: 'zset', seed });

describe("the seed's cost per item", () => {
  it("is its master node's CPU (% of its vCPUs) x the vCPUs ÷ its items per second, in µs", () => {
    // 002's sorted set: 44.5 % of a 2-vCPU node at 8 writers x 25k items/s
    expect(seedUsPerItem(spec, step({ row: 'r6g', itemsPerSec: 200_000, figures: [['master CPU', '44.5']] }))).toBeCloseTo(4.45, 10);
    // written with a % sign, or as a range: its first figure
    expect(seedUsPerItem(spec, step({ row: 'r6g', itemsPerSec: 80_000, figures: [['master CPU', '38 up to 43%']] }))).toBeCloseTo(9.5, 10);
  });
  it('is not made without the items per second, the node’s vCPUs or a master CPU figure', () => {
    expect(seedUsPerItem(spec, step({ row: 'r6g', figures: [['master CPU', '44.5']] }))).toBeNull();
    expect(seedUsPerItem(/** @type {any} */ ({}), step({ row: 'r6g', itemsPerSec: 1, figures: [['master CPU', '44.5']] }))).toBeNull();
    expect(seedUsPerItem(spec, step({ row: 'r6g', itemsPerSec: 1, figures: [['replica CPU', '29']] }))).toBeNull();
  });
});

describe('the cost table', () => {
  const cost = {
    liveItems: 30_000,
    roles: {
      master: { engineUs: 2.345, processUs: 2.5, netIn: 210.4, replOut: 230.9, memory: 399.2 },
      replica: { engineUs: 1.5 },
    },
  };
  const measured = {
    step: step({ row: 'r6g', itemsPerSec: 200_000, figures: [['master CPU', '44.5']] }),
    r: { complete: true, producer: { cost } },
  };
  it("shows each step's figures per item beside the seed's", () => {
    const md = costTable(spec, [/** @type {any} */ (measured)]).join('\n');
    expect(md).toMatch(/^### Cost per item/);
    expect(md).toContain('| zset | 2.35 | 2.50 | 1.50 | 210 | 231 | 399 | 30,000 | 4.45 |');
    expect(md).toMatch(/upper bound of Redis's own/);
  });
  it('shows dashes for a step run before rqbench measured cost, and nothing at all when no step has either', () => {
    const old = {
      step: step({ row: 'r6g', itemsPerSec: 200_000, figures: [['master CPU', '44.5']] }),
      r: { complete: true, producer: {} },
    };
    expect(costTable(spec, [/** @type {any} */ (old)]).join('\n')).toContain('| zset | - | - | - | - | - | - | - | 4.45 |');
    expect(costTable(spec, [/** @type {any} */ ({ step: step(undefined), r: { complete: true, producer: {} } })])).toEqual([]);
  });
});
