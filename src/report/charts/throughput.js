/**
 * Achieved vs target throughput per second, as each step's kind gives its points (runs/<kind>/):
 * a producer's acknowledged items against the items its schedule intended (and failed items, if
 * any); a consumer's cycles against the cycles its readers were asked for; a queue publisher's
 * acknowledged messages against its schedule's (and failed or unanswered ones, if any); a queue
 * consumer's messages applied (it has no target of its own). The series' names and colours are here.
 */
import { readKind } from '../../runs/kinds.js';
import { points } from './sequence.js';
import { frameSpec, headroom, lineLayer, markerLayers } from './vega-spec.js';

/** @typedef {import('./sequence.js').Sequence} Sequence */

const SERIES = {
  acked: { name: 'acked items/s', colour: '#1f77b4', dash: [1, 0] },
  intended: { name: 'intended items/s (target)', colour: '#555555', dash: [5, 3] },
  failed: { name: 'failed items/s', colour: '#d62728', dash: [1, 0] },
  cycles: { name: 'cycles/s', colour: '#2ca02c', dash: [1, 0] },
  target: { name: 'target cycles/s', colour: '#555555', dash: [2, 2] },
  published: { name: 'acked messages/s', colour: '#1f77b4', dash: [1, 0] },
  scheduled: { name: 'intended messages/s (target)', colour: '#555555', dash: [5, 3] },
  lost: { name: 'failed or unanswered messages/s', colour: '#d62728', dash: [1, 0] },
  applied: { name: 'messages applied/s', colour: '#2ca02c', dash: [1, 0] },
};

/**
 * A second's points: the series the step's kind gives for its row (runs/<kind>/), by name.
 * @param {import('./sequence.js').Step} step
 * @param {Record<string, number|string|null>} row
 */
function pick(step, row) {
  return readKind(step.run.kind)
    .chart.throughput(row, step.run)
    .map((p) => ({ series: SERIES[p.series].name, value: p.value }));
}

/**
 * @param {Sequence} seq
 * @param {import('./vega-spec.js').Frame} frame
 * @returns {Record<string, any>|null} Vega-Lite spec; null when there is nothing to draw
 */
export function throughputSpec(seq, frame) {
  const values = points(seq, pick);
  if (values.length === 0) return null;
  const present = Object.values(SERIES).filter((s) => values.some((v) => v.series === s.name));
  const unit = [...new Set(seq.steps.map((s) => readKind(s.run.kind).chart.unit))].join(', ');
  return frameSpec(frame, [
    lineLayer(
      {
        y: { field: 'value', type: 'quantitative', title: `throughput (${unit})`, scale: headroom(values, seq) },
        color: {
          field: 'series',
          type: 'nominal',
          title: 'per second',
          scale: { domain: present.map((s) => s.name), range: present.map((s) => s.colour) },
          legend: { symbolType: 'stroke' },
        },
        strokeDash: { field: 'series', type: 'nominal', scale: { domain: present.map((s) => s.name), range: present.map((s) => s.dash) } },
      },
      seq,
      values,
    ),
    ...markerLayers(seq, frame),
  ]);
}
