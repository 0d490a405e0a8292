/** Where results go and how much is printed. */
import { settings } from '../settings.js';

/** @param {import('yargs').Argv} y */
export function outputOptions(y) {
  const g = 'Output:';
  return y
    .option('out', { alias: 'o', type: 'string', requiresArg: true, default: settings.outDir, group: g, describe: 'directory that receives the run directory' })
    .option('name', { alias: 'n', type: 'string', requiresArg: true, group: g, describe: 'run name (part of the run directory name)', defaultDescription: 'from the flags' })
    .option('quiet', { type: 'boolean', default: false, group: g, describe: 'no live status line and no summary on stdout' })
    .option('json', { type: 'boolean', default: false, group: g, describe: 'print summary.json on stdout' });
}
