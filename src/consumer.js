#!/usr/bin/env node
/** Seed-compatible entry point: `node src/consumer.js --cluster --limit 1000`. */
import { runScript } from './run-command.js';

process.exitCode = await runScript('consumer.js', process.argv.slice(2));
