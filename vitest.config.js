// Three tiers, named after what their tests need (docs/layout.md, README.md):
// - unit: no server, no child process, no root (test/unit/no-servers.js makes each throw); runs anywhere.
// - integration: real servers and runs of seconds.
// - e2e: whole scenarios (experiments with trials, capacity searches, the docs' examples,
//   Chromium, Prometheus, network namespaces, cgroups).
// They run in three groups, one after another, each with its worker count: the unit tier; then
// integration and e2e together (most of their time is spent waiting on servers, emulators and
// runs of seconds, so they share a pool); then, one file at a time, the tests whose assertions
// are about CPU, which another test's load on these 2 cores would move (SERIAL).
import { defineConfig } from 'vitest/config';

/** Files that assert CPU figures, caps, rates held or start times: they run alone, after everything else. */
const SERIAL = {
  integration: [
    // the I/O threads' share of a Redis process's CPU: another test's load takes the core they poll on
    'test/integration/engine-cpu.test.js',
    // a calm consumer must report no disturbance: a producer slowed by another test's load would stale its reads
    'test/integration/consumer-departures.test.js',
  ],
  e2e: [
    // searches for the highest rate a node holds, and its ratio under a cap
    'test/e2e/capacity.test.js',
    'test/e2e/experiment-capacity.test.js',
    // CPU caps measured against the CPU a capped node used
    'test/e2e/cpu-cap.test.js',
    // a rate placed by the capped engine's share: another test's load would move it
    'test/e2e/experiment-regime.test.js',
    // Redis under Valgrind takes a core for most of a minute: the shared tiers' timing bounds would feel it
    'test/e2e/experiment-counted.test.js',
    // a quiet run must not be marked noisy: nothing else may run beside it
    'test/e2e/noise.test.js',
    // writers on three hosts start within 20 ms of their --start-at: a slow start on a busy machine misses it
    'test/e2e/netns-hosts.test.js',
    // every item of the schedule acknowledged: a writer late on a busy machine drops its last sends
    'test/e2e/prometheus.test.js',
    // an A/A and an A/B of Redis CPU over 19 producer runs at 40k items/s: in the shared pool they
    // took over 150 s, and another test's load is noise in the figures compared
    'test/e2e/compare-groups.test.js',
    // the docs' examples marked quiet: the queue examples (a publisher of 45 messages of 1,000
    // updates a second and its emulator) and two producers sharing a --start-at 5 s ahead
    'test/e2e/docs-examples-quiet.test.js',
  ],
};

/**
 * Workers of the shared integration and e2e pool. On a host where these tests took 700 s, 4 left
 * the 2 cores idle 45% of the time (vmstat), its tests waiting on servers and runs of seconds. On
 * one twice as slow per process, 5 kept both cores busy throughout with 5–10 runnable, and the
 * starved runs missed their own time bounds (21 tests failed in 1,307 s); 3 still kept them busy
 * (6% idle and 8 runnable on average, vmstat every 10 s over a suite run with other tests run
 * beside it) with 1–7 failures a run, each a run missing a bound it holds alone. At 2 every test passed, in
 * 1,634 s against 1,495 s at 3 (one full run each), the cores 35% idle on average over the suite
 * (vmstat): the price of fewer runs starved at once.
 */
const SHARED_WORKERS = 2;

/**
 * @param {'integration'|'e2e'} tier
 */
const tier = (tier) => [
  {
    test: {
      name: tier,
      include: [`test/${tier}/**/*.test.js`],
      exclude: SERIAL[tier],
      maxWorkers: SHARED_WORKERS,
      sequence: { groupOrder: 1 },
    },
  },
  {
    test: {
      name: `${tier}-serial`,
      include: SERIAL[tier],
      maxWorkers: 1,
      // projects of one group order run at the same time: each tier's serial files get a group of
      // their own, or engine-cpu's loaded Redis would run beside a capacity search
      sequence: { groupOrder: tier === 'integration' ? 2 : 3 },
    },
  },
];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.js'],
          setupFiles: ['test/unit/no-servers.js'],
          maxWorkers: 2,
          // one module graph per worker, not per file: loading it again for each of 78 files was
          // 40% of the tier's time (98 s against 58 s); a unit test holds no state between files
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      ...tier('integration'),
      ...tier('e2e'),
    ],
  },
});
