/**
 * `rqbench ops`'s run directory (seeds 003 and 004): single calls timed one at a time, their tables
 * in summary.md (ops-table.js). The reports do not read it back: it has no per-second timeline to
 * merge or chart.
 */

/** @type {import('../run-kind.js').UnreadableKind} */
export const opsRun = {
  name: 'ops',
  words: 'ops',
  readable: false,
  why: 'an ops run (single calls timed one at a time: no per-second timeline to merge or chart)',
};
