#!/usr/bin/env node
/** Seed-compatible entry point: `node src/producer.js --cluster -q 300000 -t 8 -a 1 --ns 10 --same-slot`. */
import * as produce from './commands/produce.js';
import { runEntry } from './entry.js';

await runEntry('producer.js', produce);
