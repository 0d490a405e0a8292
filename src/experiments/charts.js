/**
 * THE ONE CALL SITE for an experiment's charts (branch `charts`: src/results/charts/index.js,
 * drawRunCharts). Until that module is on this branch, no charts are drawn and RESULTS.md says so.
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
  const module = new URL('../results/charts/index.js', import.meta.url);
  if (!fs.existsSync(module)) return null;
  const { drawRunCharts } = await import(module.href);
  fs.mkdirSync(outDir, { recursive: true });
  return drawRunCharts(runDirs, path.resolve(outDir), opts);
}
