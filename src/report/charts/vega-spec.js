/**
 * Pieces every chart shares, as Vega-Lite: the frame (size, font, title), the shared time
 * axis, and the vertical rules for step boundaries and cluster actions with their labels.
 */

/** @typedef {import('./sequence.js').Sequence} Sequence */

/**
 * @typedef {object} Frame
 * @property {string} title what the chart shows
 * @property {string} [subtitle] which runs
 * @property {number} width whole image, px (legend and axes included)
 * @property {number} height
 */

/** The font shipped with the dejavu-fonts-ttf package, so SVG layout and PNG text agree everywhere. */
export const FONT = 'DejaVu Sans';

const STEP_COLOR = '#555555';
export const EVENT_COLOR = '#b2182b';
/** Room the legend and axes take from the plot width, for spacing labels (an estimate is enough). */
const LEGEND_AND_AXES_PX = 260;
/** Event labels closer than this are merged into one, so rotated labels never overlap. */
const MIN_LABEL_GAP_PX = 14;

/**
 * The outer spec: the image is exactly width x height ("fit" puts legend and axes inside).
 * @param {Frame} frame
 * @param {object[]} layer
 * @returns {Record<string, any>}
 */
export function frameSpec({ title, subtitle, width, height }, layer) {
  return {
    ...outer({ title, subtitle, height }),
    width,
    height,
    autosize: { type: 'fit', contains: 'padding' },
    layer,
  };
}

/**
 * What every chart's outermost spec has: schema, padding, title and the shared config.
 * @param {{ title: string, subtitle?: string, height: number }} p height: of a plot, for the y title's limit
 */
function outer({ title, subtitle, height }) {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    padding: 8,
    background: 'white',
    title: { text: title, ...(subtitle && { subtitle }), anchor: 'start', fontSize: 15, subtitleFontSize: 11, subtitleColor: '#444' },
    config: {
      font: FONT,
      axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6' },
      // A y title longer than the plot would push the chart title out of the image.
      axisY: { titleLimit: Math.max(80, height - 110) },
      legend: { labelFontSize: 11, titleFontSize: 11, labelLimit: 260, symbolStrokeWidth: 2 },
      view: { stroke: '#cccccc' },
    },
  };
}

/** Room a panel's y axis takes, labels and title: the same in every panel, so their plots line up. */
const PANEL_Y_AXIS_PX = 44;

/**
 * Small multiples: panels stacked on one time axis, each a layer spec of its own (title, layers,
 * y scale), in an image of exactly width x height. Vega-Lite cannot "fit" stacked views, so the
 * panels start from an estimate and render.js corrects them to the size asked for
 * (usermeta.fit) once it has measured the first drawing.
 * @param {Frame} frame the whole image
 * @param {Array<{ title: string, layer: object[] }>} panels top to bottom
 * @returns {Record<string, any>}
 */
export function panelsSpec({ title, subtitle, width, height }, panels) {
  const panelHeight = Math.max(40, Math.floor((height - 110) / panels.length) - 24);
  return {
    ...outer({ title, subtitle, height: panelHeight + 110 }),
    autosize: { type: 'pad' },
    usermeta: { fit: { width, height } },
    spacing: 8,
    config: {
      ...outer({ title, subtitle, height: panelHeight + 110 }).config,
      axisY: { titleLimit: panelHeight, minExtent: PANEL_Y_AXIS_PX, maxExtent: PANEL_Y_AXIS_PX },
    },
    resolve: { scale: { y: 'independent' } },
    vconcat: panels.map((p) => ({
      width: Math.max(100, width - 220),
      height: panelHeight,
      title: { text: p.title, anchor: 'start', fontSize: 12, fontWeight: 'bold', offset: 4 },
      layer: p.layer,
    })),
  };
}
/**
 * x for every time chart: seconds from the first step's start.
 * @param {Sequence} seq
 */
export function timeX(seq) {
  return {
    field: 'x',
    type: 'quantitative',
    title: 'time (s)',
    scale: { domain: [0, Math.max(1, seq.total)], nice: false, zero: true },
    axis: { tickMinStep: 1 },
  };
}

/**
 * A line per series, broken at step boundaries (steps are separate runs, with a gap in real time).
 * @param {object} encoding color, strokeDash, y … (x is added)
 * @param {Sequence} seq
 * @param {object[]} values points from sequence.points()
 */
export function lineLayer(encoding, seq, values) {
  return {
    data: { values },
    mark: { type: 'line', strokeWidth: 1.6, point: values.length <= 60 ? { size: 14 } : false },
    encoding: { x: timeX(seq), detail: { field: 'step' }, ...encoding },
  };
}

