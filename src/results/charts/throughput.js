/**
 * Achieved vs target throughput per second: a producer's acknowledged items against the
 * items its schedule intended (and failed items, if any); a consumer's cycles against the
 * cycles its readers were asked for; a queue publisher's acknowledged messages against its
 * schedule's (and failed or unanswered ones, if any); a queue consumer's messages applied (it
 * has no target of its own: it takes what the publishers send).
 */
import { num } from './run-data.js';
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

/** The y axis's unit for each kind of run. */
const UNIT = { produce: 'items/s', consume: 'cycles/s', 'queue-publish': 'messages/s', 'queue-consume': 'messages/s' };

/**
 * @param {import('./sequence.js').Step} step
 * @param {Record<string, number|string|null>} row
 */
function pick(step, row) {
  if (step.run.kind === 'queue-consume') return [{ series: SERIES.applied.name, value: num(row.messages) }];
  if (step.run.kind === 'queue-publish') {
    const lost = (num(row.failed) ?? 0) + (num(row.unanswered) ?? 0);
    return [
      { series: SERIES.published.name, value: num(row.acked) },
      { series: SERIES.scheduled.name, value: num(row.intended) },
      ...(lost ? [{ series: SERIES.lost.name, value: lost }] : []),
    ];
  }
  if (step.run.kind === 'consume') {
    return [
      { series: SERIES.cycles.name, value: num(row.cycles) },
      { series: SERIES.target.name, value: step.run.targetPerSec },
    ];
  }
  const failed = num(row.failed);
  return [
    { series: SERIES.acked.name, value: num(row.acked) },
    { series: SERIES.intended.name, value: num(row.intended) },
    ...(failed ? [{ series: SERIES.failed.name, value: failed }] : []),
  ];
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
  const unit = [...new Set(seq.steps.map((s) => UNIT[s.run.kind]))].join(', ');
  return frameSpec(frame, [
    lineLayer({
      y: { field: 'value', type: 'quantitative', title: `throughput (${unit})`, scale: headroom(values, seq) },
      color: {
        field: 'series', type: 'nominal', title: 'per second',
        scale: { domain: present.map((s) => s.name), range: present.map((s) => s.colour) },
        legend: { symbolType: 'stroke' },
      },
      strokeDash: { field: 'series', type: 'nominal', scale: { domain: present.map((s) => s.name), range: present.map((s) => s.dash) } },
    }, seq, values),
    ...markerLayers(seq, frame),
  ]);
}
