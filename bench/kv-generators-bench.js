#!/usr/bin/env node
/**
 * `npm run bench:kv-generators`: what the kv workload's generators cost beside what a writer
 * spends on an item (issue 39, point 2). Each generator (a key from every chooser over 1M keys, a
 * value size from each form, an arrival time from each process) is timed over --draws draws in
 * this process, as CPU ns per draw. The reference, in the same script: a local producer run
 * (`node src/producer.js --local -q RATE -d 3`) whose writers' CPU per item its summary gives.
 * An operation of the kv workload draws one key, one size and one arrival: their sum over the
 * writer's CPU per item is the share the generators add.
 *
 *   target: key + size + arrival, for the costliest of each, at most 5% of the writer's CPU per item.
 *
 * Exits 1 when the target is missed or the reference could not run. Flags: --draws N (default
 * 2,000,000) --rate R (default 100000: the producer's own operating point) --json FILE --help.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMeasured } from './lib/proc.js';
import { helpFromHeader } from './lib/help.js';
import { target, targetsLine } from './lib/targets.js';
import { streamOf } from '../src/workloads/kv/random.js';
import { keyChooser } from '../src/workloads/kv/key-choosers.js';
import { parseSizes, sizeChooser } from '../src/workloads/kv/sizes.js';
import { arrivals, parseRamp } from '../src/workloads/kv/arrivals.js';

const ROOT = new URL('..', import.meta.url).pathname;
helpFromHeader(import.meta.url);
const argv = process.argv.slice(2);
const flag = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const DRAWS = Number(flag('--draws', 2_000_000));
const RATE = Number(flag('--rate', 100_000));
const JSON_OUT = flag('--json', null);
const KEYS = 1_000_000;

/** CPU ns per call of `f` over DRAWS calls (after a warm-up of a tenth). */
function nsPerDraw(f) {
  let sink = 0;
  for (let i = 0; i < DRAWS / 10; i++) sink += f();
  const t0 = process.cpuUsage();
  for (let i = 0; i < DRAWS; i++) sink += f();
  const d = process.cpuUsage(t0);
  if (Number.isNaN(sink)) throw new Error('a generator gave NaN');
  return ((d.user + d.system) * 1000) / DRAWS;
}

const key = (dist) => {
  const c = keyChooser(dist, KEYS, streamOf(1, 'keys'));
  return () => c.next(KEYS - 1);
};
const size = (text) => sizeChooser(/** @type {any} */ (parseSizes(text)), streamOf(1, 'sizes'));
const gap = (process_, ramp) => arrivals(process_, /** @type {any} */ (parseRamp(ramp)), streamOf(1, 'gaps'));

const generators = {
  keys: {
    uniform: key({ kind: 'uniform' }),
    'zipf:0.99': key({ kind: 'zipf', s: 0.99, scrambled: false }),
    'zipf:0.99:scrambled': key({ kind: 'zipf', s: 0.99, scrambled: true }),
    'hotspot:0.2:0.8': key({ kind: 'hotspot', keys: 0.2, ops: 0.8 }),
    'latest:0.99': key({ kind: 'latest', s: 0.99 }),
    sequential: key({ kind: 'sequential' }),
  },
  sizes: { 512: size('512'), '128-1024': size('128-1024'), '128:8,1024:2': size('128:8,1024:2') },
  arrivals: {
    constant: gap('constant', '0:100000'),
    poisson: gap('poisson', '0:100000'),
    'poisson, ramp 0:1000,10:100000': gap('poisson', '0:1000,10:100000'),
  },
};

/** @type {Record<string, Record<string, number>>} */
const ns = {};
for (const [group, gens] of Object.entries(generators)) {
  ns[group] = {};
  for (const [name, f] of Object.entries(gens)) ns[group][name] = nsPerDraw(f);
}

// the reference: a writer's CPU per item at RATE, from a local producer run's own summary
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-kvgen-'));
const run = await runMeasured(
  process.execPath,
  ['src/producer.js', '--local', '-q', String(RATE), '-d', '3', '--json', '--quiet', '--out', out],
  {
    cwd: ROOT,
    timeoutMs: 60_000,
  },
);
fs.rmSync(out, { recursive: true, force: true });
let writerNs = null;
try {
  const s = JSON.parse(run.stdout);
  writerNs = ((s.client.cpuPct / 100) * s.window.seconds * 1e9) / s.totals.acked;
} catch {
  console.log(`the reference producer run did not give its CPU (exit ${run.code}): ${run.stderr.trim().split('\n').at(-1)}`);
  process.exitCode = 1;
}

const worst = (group) => Math.max(...Object.values(ns[group]));
const perOp = worst('keys') + worst('sizes') + worst('arrivals');
console.log(`rqbench kv generators, ${DRAWS.toLocaleString('en-US')} draws each (CPU ns per draw), ${KEYS.toLocaleString('en-US')} keys:`);
for (const [group, xs] of Object.entries(ns)) {
  console.log(
    `  ${group}: ${Object.entries(xs)
      .map(([n, v]) => `${n} ${v.toFixed(1)}`)
      .join(', ')}`,
  );
}
if (writerNs !== null) {
  const share = perOp / writerNs;
  console.log(
    `reference: a writer's CPU per item at ${RATE.toLocaleString('en-US')} items/s (node src/producer.js --local): ${writerNs.toFixed(0)} ns`,
  );
  console.log(
    `an operation's draws at their costliest (key + size + arrival): ${perOp.toFixed(1)} ns = ${(share * 100).toFixed(2)}% of it — target at most 5%: ${target(share <= 0.05)}`,
  );
}
console.log(targetsLine());
if (JSON_OUT) fs.writeFileSync(JSON_OUT, `${JSON.stringify({ draws: DRAWS, keys: KEYS, rate: RATE, ns, writerNs, perOp }, null, 2)}\n`);
