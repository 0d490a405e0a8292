/**
 * The HTML report's interactive charts, as Vega-Lite: a per-second time chart (hover a second for
 * its values, zoom and pan the time axis, toggle series from the legend, cluster actions marked)
 * and the latency percentile spectrum (HdrHistogram's 1/(1-p) axis, log scale). The PNG/SVG
 * charts (report/charts/) stay as they are: these add what only a browser can give.
 */
import { EVENT_COLOR, FONT, LOG_RATIO } from '../charts/vega-spec.js';

/**
 * @typedef {object} Series one line of a time chart
 * @property {string} column the timeline column it reads
 * @property {string} label its legend entry and tooltip title
 * @property {string} [group] a second encoding (e.g. the node's role: solid master, dashed replica)
 */

/**
 * @param {object} o
 * @param {string} o.title
 * @param {string} [o.subtitle]
 * @param {string} o.yTitle
 * @param {Array<Record<string, number|string|null>>} o.rows timeline rows (second, time, events, columns)
 * @param {Series[]} o.series in legend order
 * @param {{ from: number, to: number }} [o.window] the summary's seconds, shaded outside
 * @param {number} [o.width]
 * @param {number} [o.height]
 * @returns {Record<string, any>|null} null when no series has a value
 */
export function timelineSpec({ title, subtitle, yTitle, rows, series, window, width = 760, height = 300 }) {
  const values = [];
  for (const row of rows) {
    for (const s of series) {
      const v = row[s.column];
      if (typeof v === 'number' && Number.isFinite(v))
        values.push({ second: row.second, series: s.label, value: v, ...(s.group && { group: s.group }) });
    }
  }
  if (!values.length) return null;
  const positive = values.map((v) => v.value).filter((v) => v > 0);
  const log = positive.length > 1 && Math.max(...positive) / Math.min(...positive) > LOG_RATIO && /ms/.test(yTitle);
  // one wide row per second for the hover: its fields named v0, v1… (labels hold dots and colons,
  // which Vega-Lite would read as nested fields)
  const wide = rows.map((row) => ({
    second: row.second,
    time: row.time ?? '',
    events: row.events || '—',
    // as text, the file's own figure: a gap is a dash, never a zero
    ...Object.fromEntries(series.map((s, i) => [`v${i}`, typeof row[s.column] === 'number' ? String(row[s.column]) : '—'])),
  }));
  const events = rows.filter((r) => r.events).map((r) => ({ second: r.second, text: String(r.events) }));
  const lastSecond = Math.max(1, ...rows.map((r) => Number(r.second)));
  const x = {
    field: 'second',
    type: 'quantitative',
    title: 'second of the run',
    scale: { domain: [0, lastSecond], nice: false },
    axis: { tickMinStep: 1 },
  };
  const groups = [...new Set(series.map((s) => s.group).filter(Boolean))];
  const layer = [
    ...(window ? outsideWindow(window, lastSecond) : []),
    {
      data: { values: log ? values.filter((v) => v.value > 0) : values },
      mark: { type: 'line', strokeWidth: 1.6, point: rows.length <= 60 ? { size: 16 } : false, interpolate: 'linear' },
      params: [
        { name: 'zoom', select: { type: 'interval', encodings: ['x'] }, bind: 'scales' },
        { name: 'pick', select: { type: 'point', fields: ['series'] }, bind: 'legend' },
      ],
      encoding: {
        x,
        y: {
          field: 'value',
          type: 'quantitative',
          title: `${yTitle}${log ? ' (log scale)' : ''}`,
          scale: log ? { type: 'log' } : { zero: true },
        },
        color: {
          field: 'series',
          type: 'nominal',
          title: null,
          sort: series.map((s) => s.label),
          scale: { domain: [...new Set(series.map((s) => s.label))] },
          legend: { symbolType: 'stroke', labelLimit: 320, orient: 'right' },
        },
        ...(groups.length > 1 && {
          strokeDash: {
            field: 'group',
            type: 'nominal',
            title: null,
            scale: { domain: groups, range: groups.map((_, i) => (i === 0 ? [1, 0] : [5, 3])) },
          },
        }),
        opacity: { condition: { param: 'pick', value: 1 }, value: 0.08 },
      },
    },
    ...eventLayers(events),
    {
      // the hover: a band a second wide around each second, shaded under the pointer, with every
      // series' value that second (a band, not `nearest`: Vega-Lite 6's voronoi tooltip loses text fields)
      data: { values: wide },
      transform: [
        { calculate: 'datum.second - 0.5', as: 'from' },
        { calculate: 'datum.second + 0.5', as: 'to' },
      ],
      mark: { type: 'rect', clip: true },
      params: [{ name: 'hover', select: { type: 'point', fields: ['second'], on: 'pointerover', clear: 'pointerout' } }],
      encoding: {
        x: { ...x, field: 'from' },
        x2: { field: 'to' },
        fill: { condition: { param: 'hover', empty: false, value: '#444' }, value: 'transparent' },
        fillOpacity: { condition: { param: 'hover', empty: false, value: 0.12 }, value: 0 },
        tooltip: [
          { field: 'second', type: 'quantitative', title: 'second' },
          { field: 'time', type: 'nominal', title: 'time' },
          ...series.map((s, i) => ({ field: `v${i}`, type: 'nominal', title: s.label })),
          { field: 'events', type: 'nominal', title: 'events' },
        ],
      },
    },
  ];
  return frame({ title, subtitle, width, height }, layer);
}

