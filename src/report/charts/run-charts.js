/**
 * Charts of one run or of a sequence of runs (experiment steps laid end to end):
 *   cpu          Redis CPU per node over time (masters and replicas; main thread and process), steps and cluster actions marked
 *   throughput   achieved vs target per second (producer items, consumer cycles, queue messages)
 *   latency      p50 and p99 per second of the main operation (batch, cycle, publish or E2E)
 *   queue-latency    a queue consumer's seed metrics per second, a panel each: reading off the
 *                    queue (SQS), server-side processing, E2E (p50, p99; p99.9 of busy seconds)
 *   e2e-by-publisher a queue consumer's E2E p50 and p99 per second by publisher, when a run had several
 *   percentiles  latency by percentile on HdrHistogram's 1/(1-p) axis, one line per run (a queue
 *                consumer: one per seed metric)
 * each written as SVG and PNG.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { readRunDir } from './run-data.js';
import { layOut } from './sequence.js';
import { cpuSpec, drawsEngine } from './cpu.js';
import { throughputSpec } from './throughput.js';
import { latencySpec } from './latency.js';
import { queueLatencySpec } from './queue-latency.js';
import { byPublisherSpec } from './by-publisher.js';
import { distributionSpec } from './distribution.js';
import { renderChart, writeCharts } from './render.js';
import { readKind } from '../../runs/kinds.js';

export { readRunDir } from './run-data.js';

/**
 * @typedef {object} ChartOptions
 * @property {string} [title] shown under each chart's own title (default: the run or step names)
 * @property {string[]} [stepLabels] one per run directory (default: each directory's name)
 * @property {number} [width] px of the whole image, default 900
 * @property {number} [height] px, default 360 (queue-latency: half of it per panel, at least this)
 * @property {string} [prefix] put before each file name, e.g. 'step-3-' → step-3-cpu.svg
 */

/**
 * @typedef {object} ChartFile
 * @property {string} name cpu | throughput | latency | queue-latency | e2e-by-publisher | percentiles
 * @property {string} title
 * @property {string} svg path written
 * @property {string} png path written
 * @property {Record<string, any>} spec the Vega-Lite drawn (the HTML report embeds it)
 */

const THROUGHPUT = 'Throughput: achieved vs target';
/** The kind's own throughput title when every step is of it (a queue consumer has no target rate). */
const throughputTitle = (seq) => {
  const titles = new Set(seq.steps.map((s) => readKind(s.run.kind).chart.throughputTitle ?? THROUGHPUT));
  return titles.size === 1 ? [...titles][0] : THROUGHPUT;
};
/** The steps whose kinds draw the seed's metrics per second (a queue consumer: reading off the queue, processing, E2E). */
const seedSteps = (seq) => seq.steps.filter((s) => readKind(s.run.kind).chart.seedMetrics);
/** Those metrics in words, given the files the steps have (reading off the queue only where a receive was timed, not Pub/Sub). */
const seedMetrics = (seq) => {
  const steps = seedSteps(seq);
  return readKind(steps[0].run.kind).chart.seedMetrics(new Set(steps.flatMap((s) => [...s.run.hlogs.keys()])));
};

/** @type {Array<{ name: string, title: (seq: import('./sequence.js').Sequence) => string, spec: Function }>} */
const CHARTS = [
  {
    name: 'cpu',
    title: (seq) => (drawsEngine(seq) ? 'Redis CPU per node: main thread, and whole process (faint)' : 'Redis CPU per node'),
    spec: cpuSpec,
  },
  { name: 'throughput', title: throughputTitle, spec: throughputSpec },
  { name: 'latency', title: () => 'Latency per second: p50 and p99', spec: latencySpec },
  {
    name: 'queue-latency',
    title: (seq) => (seedSteps(seq).length ? `Latency per second: ${seedMetrics(seq)}` : ''),
    spec: queueLatencySpec,
  },
  { name: 'e2e-by-publisher', title: () => 'E2E by publisher: p50 and p99 per second', spec: byPublisherSpec },
  {
    name: 'percentiles',
    title: (seq) =>
      seedSteps(seq).length ? `Latency by percentile: ${seedMetrics(seq)}` : 'Latency by percentile, from the intended start',
    spec: distributionSpec,
  },
];

/**
 * The Vega-Lite of every chart the runs have data for, not drawn (the HTML reports embed them).
 * @param {string[]} runDirs in order: runs are laid end to end on one time axis
 * @param {ChartOptions} [options]
 * @returns {Array<{ name: string, title: string, spec: Record<string, any> }>}
 * @throws {import('../../usage-error.js').UsageError} as drawRunCharts
 */
export function runChartSpecs(runDirs, options = {}) {
  if (runDirs.length === 0) throw new TypeError('runChartSpecs: no run directory given');
  const { width = 900, height = 360 } = options;
  const seq = layOut(runDirs.map(readRunDir), options.stepLabels);
  const subtitle = options.title ?? seq.steps.map((s) => s.label).join(' → ');
  return CHARTS.flatMap((chart) => {
    const title = chart.title(seq);
    const spec = chart.spec(seq, { title, subtitle, width, height });
    return spec ? [{ name: chart.name, title, spec }] : [];
  });
}

/**
 * Draws every chart the runs have data for (a run without CPU samples gets no CPU chart). Every
 * run directory is read and checked, and every chart drawn in memory, before a file is written:
 * bad input leaves --out as it was.
 * @param {string[]} runDirs in order: runs are laid end to end on one time axis
 * @param {string} outDir created if missing; existing charts of the same names are replaced
 * @param {ChartOptions} [options]
 * @returns {Promise<ChartFile[]>}
 * @throws {import('../../usage-error.js').UsageError} when a directory is not a finished
 *   run directory of a kind the reports read (runs/kinds.js), or a file of it is damaged
 */
export async function drawRunCharts(runDirs, outDir, options = {}) {
  const { prefix = '' } = options;
  const drawn = [];
  for (const c of runChartSpecs(runDirs, options))
    drawn.push({ ...c, image: await renderChart(c.spec), base: path.join(outDir, `${prefix}${c.name}`) });
  await fs.mkdir(outDir, { recursive: true });
  const files = await writeCharts(drawn.map((d) => ({ base: d.base, ...d.image })));
  return drawn.map((d, i) => ({ name: d.name, title: d.title, spec: d.spec, ...files[i] }));
}