/**
 * Dashed rules at step starts with the step's label across its top, and solid rules at cluster
 * actions with rotated labels; drawn when there is more than one step or any event.
 * @param {Sequence} seq
 * @param {Frame} frame
 * @param {{ labels?: boolean }} [options] labels: false draws the rules only (a lower panel's)
 * @returns {object[]} layers (none when there is nothing to mark)
 */
export function markerLayers(seq, frame, { labels = true } = {}) {
  const layers = [];
  const plotWidth = Math.max(200, frame.width - LEGEND_AND_AXES_PX);
  const pxPerSec = plotWidth / Math.max(1, seq.total);
  if (seq.steps.length > 1) {
    const steps = seq.steps.map((s) => ({ x: s.start, label: s.label, limit: Math.max(0, (s.end - s.start) * pxPerSec - 6) }));
    layers.push(
      {
        data: { values: steps },
        mark: { type: 'rule', color: STEP_COLOR, strokeDash: [6, 4], strokeWidth: 1.2 },
        encoding: { x: { field: 'x', type: 'quantitative' } },
      },
      {
        data: { values: steps },
        // limit: a label never runs into the next step's (ellipsis instead)
        mark: {
          type: 'text',
          align: 'left',
          baseline: 'top',
          dx: 4,
          y: 2,
          fontSize: 11,
          fontWeight: 'bold',
          color: STEP_COLOR,
          limit: { expr: 'datum.limit' },
        },
        encoding: { x: { field: 'x', type: 'quantitative' }, text: { field: 'label' } },
      },
    );
  }
  if (seq.events.length > 0) {
    layers.push(
      {
        data: { values: seq.events },
        mark: { type: 'rule', color: EVENT_COLOR, strokeWidth: 1.2, opacity: 0.8 },
        encoding: { x: { field: 'x', type: 'quantitative' } },
      },
      {
        data: { values: eventLabels(seq.events, MIN_LABEL_GAP_PX / pxPerSec) },
        // Read upwards along the rule, starting below the step labels' row.
        mark: {
          type: 'text',
          angle: 270,
          align: 'right',
          baseline: 'top',
          dx: -18,
          dy: 3,
          y: 0,
          fontSize: 10,
          color: EVENT_COLOR,
          limit: { expr: 'max(40, height - 24)' },
        },
        encoding: { x: { field: 'x', type: 'quantitative' }, text: { field: 'text' } },
      },
    );
  }
  return labels ? layers : layers.filter((l) => l.mark.type !== 'text');
}

/**
 * Events closer than minGapSec share one label (texts joined), placed at the first of them.
 * @param {import('./sequence.js').ChartEvent[]} events
 * @param {number} minGapSec
 */
export function eventLabels(events, minGapSec) {
  /** @type {Array<{ x: number, text: string }>} */
  const out = [];
  for (const e of [...events].sort((a, b) => a.x - b.x)) {
    const last = out[out.length - 1];
    if (last && e.x - last.x < minGapSec) last.text = `${last.text}; ${e.text}`;
    else out.push({ x: e.x, text: e.text });
  }
  return out;
}

/**
 * A y scale from zero with room above the data for the step labels across the top.
 * @param {Array<{ value: number }>} values
 * @param {Sequence} seq
 */
export function headroom(values, seq) {
  if (seq.steps.length < 2) return { zero: true };
  const max = Math.max(0, ...values.map((v) => v.value));
  return { zero: true, domain: [0, max > 0 ? max * 1.15 : 1] };
}

/** Past this max/min ratio a latency axis is logarithmic: a failover's seconds-long p99 would flatten the rest. */
export const LOG_RATIO = 50;

/**
 * y for latencies in ms: linear from zero, or logarithmic when the values span a wide range.
 * @param {Array<{ value: number }>} values
 * @param {Sequence} seq
 * @returns {{ log: boolean, y: Record<string, any> }} log: leave out values <= 0 (no place on a log axis)
 */
export function latencyY(values, seq) {
  const positive = values.map((v) => v.value).filter((v) => v > 0);
  const log = positive.length > 0 && Math.max(...positive) / Math.min(...positive) > LOG_RATIO;
  return {
    log,
    y: {
      field: 'value',
      type: 'quantitative',
      title: `latency (ms${log ? ', log scale' : ''})`,
      scale: log ? { type: 'log' } : headroom(values, seq),
    },
  };
}
