/** The seed-compatible entry points (producer.js, consumer.js): one command as the whole program. */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { failHandler, markGiven, onceOnly } from './usage-error.js';

/**
 * @param {string} prog e.g. 'producer.js'
 * @param {{ builder: Function, handler: Function, describe: string }} commandModule
 */
export function runEntry(prog, commandModule) {
  return yargs(hideBin(process.argv))
    .scriptName(`node src/${prog}`)
    .command({ ...commandModule, command: '$0', handler: (a) => commandModule.handler(a, prog) })
    .middleware(onceOnly(prog), true)
    .middleware(markGiven, true)
    .strict()
    .fail(failHandler(prog))
    .wrap(Math.min(110, process.stdout.columns || 110))
    .help()
    .version(false)
    .parseAsync();
}
