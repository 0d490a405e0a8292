/**
 * A queue consumer's E2E (from the intended send to the updates applied) split by publisher: p50
 * and p99 of every second, one colour per publisher, from the run's e2e_publisher.hlog (one tag
 * per publisher id, queue-metrics.js). Drawn only when a run had more than one publisher: with
 * one, it is the latency chart's E2E again.
 */
import { readKind } from '../../runs/kinds.js';
import { secondStats } from './second-stats.js';
import { frameSpec, latencyY, lineLayer, markerLayers } from './vega-spec.js';

/** @typedef {import('./sequence.js').Sequence} Sequence */

/**
 * One point per second, publisher and percentile, over the queue consumer steps.
 * @param {Sequence} seq
 * @returns {{ values: Array<{ x: number, step: string, second: number, count: number, publisher: string, percentile: string, value: number }>, most: number }}
 *   most: the most publishers one step had
 */
export function publisherSeconds(seq) {
  const values = [];
  let most = 0;
  for (const step of seq.steps) {
    const kept = readKind(step.run.kind).chart.byPublisher;
    const file = kept ? step.run.hlogs.get(kept) : undefined;
    if (!file) continue;
    const publishers = new Set();
    for (const s of secondStats(file, (t) => t !== null)) {
      const publisher = /** @type {string} */ (s.tag);
      publishers.add(publisher);
      const at = { x: step.start + s.second, step: step.label, second: s.second, count: s.count, publisher };
      values.push({ ...at, percentile: 'p50', value: s.p50 }, { ...at, percentile: 'p99', value: s.p99 });
    }
    most = Math.max(most, publishers.size);
  }
  return { values, most };
}

/**
 * @param {Sequence} seq
 * @param {import('./vega-spec.js').Frame} frame
 * @returns {Record<string, any>|null} Vega-Lite spec; null unless a step had several publishers
 */
export function byPublisherSpec(seq, frame) {
  const { values, most } = publisherSeconds(seq);
  if (most < 2) return null;
  const { log, y } = latencyY(values, seq);
  // step by step, each step's in name order
  const publishers = [
    ...new Set(seq.steps.flatMap((s) => [...new Set(values.filter((v) => v.step === s.label).map((v) => v.publisher))].sort())),
  ];
  return frameSpec(frame, [
    lineLayer(
      {
        y,
        color: {
          field: 'publisher',
          type: 'nominal',
          title: 'publisher',
          scale: { domain: publishers, scheme: publishers.length > 10 ? 'category20' : 'tableau10' },
          legend: { symbolType: 'stroke' },
        },
        strokeDash: {
          field: 'percentile',
          type: 'nominal',
          title: 'per second',
          scale: {
            domain: ['p50', 'p99'],
            range: [
              [1, 0],
              [6, 3],
            ],
          },
          legend: { symbolType: 'stroke', encode: { symbols: { update: { stroke: { value: '#444' }, fill: { value: 'transparent' } } } } },
        },
      },
      seq,
      log ? values.filter((v) => v.value > 0) : values,
    ),
    ...markerLayers(seq, frame),
  ]);
}
