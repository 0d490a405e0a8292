/**
 * `rqbench chart <run-dir…> --out <dir>`: draws the charts of one run, or of several runs laid
 * end to end (experiment steps), as SVG and PNG, and prints the files written.
 */
import { bad, failHandler, printable, UsageError } from '../usage-error.js';
import { checkOutput } from '../plans/output.js';
import { setExitCode, writeErr, writeOut } from '../command-io.js';

const prog = 'rqbench chart';

export const command = 'chart <run-dir..>';
export const describe = 'Draw CPU per node, throughput, latency over time and the percentile spectrum as SVG + PNG';

/**
 * @param {import('yargs').Argv} yargs
 * @returns {import('yargs').Argv}
 */
export function builder(yargs) {
  return (
    yargs
      .positional('run-dir', {
        describe: 'Run directories, in order: several are laid end to end as steps',
        type: 'string',
        array: true,
        default: undefined,
      })
      .option('out', { type: 'string', demandOption: true, describe: 'Directory the charts go to (created if missing)' })
      .option('title', { type: 'string', describe: "Subtitle of every chart [default: the steps' names]" })
      .option('label', {
        type: 'string',
        array: true,
        describe: "A step label per run directory, in order [default: each directory's name]",
      })
      // Strings, so a bad value is quoted back as typed.
      .option('width', { type: 'string', default: '900', describe: 'Image width, px (300..4000)' })
      .option('height', { type: 'string', default: '360', describe: 'Image height, px (200..4000)' })
      .example('$0 chart runs/<run> --out charts/', 'the charts of one run')
      .example('$0 chart a/ b/ --label one --label two --out charts/', 'two steps on one time axis')
      .strict()
      .fail(failHandler(prog))
  );
}

/**
 * @param {{ 'run-dir': string[], out: string, title?: string, label?: string[], width: string, height: string }} a
 * @returns {Promise<void>}
 */
export async function handler(a) {
  // the kebab key: yargs puts a stray undefined first in the camelCase copy of a variadic positional with no default
  const runDirs = a['run-dir'];
  try {
    const labels = a.label ?? [];
    if (labels.length > runDirs.length)
      throw new UsageError(`--label given ${labels.length} times for ${runDirs.length} run director${runDirs.length === 1 ? 'y' : 'ies'}`);
    checkOutput({ out: a.out });
    const width = pixels(a.width, '--width', 300);
    const height = pixels(a.height, '--height', 200);
    // Loaded here, not at the top: every other command would pay for Vega and resvg at start.
    const { drawRunCharts } = await import('../report/charts/run-charts.js');
    const charts = await drawRunCharts(runDirs, a.out, { title: a.title, stepLabels: labels, width, height });
    for (const c of charts) writeOut(`${c.svg}\n${c.png}\n`);
  } catch (e) {
    const err = /** @type {Error} */ (e);
    // a file name or a value read from a damaged file can hold control characters
    writeErr(`${prog}: ${printable(String(err.message).split('\n')[0])}\n`);
    setExitCode(err instanceof UsageError ? 2 : 1);
  }
}

/**
 * @param {string} text as typed
 * @param {string} flag
 * @param {number} min
 */
function pixels(text, flag, min) {
  const v = /^\s*\d+\s*$/.test(String(text)) ? Number(text) : NaN;
  if (!(v >= min && v <= 4000)) throw bad(flag, `an integer from ${min} to 4000`, String(text));
  return v;
}
