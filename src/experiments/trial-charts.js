/**
 * The dot plots of an experiment's trials: one chart per figure its check compares
 * (`charts/trials-<metric>.svg|png`), every trial of every step that figure names.
 */
import path from 'node:path';
import fs from 'node:fs/promises';
import { renderChart, writeCharts } from '../report/charts/render.js';
import { trialsSpec } from '../report/charts/trial-dots.js';
import { describe } from '../stats/stats.js';

/**
 * @param {import('./verdict.js').Verdict} judged
 * @param {Map<string, string>} labels step name → label
 * @param {string} outDir experiments/<name>/charts
 * @param {{ title: string, metrics: Record<string, string> }} o metrics: metric → what it is (the y axis)
 * @returns {Promise<Array<{ name: string, title: string, spec: Record<string, any>, svg: string, png: string }>>} spec: the
 *   Vega-Lite drawn, for the HTML report
 */
export async function drawTrialCharts(judged, labels, outDir, { title, metrics }) {
  const byMetric = new Map();
  for (const r of judged.refs) {
    if (!byMetric.has(r.metric)) byMetric.set(r.metric, new Map());
    byMetric.get(r.metric).set(r.step, r);
  }
  const drawn = [];
  for (const [metric, refs] of byMetric) {
    // steps in the spec's order
    const order = [...labels.keys()];
    const points = [...refs.values()]
      .sort((x, y) => order.indexOf(x.step) - order.indexOf(y.step))
      .flatMap((r) => r.values.map((v) => ({ step: labels.get(r.step) ?? r.step, trial: v.trial, round: v.round, value: v.value })));
    if (!points.length) continue;
    const n = [...refs.values()].map((r) => r.values.length);
    const intervals = [...refs.values()].flatMap((r) => {
      const { ci } = describe(r.values.map((v) => v.value));
      return ci ? [{ step: labels.get(r.step) ?? r.step, lo: ci.lo, hi: ci.hi }] : [];
    });
    const chartTitle = `Trials: ${metric}`;
    const spec = trialsSpec(
      {
        title: chartTitle,
        subtitle: `${metrics[metric] ?? title} — every trial (${Math.min(...n) === Math.max(...n) ? n[0] : `${Math.min(...n)}–${Math.max(...n)}`} per step), median as a red tick${intervals.length ? ', its 95% interval as a red bar' : ''}`,
        yTitle: metric,
      },
      points,
      intervals,
    );
    drawn.push({
      name: `trials-${metric}`,
      title: chartTitle,
      spec,
      base: path.join(outDir, `trials-${metric}`),
      image: await renderChart(spec),
    });
  }
  if (!drawn.length) return [];
  await fs.mkdir(outDir, { recursive: true });
  const files = await writeCharts(drawn.map((d) => ({ base: d.base, ...d.image })));
  return drawn.map((d, i) => ({ name: d.name, title: d.title, spec: d.spec, ...files[i] }));
}
