/**
 * Latency by percentile on HdrHistogram's percentile axis: x = 1/(1-percentile) on a log
 * scale (labelled 0%, 90%, 99%, 99.9%, …), y = latency in ms; one line per run and curve: a
 * Redis run's or a queue publisher's main .hlog (batch, cycle or publish, from the intended
 * start), a queue consumer's three seed metrics (reading off the queue, server-side processing,
 * E2E), so runs can be laid over each other.
 */
import { eachHlogInterval } from '../../record/hlog.js';
import { newHistogram } from '../../measure/histogram.js';
import { frameSpec, latencyY } from './vega-spec.js';

/** @typedef {import('./sequence.js').Sequence} Sequence */
/** @typedef {import('hdr-histogram-js').Histogram} Histogram */

/** Points per decade of 1/(1-percentile): 90, 92.1, 93.7, … 99, 99.2, … */
const PER_DECADE = 10;
/**
 * One curve's histogram over the summary's window [fromSecond, toSecond): the warm-up, a
 * second cut short by Ctrl-C and the drain after the planned end are left out, as the summary
 * and the reports leave them out.
 * @param {import('./run-data.js').RunData} run
 * @param {import('./run-data.js').Curve} curve
 * @returns {Histogram|null} values in µs; null without values in the window
 */
export function curveHistogram(run, curve) {
  const { fromSecond, toSecond } = run.window;
  const h = newHistogram();
  // one interval at a time: an hour's log decoded at once would take gigabytes
  eachHlogInterval(curve.hlog, (i) => {
    if (i.tag === curve.tag && i.startSec >= fromSecond && i.startSec < toSecond) h.add(i.histogram);
  });
  return h.totalCount > 0 ? h : null;
}

/**
 * Points as HdrHistogram's plotter draws them, up to the resolution the count allows
 * (1/(1-p) < count), then the maximum at x = count.
 * @param {Histogram} h values in µs
 * @returns {Array<{ x: number, percentile: number, value: number }>} value: latency in ms
 */
export function percentilePoints(h) {
  const out = [];
  const count = h.totalCount;
  for (let k = 0; 10 ** (k / PER_DECADE) < count; k++) {
    const x = 10 ** (k / PER_DECADE);
    const percentile = 100 * (1 - 1 / x);
    out.push({ x, percentile, value: h.getValueAtPercentile(percentile) / 1000 });
  }
  out.push({ x: count, percentile: 100 * (1 - 1 / count), value: /** @type {any} */ (h).highestEquivalentValue(h.maxValue) / 1000 });
  return out;
}

/**
 * @param {Sequence} seq
 * @param {import('./vega-spec.js').Frame} frame
 * @returns {Record<string, any>|null} Vega-Lite spec; null when no run has a histogram
 */
export function distributionSpec(seq, frame) {
  const values = [];
  /** @type {Array<{ name: string, step: number, curve: string, dash: number[] }>} */
  const series = [];
  for (const [i, step] of seq.steps.entries()) {
    for (const curve of step.run.curves) {
      const h = curveHistogram(step.run, curve);
      if (!h) continue;
      const name = `${step.label} (${curve.label}, n=${h.totalCount})`;
      series.push({ name, step: i, curve: curve.label, dash: curve.dash });
      for (const p of percentilePoints(h)) values.push({ ...p, series: name });
    }
  }
  if (values.length === 0) return null;
  const { color, strokeDash } = lineStyles(series);
  // At least to 99%, and no further than the data reach.
  const maxX = Math.max(100, ...values.map((v) => v.x));
  const { log, y } = latencyY(values, seq);
  const ticks = Array.from({ length: Math.floor(Math.log10(maxX) + 1e-9) + 1 }, (_, i) => 10 ** i);
  return frameSpec(frame, [
    {
      data: { values: log ? values.filter((v) => v.value > 0) : values },
      mark: { type: 'line', strokeWidth: 1.8, point: values.length <= 80 ? { size: 14 } : false },
      encoding: {
        x: {
          field: 'x',
          type: 'quantitative',
          title: 'percentile (axis: 1/(1-p), log scale)',
          scale: { type: 'log', domain: [1, maxX], nice: false },
          // 1/(1-p) = 10^k is the percentile with k nines: 90%, 99%, 99.9% …
          axis: { values: ticks, labelExpr: "datum.value <= 1 ? '0%' : format(100 - 100 / datum.value, '.12~g') + '%'", grid: true },
        },
        y,
        // Under the plot: run names are long, and the plot keeps its width.
        color: {
          field: 'series',
          type: 'nominal',
          title: null,
          scale: { domain: series.map((s) => s.name), range: color },
          legend: {
            symbolType: 'stroke',
            orient: 'bottom',
            columns: series.length > 2 ? 2 : 1,
            labelLimit: Math.floor(frame.width / 2) - 40,
          },
        },
        // on the same field as the colour: one legend, each entry drawn as its line is
        strokeDash: { field: 'series', type: 'nominal', scale: { domain: series.map((s) => s.name), range: strokeDash } },
      },
    },
  ]);
}

/** Vega's tableau10, the other charts' colours. */
const TABLEAU10 = ['#4c78a8', '#f58518', '#e45756', '#72b7b2', '#54a24b', '#eeca3b', '#b279a2', '#ff9da6', '#9d755d', '#bab0ac'];
const SOLID = [1, 0];

/**
 * Each line's colour and dash. Several steps with several curves each (queue consumers: the three
 * seed metrics per step) take a colour per step and the curve's own dash (E2E solid), so a step's
 * lines read together; otherwise every line has a colour of its own and is solid.
 * @param {Array<{ name: string, step: number, curve: string, dash: number[] }>} series
 * @returns {{ color: string[], strokeDash: number[][] }} in the order of series
 */
export function lineStyles(series) {
  const steps = [...new Set(series.map((s) => s.step))];
  const byStep = steps.length > 1 && new Set(series.map((s) => s.curve)).size > 1;
  return {
    color: series.map((s, i) => TABLEAU10[(byStep ? steps.indexOf(s.step) : i) % TABLEAU10.length]),
    strokeDash: series.map((s) => (byStep ? s.dash : SOLID)),
  };
}
