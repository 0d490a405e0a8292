/**
 * Latency percentiles per second from the timeline: p50 and p99 of each second's batches
 * (producer) or cycles (consumer), measured from their intended start.
 */
import { cellValue as num } from '../../runs/common/timeline-rows.js';
import { points } from './sequence.js';
import { frameSpec, latencyY, lineLayer, markerLayers } from './vega-spec.js';

/** @typedef {import('./sequence.js').Sequence} Sequence */

/**
 * @param {Sequence} seq
 * @param {import('./vega-spec.js').Frame} frame
 * @returns {Record<string, any>|null} Vega-Lite spec; null when no second had a latency
 */
export function latencySpec(seq, frame) {
  const values = points(seq, (step, row) =>
    ['p50', 'p99'].map((p) => ({
      series: `${step.run.op} ${p}`,
      percentile: p,
      value: num(row[`${step.run.op}_${p}_ms`]),
    })),
  );
  if (values.length === 0) return null;
  const { log, y } = latencyY(values, seq);
  const series = [...new Set(values.map((v) => v.series))].sort();
  return frameSpec(frame, [
    lineLayer(
      {
        y,
        color: {
          field: 'series',
          type: 'nominal',
          title: 'per second',
          scale: { domain: series, scheme: 'tableau10' },
          legend: { symbolType: 'stroke' },
        },
        strokeDash: {
          field: 'percentile',
          type: 'nominal',
          scale: {
            domain: ['p50', 'p99'],
            range: [
              [1, 0],
              [5, 3],
            ],
          },
          legend: null,
        },
      },
      seq,
      values.filter((v) => !log || v.value > 0),
    ),
    ...markerLayers(seq, frame),
  ]);
}
