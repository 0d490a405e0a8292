// Three tiers, named after what their tests need (docs/layout.md, README.md). The groups run one
// after another, each with its own worker count:
// - unit: no server, no child process, no root (test/unit/no-servers.js enforces it); runs anywhere.
// - integration: real servers and runs of seconds.
// - e2e: whole scenarios (experiments with trials, capacity searches, the docs' examples,
//   Chromium, Prometheus, network namespaces, cgroups).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.js'],
          setupFiles: ['test/unit/no-servers.js'],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.js'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.js'],
          maxWorkers: 1,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
