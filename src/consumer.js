#!/usr/bin/env node
/** Seed-compatible entry point: `node src/consumer.js --cluster --limit 1000`. */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import * as consume from './commands/consume.js';
import { failHandler } from './options/usage-error.js';

const prog = 'consumer.js';
await yargs(hideBin(process.argv))
  .scriptName(`node src/${prog}`)
  .command({ ...consume, command: '$0', handler: (a) => consume.handler(a, prog) })
  .strict()
  .fail(failHandler(prog))
  .wrap(Math.min(110, process.stdout.columns || 110))
  .help()
  .version(false)
  .parseAsync();
