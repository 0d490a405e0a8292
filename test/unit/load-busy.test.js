// Who was busy in a load grid (seed 001): the best cell's own Redis CPU per record, at its rate, is
// the share of a core Redis used in it; a single-threaded server uses one core at most, so no share
// past 100% is printed (issue 37: "reached 145% of that … was saturated"). Without the cell's own
// figure, the step's average bounds one core, and a best cell past it says nothing. And what the
// load window and the CPU cover, for the steps' sources and sinks.
import { describe, expect, it } from 'vitest';
import { busyWords, readyWords, windowAndCpuWords } from '../../src/experiments/kinds/load-results.js';

const m = { redis_cpu_us_per_record: 2.27, best_records_per_sec: 575_743 };

describe("the sink in the best cell, from the cell's own cost", () => {
  it('94% of a core: saturated there, said from the cell, not from the step average', () => {
    const w = busyWords(m, { recordsPerSec: 575_743, redisCpuUsPerRecord: 1.64 });
    expect(w).toContain('In the best cell, 575,743 records/s, it spent 1.64 µs per record');
    expect(w).toMatch(/about 94% of a core at that rate, so \*\*the sink, Redis, was saturated\*\* in that cell$/);
    expect(w).not.toContain('cannot tell');
  });

  it('past one core: "all of a core", never a % above 100', () => {
    const w = busyWords(m, { recordsPerSec: 700_000, redisCpuUsPerRecord: 1.64 });
    expect(w).toContain('all of a core at that rate');
    expect(w).not.toMatch(/1\d\d%/);
  });

  it('well below: not saturated', () => {
    expect(busyWords(m, { recordsPerSec: 100_000, redisCpuUsPerRecord: 1.64 })).toMatch(
      /about 16% of a core at that rate, so Redis was not saturated in that cell/,
    );
  });
});

describe("without the cell's own cost: the step average as a bound", () => {
  const old = { redis_cpu_us_per_record: 4.04, best_records_per_sec: 359_000 };
  it('past the bound: nothing is said of saturation', () => {
    const w = busyWords(old, { recordsPerSec: 359_000 });
    expect(w).toMatch(/The best cell stored 359,000 records\/s, more than that: the step's average overstates/);
    expect(w).not.toMatch(/saturated\*\*|\d{3}%/);
  });

  it('near the bound: saturated; well below: not', () => {
    expect(busyWords({ ...old, best_records_per_sec: 200_000 }, { recordsPerSec: 200_000 })).toMatch(
      /81% of that: \*\*the sink, Redis, was saturated\*\*/,
    );
    expect(busyWords({ ...old, best_records_per_sec: 50_000 }, { recordsPerSec: 50_000 })).toMatch(/20% of that: Redis was not saturated/);
  });
});

describe("what a step's load window and CPU cover", () => {
  const s3Memory = { from: 's3', flags: { sink: 'memory' } };
  it('from S3 into memory: no file, no Redis, no flush', () => {
    expect(readyWords(s3Memory)).toBe(
      'its S3 client made: it opens no file, and its keep-alive sockets to S3 open on its first GETs, inside the window',
    );
    const w = windowAndCpuWords([s3Memory], /** @type {any} */ ({ local: {} }), 2);
    expect(w).not.toMatch(/file open|connections made|flushes|read-back|Redis/);
    expect(w).toContain(
      "CPU is % of one core over the whole step (every cell), measured around it from /proc: the load process's (every reader thread); this machine has 2 cores.",
    );
  });

  it('a file into noop and into Redis: each kind of step its own ready, Redis measured when the runner started it', () => {
    const steps = [{ flags: { sink: 'noop' } }, { flags: {} }];
    const w = windowAndCpuWords(steps, /** @type {any} */ ({ local: {} }), 2);
    expect(w).toContain(
      'every reader thread ready (from a file into the noop sink, its file open; from a file into Redis, its file open and its Redis connections made)',
    );
    expect(w).toContain(
      "with the flushes and read-back checks between them), measured around it from /proc: the local Redis's (every thread of it) and the load process's",
    );
    expect(windowAndCpuWords([{ flags: {} }], /** @type {any} */ ({ url: 'redis://h:6379' }), 2)).not.toContain('the local Redis');
  });
});
