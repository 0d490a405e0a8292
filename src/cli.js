#!/usr/bin/env node
/** rqbench <produce|consume|local|report|compare|chart|ops|load|kv|capacity|experiment|generate-deltas|k8s> … — one entry point; each command is a module in src/commands/. */
import { runCommand } from './run-command.js';

process.exitCode = await runCommand(process.argv.slice(2));
