/**
 * Redis CPU per node over time, like CloudWatch's per-node CPU charts: one line per node,
 * a shard's master and replicas in one hue (master dark and solid, replicas light and dashed).
 * A node that reports its main thread's CPU (the figure that saturates: CloudWatch's
 * EngineCPUUtilization) has that line, and its whole process's in the same hue, faint.
 */
import { cellValue as num } from '../../runs/common/timeline-rows.js';
import { points } from './sequence.js';
import { frameSpec, headroom, lineLayer, markerLayers } from './vega-spec.js';

/** @typedef {import('./sequence.js').Sequence} Sequence */

// Tableau 20 in (dark, light) pairs: one pair per shard.
const PAIRS = [
  ['#1f77b4', '#aec7e8'],
  ['#ff7f0e', '#ffbb78'],
  ['#2ca02c', '#98df8a'],
  ['#d62728', '#ff9896'],
  ['#9467bd', '#c5b0d5'],
  ['#8c564b', '#c49c94'],
  ['#e377c2', '#f7b6d2'],
  ['#7f7f7f', '#c7c7c7'],
  ['#bcbd22', '#dbdb8d'],
  ['#17becf', '#9edae5'],
];

/**
 * @param {import('./run-data.js').NodeColumn} n
 * @returns {string} the legend's name for a node, e.g. "s1 master 127.0.0.1:7000"
 */
export const nodeLabel = (n) => `s${n.shard} ${n.role} ${n.addr}`;

/** The two figures of a node, in the opacity legend's order, drawn solid and faint. */
const MEASURES = ['main thread', 'process'];

/** Some node of some step reports its main thread: the chart draws both figures. */
export const drawsEngine = (seq) => seq.steps.some((s) => s.run.nodes.some((n) => n.engineColumn));

/**
 * @param {Sequence} seq
 * @param {import('./vega-spec.js').Frame} frame
 * @returns {Record<string, any>|null} Vega-Lite spec; null when no node was sampled
 */
export function cpuSpec(seq, frame) {
  const values = points(seq, (step, row) =>
    step.run.nodes.flatMap((n) => [
      ...(n.engineColumn ? [{ series: nodeLabel(n), role: n.role, measure: MEASURES[0], value: num(row[n.engineColumn]) }] : []),
      { series: nodeLabel(n), role: n.role, measure: MEASURES[1], value: num(row[n.column]) },
    ]),
  );
  if (values.length === 0) return null;
  // the process's lines faint, when there is a main thread's to read; otherwise as they always were
  const opacity = drawsEngine(seq) && {
    opacity: {
      field: 'measure',
      type: 'nominal',
      title: 'CPU of',
      sort: MEASURES,
      scale: { domain: MEASURES, range: [1, 0.3] },
      legend: { symbolType: 'stroke', encode: { symbols: { update: { stroke: { value: '#444' }, fill: { value: 'transparent' } } } } },
    },
  };
  // Legend order and colours: by shard, master first; a node keeps its colour in every step.
  /** @type {Map<string, string>} */
  const colours = new Map();
  const nodes = seq.steps
    .flatMap((s) => s.run.nodes)
    .sort((a, b) => a.shard - b.shard || (a.role === 'master' ? -1 : 1) - (b.role === 'master' ? -1 : 1));
  for (const n of nodes) {
    const pair = PAIRS[Math.max(0, n.shard - 1) % PAIRS.length];
    if (!colours.has(nodeLabel(n))) colours.set(nodeLabel(n), n.role === 'master' ? pair[0] : pair[1]);
  }
  // Legend entries on the right in as many columns as the height needs: never under the plot,
  // which would squeeze it flat.
  const rows = Math.max(4, Math.floor((frame.height - 110) / 15));
  const columns = Math.ceil(colours.size / rows);
  return frameSpec(frame, [
    lineLayer(
      {
        y: { field: 'value', type: 'quantitative', title: 'Redis CPU (% of one core)', scale: headroom(values, seq) },
        color: {
          field: 'series',
          type: 'nominal',
          title: 'shard, role, node',
          scale: { domain: [...colours.keys()], range: [...colours.values()] },
          legend: { symbolType: 'stroke', columns, ...(columns > 1 && { labelFontSize: 10, columnPadding: 8 }) },
        },
        strokeDash: {
          field: 'role',
          type: 'nominal',
          title: 'role',
          scale: {
            domain: ['master', 'replica'],
            range: [
              [1, 0],
              [5, 3],
            ],
          },
          // Explicit stroke: with points on the lines Vega-Lite draws these symbols filled, i.e. invisible.
          legend: { symbolType: 'stroke', encode: { symbols: { update: { stroke: { value: '#444' }, fill: { value: 'transparent' } } } } },
        },
        ...opacity,
      },
      seq,
      values,
    ),
    ...markerLayers(seq, frame),
  ]);
}
