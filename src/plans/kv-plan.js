/**
 * `rqbench kv`'s flags: the shape of a key-value workload (operations in proportions or a YCSB
 * preset, key popularity over a key space, value sizes, arrivals at a rate or a ramp, a seed),
 * checked once into a frozen plan.
 */
import { randomInt } from 'node:crypto';
import { bad, intIn } from '../usage-error.js';
import { checkConnection } from './connection.js';
import { checkOutput } from './output.js';
import { checkMetrics } from './metrics-plan.js';
import { planOf } from './freeze.js';
import { atOption, checkRun, lengthOptions } from './producer-plan.js';
import { KEY_DIST_FORMS, parseKeyDist } from '../workloads/kv/key-choosers.js';
import { SIZE_FORMS, parseSizes } from '../workloads/kv/sizes.js';
import { RAMP_FORMS, parseRamp } from '../workloads/kv/arrivals.js';
import { MIX_FORMS, OP_NAMES, YCSB, parseMix } from '../workloads/kv/kv-ops.js';

const DEFAULTS = { mix: 'get:90,set:10', keyDist: 'uniform' };

/** @param {import('yargs').Argv} y */
export function kvOptions(y) {
  const w = 'Workload:';
  return atOption(lengthOptions(y, 'Run:'))
    .option('rate', {
      type: 'number',
      requiresArg: true,
      group: w,
      describe: 'operations a second, all clients together, held open-loop (latency from each intended start)',
      defaultDescription: '1000',
    })
    .option('ramp', {
      type: 'string',
      requiresArg: true,
      group: w,
      describe: `a rate that changes over the run instead of --rate: ${RAMP_FORMS}; linear between points, the last one held`,
    })
    .option('arrivals', {
      type: 'string',
      choices: ['constant', 'poisson'],
      default: 'constant',
      group: w,
      describe: 'constant: evenly spaced; poisson: exponential gaps at the same mean rate (many independent users)',
    })
    .option('mix', {
      type: 'string',
      requiresArg: true,
      group: w,
      describe: `operations in proportions: ${MIX_FORMS}`,
      defaultDescription: DEFAULTS.mix,
    })
    .option('preset', {
      type: 'string',
      choices: Object.keys(YCSB),
      group: w,
      describe: `a YCSB core workload as its Redis commands (sets --mix and the default --key-dist): ${Object.entries(YCSB)
        .map(([k, v]) => `${k} ${v.what}`)
        .join('; ')}`,
    })
    .option('keys', { type: 'number', requiresArg: true, default: 100_000, group: w, describe: 'the key space: keys 0 … N-1' })
    .option('key-dist', {
      type: 'string',
      requiresArg: true,
      group: w,
      describe: `which key each operation touches: ${KEY_DIST_FORMS}`,
      defaultDescription: `${DEFAULTS.keyDist} (a preset's: zipf:0.99:scrambled, latest:0.99 for ycsb-d)`,
    })
    .option('key-pattern', {
      type: 'string',
      requiresArg: true,
      default: 'kv:{n}',
      group: w,
      describe: 'key names, {n} the key number (a hash tag such as {kv}:{n} puts every key in one slot)',
    })
    .option('sizes', { type: 'string', requiresArg: true, default: '128', group: w, describe: `value sizes: ${SIZE_FORMS}` })
    .option('ttl', { type: 'number', requiresArg: true, default: 0, group: w, describe: 'seconds: SET and insert with EX; 0 keeps keys' })
    .option('seed', {
      type: 'number',
      requiresArg: true,
      group: w,
      describe: 'makes the operations, keys, sizes and gaps the same on every run (recorded in summary.json)',
      defaultDescription: 'drawn at random',
    })
    .option('read-from', {
      type: 'string',
      choices: ['master', 'replica', 'any'],
      default: 'master',
      group: w,
      describe:
        "where GET, HGET and ZRANGE go: the key slot's master, a replica of it (READONLY on a cluster), or any: the master and a replica in turn (half the reads each, as a client spreading reads over a shard's nodes)",
    })
    .option('fill', {
      type: 'boolean',
      default: false,
      group: w,
      describe:
        "write every key's value once before the run (YCSB's load phase), so reads find values: sizes from --sizes, with --ttl; hashes and sorted sets start empty",
    })
    .option('clients', {
      alias: 't',
      type: 'number',
      requiresArg: true,
      default: 1,
      group: w,
      describe: 'client processes sharing the rate',
    })
    .option('pipeline', {
      type: 'number',
      requiresArg: true,
      default: 0,
      group: w,
      describe:
        "operations a client may have outstanding on one node (memtier_benchmark's --pipeline): 1 is a round trip per operation, as an unpipelined application client sends them; the rest wait in the client, their wait in the latency from the intended start. 0: every operation due is written at once",
      defaultDescription: '0 (no limit)',
    })
    .option('max-inflight', {
      type: 'number',
      requiresArg: true,
      default: 10_000,
      group: w,
      describe: 'operations a client may have awaiting replies; past it sending waits (and latency from the intended start shows it)',
    });
}

