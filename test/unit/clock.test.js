// The one-second grid (harness/clock.js): a tick that runs late is caught up by whoever counts
// something first, so a count lands in the second it happened in. Pure timing logic, no server.
import { performance } from 'node:perf_hooks';
import { expect, it } from 'vitest';
import { IntervalClock } from '../../src/harness/clock.js';

it('catchUp ticks every second already over, in order, then the timer takes over from there', async () => {
  const ticks = [];
  const now = performance.now();
  // second 0 began 2.5 s ago: seconds 0 and 1 are over, their timers have not fired
  const clock = new IntervalClock(now - 2500, (i) => ticks.push(i), 1000);
  clock.catchUp(now);
  expect(ticks).toEqual([0, 1]);
  expect(clock.index).toBe(2);
  clock.catchUp(now + 100); // second 2 is not over: nothing
  expect(ticks).toEqual([0, 1]);
  await new Promise((r) => setTimeout(r, 600));
  expect(ticks).toEqual([0, 1, 2]);
  clock.stop();
});

it('a stopped clock does not tick on catchUp', () => {
  const ticks = [];
  const clock = new IntervalClock(performance.now() - 1500, (i) => ticks.push(i), 1000);
  clock.stop();
  clock.catchUp(performance.now());
  expect(ticks).toEqual([]);
});
