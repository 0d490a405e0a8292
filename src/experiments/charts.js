/**
 * The one call site for an experiment's charts: drawRunCharts (src/report/charts/run-charts.js) over
 * the steps' producer run directories laid end to end, into experiments/<name>/charts/.
 * Loaded lazily, so `experiment run` on a tree without the chart module still writes RESULTS.md.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * @param {string[]} runDirs one producer run directory per step, in step order
 * @param {string} outDir experiments/<name>/charts
 * @param {{ title: string, stepLabels: string[], prefix?: string }} opts
 * @returns {Promise<Array<{ name: string, title: string, svg: string, png: string }>|null>} null: charts not available yet
 */
export async function drawExperimentCharts(runDirs, outDir, opts) {
  const module = new URL('../report/charts/run-charts.js', import.meta.url);
  if (!fs.existsSync(module)) return null;
  const { drawRunCharts } = await import(module.href);
  fs.mkdirSync(outDir, { recursive: true });
  return drawRunCharts(runDirs, path.resolve(outDir), opts);
}