/**
 * Every check of a kv run, once: the frozen plan it runs from, its shapes parsed.
 * @param {Readonly<Record<string, any>>} flags parsed (left as they are)
 */
export function kvPlan(flags) {
  checkConnection(flags);
  const a = flags;
  if (a.rate !== undefined && a.ramp !== undefined) throw bad('--rate', 'left out with --ramp (the ramp gives the rate)');
  const ramp = a.ramp === undefined ? [{ t: 0, rate: a.rate ?? 1000 }] : parseRamp(a.ramp);
  if (typeof ramp === 'string') throw bad('--ramp', ramp, a.ramp);
  if (a.rate !== undefined && !(Number.isFinite(a.rate) && a.rate > 0 && a.rate <= 10_000_000))
    throw bad('--rate', 'operations a second above 0, at most 10000000', a.rate);
  const preset = a.preset ? YCSB[a.preset] : null;
  if (preset && a.mix !== undefined) throw bad('--mix', `left out with --preset (${a.preset} is ${preset.mix})`);
  const mix = parseMix(a.mix ?? preset?.mix ?? DEFAULTS.mix);
  if (typeof mix === 'string') throw bad('--mix', mix, a.mix);
  intIn(a.keys, '--keys', 1, 2 ** 32);
  const keyDist = parseKeyDist(a.keyDist ?? preset?.keyDist ?? DEFAULTS.keyDist);
  if (typeof keyDist === 'string') throw bad('--key-dist', keyDist, a.keyDist);
  if (keyDist.kind === 'hotspot' && a.keys < 2) throw bad('--keys', 'at least 2 with hotspot: (a hot part and a cold one)', a.keys);
  if (typeof a.keyPattern !== 'string' || (a.keyPattern.match(/\{n\}/g) ?? []).length !== 1)
    throw bad('--key-pattern', 'a key name holding {n} once (e.g. kv:{n})', a.keyPattern);
  const sizes = parseSizes(a.sizes);
  if (typeof sizes === 'string') throw bad('--sizes', sizes, a.sizes);
  intIn(a.ttl, '--ttl', 0, 86_400 * 365);
  if (a.seed !== undefined) intIn(a.seed, '--seed', 0, 2 ** 32 - 1);
  intIn(a.clients, '--clients', 1, 1024);
  intIn(a.maxInflight, '--max-inflight', 1, 1_000_000);
  intIn(a.pipeline, '--pipeline', 0, 1_000_000);
  if (a.readFrom !== 'master' && !mix.some((m) => ['get', 'hget', 'zrange'].includes(m.op)))
    throw bad(`--read-from ${a.readFrom}`, `used with a mix that reads (get, hget or zrange; the mix is ${a.mix ?? preset?.mix})`);
  const fills = {
    ...checkRun({ ...a, timeScale: 1 }),
    ramp,
    mix,
    keyDist,
    sizes,
    seed: a.seed ?? randomInt(2 ** 32),
    ops: OP_NAMES.filter((op) => mix.some((m) => m.op === op)),
  };
  Object.assign(fills, checkMetrics(flags));
  checkOutput(flags);
  return planOf(flags, fills);
}
