/**
 * A queue consumer's three seed metrics second by second, one panel each on one time axis (small
 * multiples: each its own y scale, their seconds one above the other): reading off the queue (one
 * receive that returned messages; SQS only: Pub/Sub's streaming pull has no receive to time, so
 * its runs have no such panel), server-side processing (messages in hand → updates applied) and
 * E2E (from the intended send to the updates applied). Each second's p50 and p99, and its p99.9
 * when it held at least P999_MIN values (with fewer, p99.9 is the second's maximum: not drawn).
 * Read from each run's .hlog files, one interval per second, as the timeline's E2E columns are
 * computed: the E2E panel's p50 and p99 are the timeline's e2e_p50_ms and e2e_p99_ms.
 */
import { readKind } from '../../runs/kinds.js';
import { secondStats } from './second-stats.js';
import { latencyY, lineLayer, markerLayers, panelsSpec, timeX } from './vega-spec.js';

/** @typedef {import('./sequence.js').Sequence} Sequence */

/** A second's p99.9 is drawn from this many values on; below, it is the second's maximum. */
export const P999_MIN = 1000;

/** What each panel says it measures, by operation. */
const WHAT = {
  read: 'one receive that returned messages',
  processing: 'messages in hand → updates applied',
  e2e: 'intended send → updates applied',
};

const PERCENTILES = ['p50', 'p99', 'p99.9'];
const COLORS = ['#4c78a8', '#f58518', '#b2182b'];
const DASHES = [
  [1, 0],
  [6, 3],
  [2, 2],
];

/**
 * One point per second and percentile of one metric, over the queue consumer steps.
 * @param {Sequence} seq
 * @param {string} op the .hlog file's operation
 * @param {string} tag
 * @returns {Array<{ x: number, step: string, second: number, count: number, percentile: string, value: number }>}
 */
export function metricSeconds(seq, op, tag) {
  const out = [];
  for (const step of seq.steps) {
    const file = readKind(step.run.kind).chart.seedMetrics ? step.run.hlogs.get(op) : undefined;
    if (!file) continue;
    for (const s of secondStats(file, (t) => t === tag)) {
      const at = { x: step.start + s.second, step: step.label, second: s.second, count: s.count };
      out.push({ ...at, percentile: 'p50', value: s.p50 }, { ...at, percentile: 'p99', value: s.p99 });
      if (s.count >= P999_MIN) out.push({ ...at, percentile: 'p99.9', value: s.p999 });
    }
  }
  return out;
}

/**
 * @param {Sequence} seq
 * @param {import('./vega-spec.js').Frame} frame height: of one ordinary chart; the image is taller
 *   with three panels (frame.height x panels / 2)
 * @returns {Record<string, any>|null} Vega-Lite spec; null when no step is a queue consumer with latencies
 */
export function queueLatencySpec(seq, frame) {
  // the seed's metrics of the kinds that draw them per second (the queue consumer's curves)
  const curves = seq.steps.map((s) => readKind(s.run.kind).chart).find((c) => c.seedMetrics)?.curves ?? [];
  const metrics = curves.map(([label, op, tag]) => ({ label, op, values: metricSeconds(seq, op, tag) })).filter((m) => m.values.length > 0);
  if (metrics.length === 0) return null;
  const shown = PERCENTILES.filter((p) => metrics.some((m) => m.values.some((v) => v.percentile === p)));
  const color = {
    field: 'percentile',
    type: 'nominal',
    title: 'per second',
    scale: { domain: shown, range: shown.map((p) => COLORS[PERCENTILES.indexOf(p)]) },
    legend: { symbolType: 'stroke', labelExpr: `datum.label === 'p99.9' ? 'p99.9 (seconds of ≥ ${P999_MIN} values)' : datum.label` },
  };
  const strokeDash = {
    field: 'percentile',
    type: 'nominal',
    title: 'per second',
    scale: { domain: shown, range: shown.map((p) => DASHES[PERCENTILES.indexOf(p)]) },
  };
  const height = Math.max(frame.height, Math.round((frame.height * metrics.length) / 2));
  const panels = metrics.map((m, i) => {
    const last = i === metrics.length - 1;
    const { log, y } = latencyY(m.values, seq);
    const x = last ? timeX(seq) : { ...timeX(seq), axis: { tickMinStep: 1, labels: false, title: null } };
    return {
      title: `${m.label} (${WHAT[m.op]})`,
      layer: [
        lineLayer(
          { x, y: { ...y, title: log ? 'ms (log)' : 'ms' }, color, strokeDash },
          seq,
          log ? m.values.filter((v) => v.value > 0) : m.values,
        ),
        // step labels and event labels once, across the top panel
        ...markerLayers(seq, frame, { labels: i === 0 }),
      ],
    };
  });
  return panelsSpec({ ...frame, height }, panels);
}
