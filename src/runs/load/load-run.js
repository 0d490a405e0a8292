/**
 * `rqbench load`'s run directory (seed 001): one whole-file load per grid cell, its table in
 * summary.md (load-table.js). The reports do not read it back: it has no per-second timeline to
 * merge or chart.
 */

/** @type {import('../run-kind.js').UnreadableKind} */
export const loadRun = {
  name: 'load',
  words: 'load',
  readable: false,
  why: 'a load run (one whole-file load per grid cell: no per-second timeline to merge or chart)',
};