/**
 * Latency by percentile: x = 1/(1-p) on a log scale labelled 0%, 90%, 99%…, y in ms (log);
 * one line per curve (from the intended start: corrected; from the send: uncorrected).
 * @param {{ title: string, subtitle?: string, width?: number, height?: number }} f
 * @param {Array<{ x: number, percentile: number, value: number, series: string }>} points value in ms
 * @returns {Record<string, any>|null}
 */
export function spectrumSpec({ title, subtitle, width = 900, height = 340 }, points) {
  const values = points.filter((p) => p.value > 0);
  if (!values.length) return null;
  const maxX = Math.max(100, ...values.map((v) => v.x));
  const ticks = Array.from({ length: Math.floor(Math.log10(maxX) + 1e-9) + 1 }, (_, i) => 10 ** i);
  return frame({ title, subtitle, width, height }, [
    {
      data: { values },
      mark: { type: 'line', strokeWidth: 1.8, point: { size: 18 } },
      params: [{ name: 'pick', select: { type: 'point', fields: ['series'] }, bind: 'legend' }],
      encoding: {
        x: {
          field: 'x',
          type: 'quantitative',
          title: 'percentile (axis: 1/(1-p), log scale)',
          scale: { type: 'log', domain: [1, maxX], nice: false },
          axis: { values: ticks, labelExpr: "datum.value <= 1 ? '0%' : format(100 - 100 / datum.value, '.12~g') + '%'", grid: true },
        },
        y: { field: 'value', type: 'quantitative', title: 'latency (ms, log scale)', scale: { type: 'log' } },
        color: { field: 'series', type: 'nominal', title: null, legend: { symbolType: 'stroke', orient: 'bottom', labelLimit: 480 } },
        opacity: { condition: { param: 'pick', value: 1 }, value: 0.1 },
        tooltip: [
          { field: 'series', title: 'curve' },
          { field: 'percentile', type: 'quantitative', format: '.6~f', title: 'percentile' },
          { field: 'value', type: 'quantitative', format: '~r', title: 'ms' },
        ],
      },
    },
  ]);
}

/** The warm-up and the tail the summary leaves out, shaded. */
function outsideWindow({ from, to }, last) {
  const spans = [
    ...(from > 0 ? [{ a: 0, b: from, why: 'warm-up: not in the summary' }] : []),
    ...(to <= last ? [{ a: to, b: last, why: 'after the window: not in the summary' }] : []),
  ];
  if (!spans.length) return [];
  return [
    {
      data: { values: spans },
      mark: { type: 'rect', color: '#999', opacity: 0.12 },
      encoding: { x: { field: 'a', type: 'quantitative' }, x2: { field: 'b' }, tooltip: { field: 'why' } },
    },
  ];
}

/** Solid red rules where a cluster action or fault happened, the text up the rule. */
function eventLayers(events) {
  if (!events.length) return [];
  return [
    {
      data: { values: events },
      mark: { type: 'rule', color: EVENT_COLOR, strokeWidth: 1.5, opacity: 0.8 },
      encoding: { x: { field: 'second', type: 'quantitative' } },
    },
    {
      data: { values: events },
      mark: {
        type: 'text',
        angle: 270,
        align: 'right',
        baseline: 'top',
        dx: -4,
        dy: 3,
        y: 0,
        fontSize: 10,
        color: EVENT_COLOR,
        limit: 260,
      },
      encoding: { x: { field: 'second', type: 'quantitative' }, text: { field: 'text' } },
    },
  ];
}

/**
 * The outer spec: title, size, font, and a layer.
 * @param {{ title: string, subtitle?: string, width: number, height: number }} f
 * @param {object[]} layer
 */
function frame({ title, subtitle, width, height }, layer) {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, ...(subtitle && { subtitle }), anchor: 'start', fontSize: 15, subtitleFontSize: 11, subtitleColor: '#444' },
    width,
    height,
    padding: 8,
    background: 'white',
    config: {
      font: FONT,
      axis: { labelFontSize: 11, titleFontSize: 12, gridColor: '#e6e6e6' },
      legend: { labelFontSize: 11 },
      view: { stroke: '#ccc' },
    },
    layer,
  };
}
