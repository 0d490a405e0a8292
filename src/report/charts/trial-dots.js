/**
 * A dot plot of one figure over an experiment's trials: one column per step, one dot per trial
 * (coloured by its round, so a drift across rounds shows), and each step's median as a tick.
 * Every trial is drawn, an outlier too: the reader sees the spread the verdict was decided on.
 */
import { frameSpec } from './vega-spec.js';

/**
 * @param {{ title: string, subtitle?: string, yTitle: string, width?: number, height?: number }} frame
 * @param {Array<{ step: string, trial: number, round: number, value: number }>} points
 * @param {Array<{ step: string, lo: number, hi: number }>} [intervals] each step's median interval
 *   (distribution-free, stats/describe.js), drawn as a bar beside its dots; none below 6 trials
 * @returns {Record<string, any>} Vega-Lite
 */
export function trialsSpec({ title, subtitle, yTitle, width = 640, height = 320 }, points, intervals = []) {
  const order = [...new Set(points.map((p) => p.step))];
  const x = { field: 'step', type: 'nominal', sort: order, title: null, axis: { labelAngle: 0 } };
  return {
    ...frameSpec({ title, subtitle, width, height }, [
      {
        mark: { type: 'point', filled: true, size: 70, opacity: 0.85 },
        encoding: {
          x,
          xOffset: { field: 'trial', type: 'nominal' },
          y: { field: 'value', type: 'quantitative', title: yTitle, scale: { zero: false } },
          color: { field: 'round', type: 'ordinal', title: 'round', scale: { scheme: 'viridis' } },
          tooltip: [{ field: 'step' }, { field: 'trial' }, { field: 'round' }, { field: 'value' }],
        },
      },
      {
        mark: { type: 'tick', color: '#b2182b', thickness: 2, size: 40 },
        encoding: { x, y: { aggregate: 'median', field: 'value', type: 'quantitative' } },
      },
      ...(intervals.length
        ? [
            {
              data: { values: intervals },
              mark: { type: 'rule', color: '#b2182b', strokeWidth: 3, opacity: 0.45 },
              encoding: {
                x,
                y: { field: 'lo', type: 'quantitative' },
                y2: { field: 'hi' },
                tooltip: [{ field: 'step' }, { field: 'lo', title: 'median interval from' }, { field: 'hi', title: 'to' }],
              },
            },
          ]
        : []),
    ]),
    data: { values: points },
  };
}
