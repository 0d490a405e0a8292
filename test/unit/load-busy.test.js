// Who was busy in a load grid (seed 001): the CPU Redis spent per record over the step bounds what
// one core stores; a best cell past that bound cannot be called saturation by a single-threaded
// server (issue 37: "reached 145% of that … was saturated").
import { describe, expect, it } from 'vitest';
import { busyWords } from '../../src/experiments/kinds/load-results.js';

const m = { redis_cpu_us_per_record: 4.04, best_records_per_sec: 359_000 };
const bound = 1e6 / 4.04;

describe('the sink against its bound', () => {
  it('past the bound: the step average overstates a record, and nothing is said of saturation', () => {
    const w = busyWords(m, bound, m.best_records_per_sec / bound);
    expect(w).toMatch(/The best cell stored 359,000 records\/s, more than that: the step's average overstates/);
    expect(w).not.toMatch(/saturated\*\*|\d{3}%/);
  });

  it('near the bound: saturated; well below: not', () => {
    expect(busyWords({ ...m, best_records_per_sec: 200_000 }, bound, 200_000 / bound)).toMatch(
      /81% of that: \*\*the sink, Redis, was saturated\*\*/,
    );
    expect(busyWords({ ...m, best_records_per_sec: 50_000 }, bound, 50_000 / bound)).toMatch(/20% of that: Redis was not saturated/);
  });
});
