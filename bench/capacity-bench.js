#!/usr/bin/env node
/**
 * `npm run bench:capacity`: the capacity search against an exhaustive ramp, on the same local
 * Redis in the same run.
 *
 *   1. a fresh local standalone Redis (the servers stay the same for both)
 *   2. `rqbench capacity` with its defaults (doubling ramp, bisection to 5%)
 *   3. the reference: the same command with --growth 1.05, which ramps in 5% steps until a step
 *      does not hold (the bisection then has nothing left to do): the exhaustive ramp
 *   target: the search's maximum within 5% of the ramp's, in at most half of the ramp's time.
 *
 * Both use the same step length, warm-up, writers and criteria, so the only difference is how
 * the rates are chosen. Exits 0 whatever the targets say (it is a benchmark); 1 only when it
 * could not measure. Flags: --start N (items/s, default 50,000), --step S (s, default 3),
 * --json FILE.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedis } from '../src/local/local-redis.js';
import { runMeasured } from './lib/proc.js';
import { commandLine } from './lib/phases.js';

const ROOT = new URL('..', import.meta.url).pathname;
const argv = process.argv.slice(2);
const flag = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const START = Number(flag('--start', 50_000));
const STEP_S = Number(flag('--step', 3));
const JSON_OUT = flag('--json', null);
/** Chunks small enough that a chunk's latency is not the limit; the SLO generous: the engine is. */
const COMMON = ['-t', '2', '-c', '50', '--start-rate', String(START), '--step-seconds', String(STEP_S), '--step-warmup', '1', '--slo-p99', '1000'];

const log = (s = '') => process.stdout.write(`${s}\n`);

/** Runs `rqbench capacity …` against the server; its capacity.json and the wall time. */
async function capacity(port, extra, out) {
  const full = ['src/cli.js', 'capacity', '--port', String(port), ...COMMON, ...extra, '--out', out, '--quiet'];
  const r = await runMeasured(process.execPath, full, { cwd: ROOT, timeoutMs: 30 * 60_000 });
  const [name] = fs.existsSync(out) ? fs.readdirSync(out) : [];
  if (!name || (r.code !== 0 && r.code !== 1)) throw new Error(`rqbench capacity exited with ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
  const doc = JSON.parse(fs.readFileSync(path.join(out, name, 'capacity.json'), 'utf8'));
  return { doc, wallS: r.wallS, command: commandLine('node', full) };
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-capacity-bench-'));
  const local = await startRedis();
  try {
    log(`# capacity search vs exhaustive 5% ramp (redis-server on 127.0.0.1:${local.port}, ${os.cpus().length} cores)`);
    const search = await capacity(local.port, [], path.join(work, 'search'));
    const ramp = await capacity(local.port, ['--growth', '1.05'], path.join(work, 'ramp'));
    const row = (label, r) => `| ${label} | ${r.doc.search.max?.toLocaleString('en-US') ?? '-'} | ${r.doc.steps.length} | ${r.wallS.toFixed(1)} | ${r.doc.answer} |`;
    log('');
    log('| | max sustainable items/s | steps | wall s | answer |');
    log('| --- | ---: | ---: | ---: | --- |');
    log(row('search (growth 2, bisect to 5%)', search));
    log(row('exhaustive ramp (5% steps)', ramp));
    const gap = search.doc.search.max && ramp.doc.search.max ? Math.abs(search.doc.search.max - ramp.doc.search.max) / ramp.doc.search.max : NaN;
    const timeRatio = search.wallS / ramp.wallS;
    log('');
    log(`search vs ramp: maximum ${(gap * 100).toFixed(1)}% apart (target ≤ 5%): ${gap <= 0.05 ? 'met' : 'NOT met'}; time ${timeRatio.toFixed(2)}x the ramp's (target ≤ 0.5x): ${timeRatio <= 0.5 ? 'met' : 'NOT met'}`);
    log(`commands: ${search.command}`);
    log(`          ${ramp.command}`);
    if (JSON_OUT) fs.writeFileSync(JSON_OUT, `${JSON.stringify({ search: { max: search.doc.search.max, steps: search.doc.steps.length, wallS: search.wallS }, ramp: { max: ramp.doc.search.max, steps: ramp.doc.steps.length, wallS: ramp.wallS }, gap, timeRatio }, null, 2)}\n`);
  } finally {
    await local.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`bench:capacity: ${e.message}\n`);
  process.exit(1);
});
