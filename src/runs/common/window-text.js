/**
 * What a queue run's summary is made from (queue-run.js hands it over), and the sentence the
 * summary opens its figures with: which seconds they cover, and why they end.
 */

/**
 * @typedef {object} QueueRunInfo what a summary is made from
 * @property {string} dir
 * @property {import('../../record/run-recorder.js').RunRecorder} recorder its totals cover the window
 * @property {{ fromS: number, toS: number, seconds: number }} window
 * @property {Record<string, number>} inWindow the counters summed over the window's seconds
 * @property {number} durationS the whole run, drain included
 * @property {'SIGINT'|'SIGTERM'|false} interrupted
 * @property {string|null} stoppedBy 'SIGINT', 'SIGTERM', 'unreachable', 'write' or null (it ended by itself)
 * @property {Record<string, any>} manifest
 */

const STOPPED = {
  SIGINT: 'interrupted (SIGINT)',
  SIGTERM: 'interrupted (SIGTERM)',
  unreachable: 'stopped: the service did not answer',
  write: 'stopped: the run directory could not be written',
};

/**
 * The sentence that says which seconds a summary's figures cover.
 * @param {{ fromS: number, toS: number, seconds: number }} w
 * @param {number} durationS the whole run
 * @param {string|null} stoppedBy
 */
export function windowText(w, durationS, stoppedBy) {
  const to = Number.isInteger(w.toS) ? String(w.toS) : w.toS.toFixed(1);
  const how = stoppedBy
    ? ` The run was ${STOPPED[stoppedBy] ?? stoppedBy} in its second ${to}; that second and the rest are left out.`
    : '';
  const after =
    durationS - w.toS > 0.05
      ? ` It took ${durationS.toFixed(1)} s in all: what came after (the drain of what was in flight) is in timeline.csv and the .hlog files, not in these figures.`
      : '';
  return `Rates, latency and counts cover seconds ${w.fromS} to ${to} of the run (${w.seconds.toFixed(1)} s${w.fromS ? ', after the warm-up' : ''}).${how}${after}`;
}
