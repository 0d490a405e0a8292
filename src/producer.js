#!/usr/bin/env node
/** Seed-compatible entry point: `node src/producer.js --cluster -q 300000 -t 8 -a 1 --ns 10 --same-slot`. */
import { runScript } from './run-command.js';

process.exitCode = await runScript('producer.js', process.argv.slice(2));
