#!/usr/bin/env node
/**
 * `npm run demo`: the seed's baseline (ids in a sorted set, values in SETEX keys) for about
 * 10 s against a throwaway local 3-shard cluster, at a rate this 2-core machine holds.
 */
import yargs from 'yargs';
import * as produce from './commands/produce.js';

const args = [
  '--local',
  '--cluster',
  '-q',
  '40000',
  '-t',
  '2',
  '-c',
  '4',
  '-d',
  '10',
  '--name',
  'demo-seed-baseline',
  ...process.argv.slice(2),
];
process.stderr.write(`rqbench demo: node src/producer.js ${args.join(' ')}\n`);
const a = await produce.builder(yargs(args)).strict().parseAsync();
await produce.handler(a, 'rqbench demo');
