/**
 * What a kind of run directory declares: one module per kind (runs/<kind>/<kind>-run.js), listed
 * in kinds.js. The harness writes the kind's name into manifest.json, the workload summarises its
 * run with the kind's summarize and summaryMd, and the reports (report/) read, check, merge,
 * compare and draw a directory only through what its kind declares here: no report switches on a
 * kind's name.
 */

/**
 * @typedef {Array<[string, (summary: Record<string, any>) => unknown, number]>} Metrics
 *   [label, a summary's value, decimals shown]
 */

/**
 * @typedef {[string, string, string, number[]]} Curve [label, .hlog operation, tag, dash]: a
 *   line of the percentile chart
 */

/**
 * What the charts need to know of a kind (report/charts/).
 * @typedef {object} ChartFacts
 * @property {string} unit the throughput axis's unit
 * @property {(row: Record<string, number|string|null>, run: { targetPerSec: number|null }) => Array<{ series: string, value: number|null }>} throughput
 *   a timeline row's points on the throughput chart, by series (report/charts/throughput.js names and colours them)
 * @property {string} [throughputTitle] when every step is of this kind (default: achieved vs target)
 * @property {Curve[]} [curves] the percentile chart's lines (default: the main operation from the intended start)
 * @property {(hlogOps: Set<string>) => string} [seedMetrics] the seed's metrics drawn per second in
 *   panels of their own (the queue consumer's), in words, given the .hlog files the runs have
 * @property {string} [byPublisher] the .hlog file of the main operation kept apart per publisher
 * @property {(manifest: Record<string, any>) => number|null} [targetPerSec] a target of its own per second
 */

/**
 * How a run killed before its end (no summary.json) is still read: its summary made from its files.
 * @typedef {object} StoppedReading
 * @property {(p: { dir: string, manifest: Record<string, any>, rows: import('./common/merging.js').MergedSecond[], totals: Map<string, import('hdr-histogram-js').Histogram>, fromSecond: number, toSecond: number, idRange: (q: number, t: number, a: number) => { count: number } }) => Record<string, any>} summarize
 *   idRange: the producer's split of ids over its writers (harness/schedule.js, which runs/ stands below)
 * @property {(stopped: import('./common/merging.js').Stopped) => string} words the stopped run, for the outcome and the merged summary
 */

/**
 * A kind the reports read back.
 * @typedef {object} ReadableKind
 * @property {string} name manifest.json's `kind`
 * @property {string} words in messages: 'Redis producer'
 * @property {true} readable
 * @property {string} mainOp the whole unit of work whose latency a spectrum, a comparison or a chart shows by default
 * @property {{ key: string, header: string, of: (run: import('./common/merging.js').RunDir) => unknown }} workers
 *   who ran in a directory: the manifest's list (or the summary's figure), and its column in a merged report
 * @property {string|null} startAt the flag that gives the runs of one run a shared start, null where they have none
 * @property {boolean} serverCpu its runs sample the Redis nodes' CPU
 * @property {boolean} [compareDefault] the kind compared when a directory of trials holds several
 * @property {import('./common/run-fields.js').Fields} manifestFields what the reports read of its manifest.json, beyond every run's
 * @property {import('./common/run-fields.js').Fields} summaryFields what the reports read of its summary.json
 * @property {(summary: unknown, file: string) => void} checkSummary refuses a summary.json of another shape, in one line
 * @property {(summary: Record<string, any>) => Record<string, Record<string, number>>} recorded
 *   values the summary counted per .hlog operation and tag, after the warm-up
 * @property {import('./common/timeline-rows.js').TimelineRows} rows its timeline's columns
 * @property {Function} summarize a run's summary.json, as its workload writes it
 * @property {(run: { name: string, description: string, interrupted: any }, summary: Record<string, any>) => string} summaryMd
 *   summary.md: a run's own, or runs merged (one run reads like its own)
 * @property {(m: import('./common/merging.js').MergedRuns) => Record<string, any>} merge
 *   the summary of runs merged, in the shape of each run's own
 * @property {Metrics} compare the figures `rqbench compare` shows, before the load generator's CPU and the latency
 * @property {ChartFacts} chart
 * @property {Array<[string, string, string[]]>} panels the HTML report's timeline panels: [title, y axis, columns]
 * @property {StoppedReading|null} stopped how a run of it killed before its end is read, null: it is not
 * @property {(runs: import('./common/merging.js').RunDir[], sharedT0: boolean) => string[]} [mergeNotes] more notes on runs merged
 */

/**
 * A kind rqbench writes that the reports do not read back.
 * @typedef {object} UnreadableKind
 * @property {string} name
 * @property {string} words
 * @property {false} readable
 * @property {string} why e.g. 'a load run (one whole-file load per grid cell: no per-second timeline to merge or chart)'
 */

/** @typedef {ReadableKind|UnreadableKind} RunKind */

export {};
