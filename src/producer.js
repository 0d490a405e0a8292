#!/usr/bin/env node
/** Seed-compatible entry point: `node src/producer.js --cluster -q 300000 -t 8 -a 1 --ns 10 --same-slot`. */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import * as produce from './commands/produce.js';
import { failHandler } from './options/usage-error.js';

const prog = 'producer.js';
await yargs(hideBin(process.argv))
  .scriptName(`node src/${prog}`)
  .command({ ...produce, command: '$0', handler: (a) => produce.handler(a, prog) })
  .strict()
  .fail(failHandler(prog))
  .wrap(Math.min(110, process.stdout.columns || 110))
  .help()
  .version(false)
  .parseAsync();
