/**
 * What a kind's merge is handed (report/merge-runs.js builds it): the run directories of one run
 * read back, their seconds added up, and the histograms over any window on demand. The shapes live
 * here, with the kinds that read them, so that runs/ needs nothing from report/; and the two small
 * rules every kind's merge uses to put its runs' summaries together.
 */

/**
 * A run directory read back and checked (report/read/run-dirs.js).
 * @typedef {object} RunDir
 * @property {string} dir as given
 * @property {string} kind manifest.json's kind (runs/kinds.js)
 * @property {Record<string, any>} manifest
 * @property {Record<string, any>} summary
 * @property {{ fromSecond: number, toSecond: number }} window the seconds [fromSecond, toSecond)
 *   the summary's figures cover, whatever the kind writes in summary.json
 * @property {Record<string, Record<string, number>>} recorded values the summary counted per
 *   .hlog operation and tag, after the warm-up
 * @property {import('../../record/timeline.js').TimelineFile} timeline
 * @property {Map<string, string>} hlogs operation → its .hlog file
 * @property {Stopped} [stopped] read by `report` from a run killed before its end, or whose summary could not be
 *   saved (report/read/stopped-run.js)
 */

/**
 * Where and when a run stopped.
 * @typedef {object} Stopped
 * @property {number} second the second it stopped in: the first one its timeline does not have
 * @property {number} lastSecond its last whole second (timeline.csv's last row)
 * @property {string|null} host manifest.json's host name
 * @property {number[]} [writers] a producer's: its writer numbers (-a)
 * @property {number[]} [readers] a consumer's: its reader numbers
 * @property {string} [unsaved] it ran to its end, but its summary could not be saved: the failure
 */

/**
 * @typedef {import('../../record/run-recorder.js').SecondRow & { time: string|null, events: string }} MergedSecond
 *   events: the actions seen that second, '; '-separated
 */

/**
 * @typedef {object} MergedRuns
 * @property {string} kind
 * @property {RunDir[]} runs
 * @property {number} warmupS start of the window: seconds before it are left out of the totals
 *   (the longest warm-up of the runs)
 * @property {number} durationS end of the window, the first second after it (the longest run's);
 *   rows and histograms alike cover [warmupS, durationS)
 * @property {MergedSecond[]} rows one per second any run measured, in order
 * @property {Array<{ addr: string, role: string, shard: number }>} nodes every node any run sampled
 * @property {import('../../record/timeline.js').NodeColumnOf[]} nodeColumns every node column any run has
 *   (process and main thread), in the order the runs' files have them
 * @property {boolean} sharedT0 every run started its schedule at the same instant
 * @property {string[]} notes what the reader of a merged report should know
 * @property {(window: { fromSec: number, toSec: number, ops?: string[] }) => Map<string, import('hdr-histogram-js').Histogram>} histograms
 *   the runs' histograms added up over [fromSec, toSec), by name as summaries name them
 * @property {(names: string[]) => (index: number) => Map<string, import('hdr-histogram-js').Histogram>} perSecond
 *   some histograms second by second, across runs
 */

/**
 * The value every run has, or all of them listed.
 * @param {unknown[]} values
 */
export function oneOf(values) {
  const distinct = [...new Set(values.map((v) => v ?? null))];
  return distinct.length === 1 ? distinct[0] : distinct.join(', ');
}

/**
 * Numeric fields added key by key (the runs' counts, read from their summaries).
 * @param {Array<Record<string, unknown>|undefined>} records
 */
export function sumRecords(records) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const r of records) for (const [k, v] of Object.entries(r ?? {})) if (typeof v === 'number') out[k] = (out[k] || 0) + v;
  return out;
}

/**
 * A merged run's name: one run's own, or the run id the directories share.
 * @param {MergedRuns} m
 */
export function mergedName(m) {
  if (m.runs.length === 1) return m.runs[0].summary.name;
  const id = m.runs[0].manifest.runId;
  return id ? `run ${id} (${m.runs.length} directories merged)` : `${m.runs.length} runs merged`;
}
