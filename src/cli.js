#!/usr/bin/env node
/** rqbench <produce|consume|local|report|compare|chart|ops|load|capacity|experiment|generate-deltas> … — one entry point; each command is a module in src/commands/. */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import * as produce from './commands/produce.js';
import * as consume from './commands/consume.js';
import * as local from './commands/local.js';
import * as report from './commands/report.js';
import * as compare from './commands/compare.js';
import * as chart from './commands/chart.js';
import * as ops from './commands/ops.js';
import * as experiment from './commands/experiment.js';
import * as load from './commands/load.js';
import * as generateDeltas from './commands/generate-deltas.js';
import * as capacity from './commands/capacity.js';
import { failHandler } from './usage-error.js';

const prog = 'rqbench';
await yargs(hideBin(process.argv))
  .scriptName(prog)
  .command({ ...produce, handler: (a) => produce.handler(a, `${prog} produce`) })
  .command({ ...consume, handler: (a) => consume.handler(a, `${prog} consume`) })
  .command(local)
  .command([report, compare, chart, ops, load, capacity, experiment, generateDeltas])
  .demandCommand(1, 'a command is needed: produce, consume, local, report, compare, chart, ops, load, capacity, experiment or generate-deltas (see --help)')
  .strict()
  .fail(failHandler(prog))
  .wrap(Math.min(110, process.stdout.columns || 110))
  .help()
  .version()
  .parseAsync();
