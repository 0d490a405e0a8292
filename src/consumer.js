#!/usr/bin/env node
/** Seed-compatible entry point: `node src/consumer.js --cluster --limit 1000`. */
import * as consume from './commands/consume.js';
import { runEntry } from './entry.js';

await runEntry('consumer.js', consume);
