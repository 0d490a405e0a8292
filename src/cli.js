#!/usr/bin/env node
/** rqbench <produce|consume|local|report|compare|chart|ops|load|capacity|experiment|generate-deltas|k8s> … — one entry point; each command is a module in src/commands/. */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { failHandler, markGiven, onceOnly } from './usage-error.js';

const prog = 'rqbench';
/** command name → its module, in the order --help lists them */
const MODULES = {
  produce: './commands/produce.js',
  consume: './commands/consume.js',
  local: './commands/local.js',
  report: './commands/report.js',
  compare: './commands/compare.js',
  chart: './commands/chart.js',
  ops: './commands/ops.js',
  load: './commands/load.js',
  capacity: './commands/capacity.js',
  experiment: './commands/experiment.js',
  'generate-deltas': './commands/generate-deltas.js',
  k8s: './commands/k8s.js',
};
const NAMES = Object.keys(MODULES);
const first = process.argv[2];
// a word where a command goes that names none: say so (yargs would call it an unknown flag)
if (first && !first.startsWith('-') && !NAMES.includes(first)) {
  process.stderr.write(`${prog}: unknown command ${JSON.stringify(first)} (commands: ${NAMES.join(', ')}; see ${prog} --help)\n`);
  process.exit(2);
}
// a command loads its own module only: loading all twelve (the AWS SDK, Vega, the Kubernetes
// schemas…) was most of a short command's time; --help and --version without one load them all
const wanted = first && NAMES.includes(first) ? [first] : NAMES;
/** @type {Array<Record<string, any>>} */
const commands = await Promise.all(wanted.map((n) => import(MODULES[/** @type {keyof typeof MODULES} */ (n)])));
/** command name → its usage (`experiment <action> <dirs..>`) */
const USAGES = Object.fromEntries(commands.map((c) => [c.command.split(' ')[0], c.command]));
// produce and consume name themselves in their messages as the seed's scripts do: given here
const withProg = (c) => (['produce', 'consume'].includes(c.command.split(' ')[0]) ? { ...c, handler: (a) => c.handler(a, `${prog} ${c.command.split(' ')[0]}`) } : c);
await yargs(hideBin(process.argv))
  .scriptName(prog)
  // before the commands: a middleware added after them does not run for them
  .middleware(onceOnly(() => `${prog} ${process.argv[2]}`), true)
  .middleware(markGiven, true)
  .command(commands.map(withProg))
  .demandCommand(1, `a command is needed: ${NAMES.slice(0, -1).join(', ')} or ${NAMES.at(-1)} (see --help)`)
  .strict()
  .fail(failHandler(prog, USAGES))
  .wrap(Math.min(110, process.stdout.columns || 110))
  .help()
  .version()
  .parseAsync();
