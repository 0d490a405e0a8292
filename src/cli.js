#!/usr/bin/env node
/** rqbench <produce|consume|local|report|compare|chart|ops|load|capacity|experiment|generate-deltas|k8s> … — one entry point; each command is a module in src/commands/. */
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
import * as k8s from './commands/k8s.js';
import { failHandler, markGiven, onceOnly } from './usage-error.js';

const prog = 'rqbench';
const COMMANDS = [produce, consume, local, report, compare, chart, ops, load, capacity, experiment, generateDeltas, k8s];
/** command name → its usage (`experiment <action> <dirs..>`) */
const USAGES = Object.fromEntries(COMMANDS.map((c) => [c.command.split(' ')[0], c.command]));
const NAMES = Object.keys(USAGES);
const first = process.argv[2];
// a word where a command goes that names none: say so (yargs would call it an unknown flag)
if (first && !first.startsWith('-') && !NAMES.includes(first)) {
  process.stderr.write(`${prog}: unknown command ${JSON.stringify(first)} (commands: ${NAMES.join(', ')}; see ${prog} --help)\n`);
  process.exit(2);
}
await yargs(hideBin(process.argv))
  .scriptName(prog)
  // before the commands: a middleware added after them does not run for them
  .middleware(onceOnly(() => `${prog} ${process.argv[2]}`), true)
  .middleware(markGiven, true)
  .command({ ...produce, handler: (a) => produce.handler(a, `${prog} produce`) })
  .command({ ...consume, handler: (a) => consume.handler(a, `${prog} consume`) })
  .command(local)
  .command([report, compare, chart, ops, load, capacity, experiment, generateDeltas, k8s])
  .demandCommand(1, `a command is needed: ${NAMES.slice(0, -1).join(', ')} or ${NAMES.at(-1)} (see --help)`)
  .strict()
  .fail(failHandler(prog, USAGES))
  .wrap(Math.min(110, process.stdout.columns || 110))
  .help()
  .version()
  .parseAsync();
